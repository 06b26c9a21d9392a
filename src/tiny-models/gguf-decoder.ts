/**
 * The decoder of tiny-chat.ts as a llama.cpp model (GGUF, gguf.ts): the same sizes
 * (`DecoderShape`), the same byte-level BPE vocabulary, specials and ChatML template, as a `qwen2`
 * (q/k/v biases) or `llama` architecture, its projections in Q4_0 or Q8_0 blocks and its token
 * table in Q8_0 (what llama.cpp's quantizer keeps for a tied table whose rows are not whole
 * 256-blocks, as Qwen2.5-0.5B's 896 are not). For the CPU benchmark: the real-shaped Qwen at the
 * cost a llama.cpp user pays (bench/real-models/).
 *
 * Seeded random weights, like the ONNX builder's, but with no rule on top: a GGUF has no graph to
 * put the vocabulary bias and stop rule in, so greedy text is random tokens and may end early on a
 * special one; the benchmark asks llama.cpp to ignore the end token (`ignore_eos`).
 * @module
 */

import { encodeGguf, f32, f32Bytes, GgmlType, type GgufTensor, type GgufValue, toHalf, u32 } from './gguf.ts';
import type { Prng } from './prng.ts';
import { buildVocab, CHAT_TEMPLATE, IM_END, PAD, SPECIALS, type DecoderShape } from './tiny-chat.ts';

export interface GgufDecoderLayout {
  /** The seven projections of each layer. */
  readonly weights: 'q4_0' | 'q8_0';
  /** `qwen2` has q/k/v biases, `llama` none. */
  readonly architecture: 'qwen2' | 'llama';
  readonly name: string;
}

/** Byte → byte with each nibble 0 (code −8) replaced by 8 (zero), as q4.ts draws its codes. */
const NO_MINUS_EIGHT = Uint8Array.from({ length: 256 }, (_, b) => ((b & 15) || 8) | (((b >> 4) || 8) << 4));

/** Random Q4_0 blocks of a K × N weight (N rows of K): codes −7..7, variance 1/K. */
function randomQ4_0(prng: Prng, K: number, N: number): Uint8Array {
  const blocks = (K * N) / 32;
  const out = new Uint8Array(blocks * 18);
  const view = new DataView(out.buffer);
  const base = 1 / Math.sqrt(17.5 * K);
  for (let b = 0; b < blocks; b++) {
    const at = b * 18;
    view.setUint16(at, toHalf(base * (1 + prng.uniform(0.25))), true);
    for (let j = 0; j < 16; j += 4) {
      const r = prng.uint32();
      out[at + 2 + j] = NO_MINUS_EIGHT[r & 255]!;
      out[at + 3 + j] = NO_MINUS_EIGHT[(r >>> 8) & 255]!;
      out[at + 4 + j] = NO_MINUS_EIGHT[(r >>> 16) & 255]!;
      out[at + 5 + j] = NO_MINUS_EIGHT[r >>> 24]!;
    }
  }
  return out;
}

/** Random Q8_0 blocks of a K × N weight: codes −127..127, variance `variance`. */
function randomQ8_0(prng: Prng, K: number, N: number, variance = 1 / K): Uint8Array {
  const blocks = (K * N) / 32;
  const out = new Uint8Array(blocks * 34);
  const view = new DataView(out.buffer);
  const base = Math.sqrt(variance / 5376);
  for (let b = 0; b < blocks; b++) {
    const at = b * 34;
    view.setUint16(at, toHalf(base * (1 + prng.uniform(0.25))), true);
    for (let j = 0; j < 32; j += 4) {
      const r = prng.uint32();
      // Bytes as int8, −128 read as 0: symmetric codes.
      for (let k = 0; k < 4; k++) out[at + 2 + j + k] = ((r >>> (8 * k)) & 255) === 128 ? 0 : (r >>> (8 * k)) & 255;
    }
  }
  return out;
}

/** A GGUF of the decoder: the file llama.cpp (and so wllama) loads. */
export function buildGgufDecoder(prng: Prng, shape: DecoderShape, layout: GgufDecoderLayout): Uint8Array {
  const { hiddenSize: H, heads, kvHeads, headDim: D, intermediateSize: F, layers } = shape;
  const { vocab, merges } = buildVocab(shape.vocabSize);
  const V = vocab.length;
  const arch = layout.architecture;
  const linear = (K: number, N: number): { type: GgmlType; data: Uint8Array } =>
    layout.weights === 'q4_0' ? { type: GgmlType.Q4_0, data: randomQ4_0(prng, K, N) } : { type: GgmlType.Q8_0, data: randomQ8_0(prng, K, N) };
  const ones = (n: number): Uint8Array => f32Bytes(new Float32Array(n).fill(1));
  const tensors: GgufTensor[] = [];
  // Tied: the table is lm_head too, so its rows are scaled like an output weight (logits of unit variance).
  tensors.push({ name: 'token_embd.weight', dims: [H, V], type: GgmlType.Q8_0, data: randomQ8_0(prng, H, V, 1 / H) });
  for (let l = 0; l < layers; l++) {
    const blk = (t: string) => `blk.${l}.${t}`;
    const proj = (t: string, K: number, N: number, bias: boolean) => {
      tensors.push({ name: blk(`${t}.weight`), dims: [K, N], ...linear(K, N) });
      if (bias) tensors.push({ name: blk(`${t}.bias`), dims: [N], type: GgmlType.F32, data: f32Bytes(prng.floats(N, 0.1)) });
    };
    const biases = arch === 'qwen2';
    tensors.push({ name: blk('attn_norm.weight'), dims: [H], type: GgmlType.F32, data: ones(H) });
    proj('attn_q', H, heads * D, biases);
    proj('attn_k', H, kvHeads * D, biases);
    proj('attn_v', H, kvHeads * D, biases);
    proj('attn_output', heads * D, H, false);
    tensors.push({ name: blk('ffn_norm.weight'), dims: [H], type: GgmlType.F32, data: ones(H) });
    proj('ffn_gate', H, F, false);
    proj('ffn_up', H, F, false);
    proj('ffn_down', F, H, false);
  }
  tensors.push({ name: 'output_norm.weight', dims: [H], type: GgmlType.F32, data: ones(H) });

  const metadata: [string, GgufValue][] = [
    ['general.architecture', arch],
    ['general.name', layout.name],
    ['general.file_type', u32(layout.weights === 'q4_0' ? 2 : 7)],
    [`${arch}.context_length`, u32(shape.maxPositions)],
    [`${arch}.embedding_length`, u32(H)],
    [`${arch}.block_count`, u32(layers)],
    [`${arch}.feed_forward_length`, u32(F)],
    [`${arch}.attention.head_count`, u32(heads)],
    [`${arch}.attention.head_count_kv`, u32(kvHeads)],
    [`${arch}.attention.key_length`, u32(D)],
    [`${arch}.attention.value_length`, u32(D)],
    [`${arch}.rope.freq_base`, f32(shape.ropeTheta)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(shape.rmsNormEps)],
    ['tokenizer.ggml.model', 'gpt2'],
    ['tokenizer.ggml.pre', 'qwen2'],
    ['tokenizer.ggml.tokens', vocab],
    // 3: control (the specials), 1: normal.
    ['tokenizer.ggml.token_type', { i32s: vocab.map((_, id) => (id < SPECIALS.length ? 3 : 1)) }],
    ['tokenizer.ggml.merges', merges],
    ['tokenizer.ggml.eos_token_id', u32(IM_END)],
    ['tokenizer.ggml.padding_token_id', u32(PAD)],
    ['tokenizer.ggml.bos_token_id', u32(PAD)],
    ['tokenizer.ggml.add_bos_token', false],
    ['tokenizer.chat_template', CHAT_TEMPLATE],
  ];
  return encodeGguf(metadata, tensors);
}
