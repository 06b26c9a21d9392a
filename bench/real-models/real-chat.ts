/**
 * A real-shaped decoder: the tiny-chat graph (tiny-chat.ts) at the sizes and in the layout of the
 * catalog's transformers.js chat model, onnx-community/Qwen2.5-0.5B-Instruct in dtype q4
 * (`onnx/model_q4.onnx`): 24 layers, hidden 896, 14 query heads and 2 key/value heads of 64,
 * SwiGLU 4864, q/k/v biases, a 151936-token vocabulary whose float32 embedding table is also the
 * (tied) lm_head, RoPE tables for 32768 positions, and every projection a 4-bit MatMulNBits (block
 * 32, symmetric). That is the real file's make-up: its 786,156,820 bytes are the float32 embedding
 * (545 MB) + 4-bit projections with float32 scales (224 MB) + float32 RoPE tables (17 MB).
 * Seeded random weights cost exactly what trained ones do. Never committed: `npm run models:real`
 * writes it (see real-models.ts).
 *
 * As in tiny-chat, only the word tokens can win, so any output is printable words; unlike it, the
 * end token never does (`stopAfter` is the whole window), so a generation always runs to its
 * `max_new_tokens`: decode-rate benchmarks ask for N tokens and get N.
 * @module
 */

import type { ModelFiles } from '../../src/tiny-models/model-files.ts';
import type { Prng } from '../../src/tiny-models/prng.ts';
import { buildDecoder, type DecoderLayout, type DecoderShape } from '../../src/tiny-models/tiny-chat.ts';
import { STORY_WORDS } from '../../src/tiny-models/words.ts';

export interface RealChatShape extends DecoderShape {
  readonly vocabSize: number;
}

/** Qwen2.5-0.5B-Instruct's sizes (its config.json); the end token is never chosen (see the module comment). */
export const QWEN2_5_0_5B: RealChatShape = {
  hiddenSize: 896,
  layers: 24,
  heads: 14,
  kvHeads: 2,
  headDim: 64,
  intermediateSize: 4864,
  maxPositions: 32768,
  stopAfter: 32768,
  ropeTheta: 1000000,
  rmsNormEps: 1e-6,
  vocabSize: 151936,
};

/** onnx-community's q4 export of a Qwen2 model, as far as cost goes. */
export const QWEN2_Q4_LAYOUT: DecoderLayout = {
  weights: 'q4',
  tiedEmbeddings: true,
  qkvBias: true,
  ropeCache: true,
  positionDrift: 'hidden',
  modelType: 'qwen2',
  architecture: 'Qwen2ForCausalLM',
  graphName: 'real-chat',
};

/** The same with 8-bit weights: transformers.js's `q8` file (dynamic quantization, q8.ts). */
export const QWEN2_Q8_LAYOUT: DecoderLayout = { ...QWEN2_Q4_LAYOUT, weights: 'q8' };

/**
 * The same code and layout (4-bit weights, grouped-query attention, tied embeddings, biases, RoPE
 * tables, synthetic vocabulary) at a size the default test run can afford: about 1.4 MB.
 */
export const SMALL_CHAT: RealChatShape = {
  hiddenSize: 64,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  headDim: 16,
  intermediateSize: 128,
  maxPositions: 2048,
  stopAfter: 2048,
  ropeTheta: 1000000,
  rmsNormEps: 1e-6,
  vocabSize: 4096,
};

/** The model's files; a smaller `shape` runs the same code (the fast tests use one). */
export function buildRealChat(prng: Prng, shape: RealChatShape = QWEN2_5_0_5B): ModelFiles {
  return buildDecoder(prng, shape, QWEN2_Q4_LAYOUT);
}

/**
 * A message text that is exactly `tokens` tokens in the real-shaped vocabulary: "the" (one
 * token there: every string of up to three letters is one) then ` word` tokens. The chat template
 * adds its own around it: 5 for a user turn (`<|im_start|>user\n` … `<|im_end|>\n`), 3 for the
 * assistant header, so a 20-token message makes a 28-token prompt.
 */
export function chatTextOfTokens(tokens: number, variant = 0): string {
  if (!Number.isInteger(tokens) || tokens < 1) throw new RangeError(`asked for ${tokens} tokens`);
  const words = Array.from({ length: tokens - 1 }, (_, i) => STORY_WORDS[(variant + i * 7) % STORY_WORDS.length]!);
  return ['the', ...words].join(' ');
}
