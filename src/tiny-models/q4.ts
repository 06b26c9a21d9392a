/**
 * 4-bit block-quantized linear layers as onnx-community's `model_q4.onnx` files have them:
 * ONNX Runtime's contrib op `com.microsoft.MatMulNBits` (bits 4, block_size 32, symmetric: no
 * zero points, so a code c means c - 8), which is what transformers.js's quantize script
 * (onnxruntime's MatMul4BitsQuantizer, is_symmetric, block 32) writes for every MatMul with a
 * constant weight.
 *
 * Layout, for a weight W of K inputs × N outputs: `B` is uint8 [N, K/32, 16], row n holding column
 * n of W, two codes a byte, the lower k in the low nibble; `scales` is float32 [N, K/32]. So
 * W[k][n] = ((B[n][k/32][(k%32)/2] >> 4·(k%2)) & 15) - 8) · scales[n][k/32].
 *
 * The codes are drawn directly (no float weights to quantize): uniform in -7..7 with 0 twice as
 * likely (a drawn -8 becomes 0), so the weights are symmetric about zero; scales put their
 * variance at 1/K, the same as the float layers' uniform(±√(3/K)).
 * @module
 */

import { attr, type GraphBuilder } from './graph-builder.ts';
import type { Prng } from './prng.ts';

export const Q4_BLOCK = 32;
/** Bytes of one block: 32 codes of 4 bits. */
const BLOB = Q4_BLOCK / 2;
/** Variance of a code minus 8 as drawn: (2 · (1² + … + 7²)) / 16. */
const CODE_VARIANCE = 17.5;

/** Byte → byte with each nibble 0 (code -8 after the offset) replaced by 8 (zero). */
const NO_MINUS_EIGHT = Uint8Array.from({ length: 256 }, (_, b) => ((b & 15) || 8) | (((b >> 4) || 8) << 4));

export interface Q4Weight {
  /** uint8 [N, K/32, 16]. */
  readonly codes: Uint8Array;
  /** float32 [N, K/32]. */
  readonly scales: Float32Array;
}

/** Random codes and scales of a K × N weight; `zeroColumn0` makes output 0 exactly zero (scales 0). */
export function randomQ4Weight(prng: Prng, K: number, N: number, zeroColumn0 = false): Q4Weight {
  if (K % Q4_BLOCK !== 0) throw new Error(`MatMulNBits: K = ${K} is not a multiple of ${Q4_BLOCK}`);
  const blocks = K / Q4_BLOCK;
  const codes = new Uint8Array(N * blocks * BLOB);
  for (let i = 0; i < codes.length; i += 4) {
    const r = prng.uint32();
    codes[i] = NO_MINUS_EIGHT[r & 255]!;
    codes[i + 1] = NO_MINUS_EIGHT[(r >>> 8) & 255]!;
    codes[i + 2] = NO_MINUS_EIGHT[(r >>> 16) & 255]!;
    codes[i + 3] = NO_MINUS_EIGHT[r >>> 24]!;
  }
  const base = 1 / Math.sqrt(CODE_VARIANCE * K);
  const scales = new Float32Array(N * blocks);
  for (let i = 0; i < scales.length; i++) scales[i] = base * (1 + prng.uniform(0.25));
  if (zeroColumn0) scales.fill(0, 0, blocks);
  return { codes, scales };
}

/** `x · W` through MatMulNBits, W a random K × N weight stored as `${name}.weight_q4` and `${name}.weight_scales`. */
export function q4Linear(g: GraphBuilder, prng: Prng, x: string, name: string, K: number, N: number, zeroColumn0 = false): string {
  const { codes, scales } = randomQ4Weight(prng, K, N, zeroColumn0);
  const blocks = K / Q4_BLOCK;
  const b = g.bytes(`${name}.weight_q4`, [N, blocks, BLOB], codes);
  const s = g.weight(`${name}.weight_scales`, [N, blocks], scales);
  return g.contribOp('MatMulNBits', [x, b, s], [attr.i('K', K), attr.i('N', N), attr.i('bits', 4), attr.i('block_size', Q4_BLOCK)]);
}

/** W[k][n] as float: the reference the tests check MatMulNBits against. */
export function dequantizeQ4({ codes, scales }: Q4Weight, K: number, N: number): Float32Array {
  const blocks = K / Q4_BLOCK;
  const w = new Float32Array(K * N);
  for (let n = 0; n < N; n++) {
    for (let k = 0; k < K; k++) {
      const byte = codes[n * blocks * BLOB + Math.floor(k / 2)]!;
      const code = k % 2 === 0 ? byte & 15 : byte >> 4;
      w[k * N + n] = (code - 8) * scales[n * blocks + Math.floor(k / Q4_BLOCK)]!;
    }
  }
  return w;
}
