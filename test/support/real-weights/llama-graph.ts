/**
 * A llama2.c checkpoint as the ONNX graph transformers.js runs for a causal LM: `input_ids`,
 * `attention_mask`, `position_ids` and `past_key_values.{i}.key|value` in; `logits` and
 * `present.{i}.key|value` out. The arithmetic is run.c's: RMSNorm (eps 1e-5), grouped-query
 * attention (query head h reads key/value head h / (heads / kv heads)), SwiGLU, the token embedding
 * as the output layer. Rotary embeddings turn adjacent pairs (element 2i with 2i+1, llama2.c's
 * layout, not Hugging Face's split halves) by angles computed in the graph from `position_ids`, so
 * the positions the caller gives are the ones the model sees; the cache holds keys already turned
 * (see docs/decisions/real-weights-in-the-tests.md).
 * @module
 */
import { attr, GraphBuilder } from '../../../src/tiny-models/graph-builder.ts';
import { DataType, encodeModel } from '../../../src/tiny-models/onnx-proto.ts';
import type { Llama2cWeights } from './llama2c-checkpoint.ts';

export const RMS_NORM_EPS = 1e-5;
export const ROPE_THETA = 10000;

export function buildLlamaGraph(weights: Llama2cWeights): Uint8Array {
  const { dim, hiddenDim, layers, heads, kvHeads, vocabSize } = weights.config;
  const headSize = dim / heads;
  const kvDim = kvHeads * headSize;
  const groups = heads / kvHeads;
  const g = new GraphBuilder();
  const f32 = (v: number) => g.floats([v], []);
  const i64 = (v: number) => g.int64s([v], []);
  const unsqueeze = (x: string, axes: number[]) => g.op('Unsqueeze', [x, g.int64s(axes)]);
  const reshape = (x: string, shape: number[]) => g.op('Reshape', [x, g.int64s(shape)]);
  const transpose = (x: string, perm: number[]) => g.op('Transpose', [x], [attr.ints('perm', perm)]);
  /** x @ Wᵀ for a row-major [out, in] matrix of a stacked layer tensor. */
  const linear = (x: string, name: string, stacked: Float32Array, layer: number, out: number, inn: number) => {
    const w = stacked.subarray(layer * out * inn, (layer + 1) * out * inn);
    const wt = new Float32Array(inn * out);
    for (let o = 0; o < out; o++) for (let i = 0; i < inn; i++) wt[i * out + o] = w[o * inn + i]!;
    return g.op('MatMul', [x, g.weight(name, [inn, out], wt)]);
  };
  const rmsNorm = (x: string, name: string, weight: Float32Array) => {
    const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], [attr.ints('axes', [-1]), attr.i('keepdims', 1)]);
    const scale = g.op('Reciprocal', [g.op('Sqrt', [g.op('Add', [meanSquare, f32(RMS_NORM_EPS)])])]);
    return g.op('Mul', [g.weight(name, [dim], weight), g.op('Mul', [scale, x])]);
  };

  // The padding mask is matched to the keys by count (its last columns), so a cache of the wrong
  // length reads as a wrong text rather than a shape error.
  const keyCount = (keys: string) => g.op('Shape', [keys], [attr.i('start', 2), attr.i('end', 3)]);
  const seqLen = g.op('Shape', ['input_ids'], [attr.i('start', 1), attr.i('end', 2)]);
  const maskBias = (keys: string) => {
    const total = keyCount(keys);
    const mask = g.op('Slice', ['attention_mask', g.op('Neg', [total]), g.int64s([2 ** 62]), g.int64s([1])]);
    const keyPos = g.op('Range', [i64(0), g.op('Squeeze', [total]), i64(1)]);
    const queryPos = g.op('Add', [g.op('Range', [i64(0), g.op('Squeeze', [seqLen]), i64(1)]), g.op('Squeeze', [g.op('Sub', [total, seqLen])])]);
    const causal = g.op('LessOrEqual', [unsqueeze(keyPos, [0]), unsqueeze(queryPos, [1])]); // [S, T]
    const notPad = unsqueeze(g.op('Cast', [mask], [attr.i('to', DataType.BOOL)]), [1, 2, 3]); // [B, 1, 1, 1, T]
    return g.op('Where', [g.op('And', [causal, notPad]), f32(0), f32(-1e9)]);
  };

  // Rotary angles per position and pair: [B, S, 1, headSize/2, 1], shared by every layer.
  const invFreq = Array.from({ length: headSize / 2 }, (_, p) => Math.fround(1 / Math.fround(ROPE_THETA ** ((2 * p) / headSize))));
  const positions = g.op('Cast', ['position_ids'], [attr.i('to', DataType.FLOAT)]);
  const angles = g.op('Mul', [unsqueeze(positions, [2, 3, 4]), g.floats(invFreq, [1, headSize / 2, 1])]);
  const [cos, sin] = [g.op('Cos', [angles]), g.op('Sin', [angles])];
  /** [B, S, n·headSize] → turned pairs, as [B, S, n, headSize]. */
  const rotate = (x: string, n: number) => {
    const pairs = reshape(x, [0, 0, n, headSize / 2, 2]);
    const even = g.op('Slice', [pairs, g.int64s([0]), g.int64s([1]), g.int64s([4])]);
    const odd = g.op('Slice', [pairs, g.int64s([1]), g.int64s([2]), g.int64s([4])]);
    const first = g.op('Sub', [g.op('Mul', [even, cos]), g.op('Mul', [odd, sin])]);
    const second = g.op('Add', [g.op('Mul', [even, sin]), g.op('Mul', [odd, cos])]);
    return reshape(g.op('Concat', [first, second], [attr.i('axis', 4)]), [0, 0, n, headSize]);
  };

  const embedding = g.weight('token_embedding', [vocabSize, dim], weights.tokenEmbedding);
  let x = g.op('Gather', [embedding, 'input_ids']);
  for (let l = 0; l < layers; l++) {
    const h = rmsNorm(x, `layers.${l}.rms_att`, weights.rmsAtt.subarray(l * dim, (l + 1) * dim));
    const q = transpose(rotate(linear(h, `layers.${l}.wq`, weights.wq, l, dim, dim), heads), [0, 2, 1, 3]); // [B, H, S, hs]
    const k = transpose(rotate(linear(h, `layers.${l}.wk`, weights.wk, l, kvDim, dim), kvHeads), [0, 2, 1, 3]); // [B, KV, S, hs]
    const v = transpose(reshape(linear(h, `layers.${l}.wv`, weights.wv, l, kvDim, dim), [0, 0, kvHeads, headSize]), [0, 2, 1, 3]);
    const keys = g.op('Concat', [`past_key_values.${l}.key`, k], [attr.i('axis', 2)], `present.${l}.key`);
    const values = g.op('Concat', [`past_key_values.${l}.value`, v], [attr.i('axis', 2)], `present.${l}.value`);
    // Query heads grouped by the key/value head they share: [B, KV, groups, S, hs].
    const grouped = reshape(q, [0, kvHeads, groups, -1, headSize]);
    const scores = g.op('MatMul', [grouped, unsqueeze(transpose(keys, [0, 1, 3, 2]), [2])]);
    const biased = g.op('Add', [g.op('Mul', [scores, f32(1 / Math.sqrt(headSize))]), maskBias(keys)]);
    const context = g.op('MatMul', [g.op('Softmax', [biased], [attr.i('axis', -1)]), unsqueeze(values, [2])]);
    const merged = reshape(transpose(reshape(context, [0, heads, -1, headSize]), [0, 2, 1, 3]), [0, 0, dim]);
    x = g.op('Add', [x, linear(merged, `layers.${l}.wo`, weights.wo, l, dim, dim)]);

    const f = rmsNorm(x, `layers.${l}.rms_ffn`, weights.rmsFfn.subarray(l * dim, (l + 1) * dim));
    const gate = linear(f, `layers.${l}.w1`, weights.w1, l, hiddenDim, dim);
    const up = linear(f, `layers.${l}.w3`, weights.w3, l, hiddenDim, dim);
    const silu = g.op('Mul', [gate, g.op('Sigmoid', [gate])]);
    x = g.op('Add', [x, linear(g.op('Mul', [silu, up]), `layers.${l}.w2`, weights.w2, l, dim, hiddenDim)]);
  }
  const final = rmsNorm(x, 'rms_final', weights.rmsFinal);
  g.op('MatMul', [final, transpose(embedding, [1, 0])], [], 'logits');

  const cache = (prefix: string, length: string) =>
    Array.from({ length: layers }, (_, l) => ['key', 'value'].map((kind) => ({ name: `${prefix}.${l}.${kind}`, elemType: DataType.FLOAT, shape: ['batch_size', kvHeads, length, headSize] }))).flat();
  return encodeModel(g.build('stories260K', [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'total_sequence_length'] },
    { name: 'position_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ...cache('past_key_values', 'past_sequence_length'),
  ], [
    { name: 'logits', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', vocabSize] },
    ...cache('present', 'total_sequence_length'),
  ]));
}
