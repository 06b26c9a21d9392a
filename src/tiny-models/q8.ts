/**
 * 8-bit linear layers as transformers.js's `q8` files (`onnx/model_quantized.onnx`) have them:
 * onnxruntime's dynamic quantization (`quantize_dynamic`), which turns every MatMul with a constant
 * weight into `DynamicQuantizeLinear` of the input (uint8, a scale and zero point per call), a
 * `MatMulInteger` against int8 weights, and the product scaled back to float
 * (`Cast` · input scale · weight scale). onnxruntime fuses the four into one `DynamicQuantizeMatMul`
 * when it optimizes the graph, as it does for the real files.
 *
 * Weights are drawn directly as int8 codes, uniform in −127..127, one scale per tensor, their
 * variance 1/K as the float and 4-bit layers have it.
 * @module
 */

import { attr, type GraphBuilder } from './graph-builder.ts';
import { DataType } from './onnx-proto.ts';
import type { Prng } from './prng.ts';

/** Variance of a code as drawn: (2 · (1² + … + 127²)) / 256. */
const CODE_VARIANCE = (2 * ((127 * 128 * 255) / 6)) / 256;

export interface Q8Weight {
  /** int8 [K, N], row-major (MatMulInteger's B). */
  readonly codes: Int8Array;
  readonly scale: number;
}

/** Random codes and the scale of a K × N weight; `zeroColumn0` makes output 0 exactly zero. */
export function randomQ8Weight(prng: Prng, K: number, N: number, zeroColumn0 = false): Q8Weight {
  const codes = new Int8Array(K * N);
  for (let i = 0; i < codes.length; i += 4) {
    const r = prng.uint32();
    for (let b = 0; b < 4 && i + b < codes.length; b++) {
      // 1..255 → −127..127, and 0 → 0: zero twice as likely, the codes symmetric about it.
      const byte = (r >>> (8 * b)) & 255;
      codes[i + b] = byte === 0 ? 0 : byte - 128;
    }
  }
  if (zeroColumn0) for (let k = 0; k < K; k++) codes[k * N] = 0;
  return { codes, scale: 1 / Math.sqrt(CODE_VARIANCE * K) };
}

/** `x · W` as dynamic quantization writes it, W a random K × N weight stored as `${name}.weight_quantized`. */
export function q8Linear(g: GraphBuilder, prng: Prng, x: string, name: string, K: number, N: number, zeroColumn0 = false): string {
  const { codes, scale } = randomQ8Weight(prng, K, N, zeroColumn0);
  return q8Product(g, x, g.int8s(`${name}.weight_quantized`, [K, N], codes), scale);
}

/** `x · W` for an int8 initializer `w` [K, N] of one `scale`, as dynamic quantization writes it. */
export function q8Product(g: GraphBuilder, x: string, w: string, scale: number): string {
  const quantized = g.fresh('x_quantized');
  const xScale = g.fresh('x_scale');
  const xZero = g.fresh('x_zero_point');
  g.nodes.push({ opType: 'DynamicQuantizeLinear', inputs: [x], outputs: [quantized, xScale, xZero], name: g.fresh('DynamicQuantizeLinear'), attributes: [] });
  const product = g.op('MatMulInteger', [quantized, w, xZero]);
  const scaled = g.op('Mul', [xScale, g.floats([scale], [])]);
  return g.op('Mul', [g.op('Cast', [product], [attr.i('to', DataType.FLOAT)]), scaled]);
}
