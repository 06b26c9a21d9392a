/**
 * stories260K as a llama.cpp model (GGUF, src/tiny-models/gguf.ts): the llama2.c checkpoint's
 * float32 weights as they are (llama2.c's [out, in] rows are ggml's [in, out] tensors; its
 * adjacent-pair rotary is llama.cpp's `llama` rope, so q and k need no permutation), its
 * SentencePiece-style vocabulary with scores and byte-fallback pieces, and the test chat template
 * of stories260k.ts (BOS, then the messages' text).
 * @module
 */
import { readFile } from 'node:fs/promises';
import { encodeGguf, f32, f32Bytes, GgmlType, u32, type GgufTensor } from '../../../src/tiny-models/gguf.ts';
import { readLlama2cCheckpoint } from './llama2c-checkpoint.ts';
import { BOS_ID, EOS_ID, hfPieces, readLlama2cVocab, UNK_ID } from './llama2c-tokenizer.ts';
import { RMS_NORM_EPS, ROPE_THETA } from './llama-graph.ts';
import { sharedModelFile } from './shared-models.ts';
import { STORY_CHAT_TEMPLATE } from './stories260k.ts';

/** The file's name in its folder. */
export const STORIES_GGUF = 'stories260K.gguf';

/** llama.cpp's token types (llama-vocab.h): normal, unknown, control, byte. */
const [NORMAL, UNKNOWN, CONTROL, BYTE] = [1, 2, 3, 6];

export async function buildStories260kGguf(): Promise<Uint8Array> {
  const w = readLlama2cCheckpoint(await readFile(sharedModelFile('stories260K', 'stories260K.bin')));
  const { dim, hiddenDim, layers, heads, kvHeads, vocabSize, seqLen } = w.config;
  const vocab = readLlama2cVocab(await readFile(sharedModelFile('stories260K', 'tok512.bin')), vocabSize);
  const kvDim = (kvHeads * dim) / heads;
  const tensors: GgufTensor[] = [];
  const t = (name: string, dims: number[], data: Float32Array) => tensors.push({ name, dims, type: GgmlType.F32, data: f32Bytes(data) });
  /** Layer l's slice of a stacked per-layer tensor. */
  const at = (stack: Float32Array, l: number, size: number) => stack.subarray(l * size, (l + 1) * size);
  t('token_embd.weight', [dim, vocabSize], w.tokenEmbedding);
  for (let l = 0; l < layers; l++) {
    t(`blk.${l}.attn_norm.weight`, [dim], at(w.rmsAtt, l, dim));
    t(`blk.${l}.attn_q.weight`, [dim, dim], at(w.wq, l, dim * dim));
    t(`blk.${l}.attn_k.weight`, [dim, kvDim], at(w.wk, l, kvDim * dim));
    t(`blk.${l}.attn_v.weight`, [dim, kvDim], at(w.wv, l, kvDim * dim));
    t(`blk.${l}.attn_output.weight`, [dim, dim], at(w.wo, l, dim * dim));
    t(`blk.${l}.ffn_norm.weight`, [dim], at(w.rmsFfn, l, dim));
    t(`blk.${l}.ffn_gate.weight`, [dim, hiddenDim], at(w.w1, l, hiddenDim * dim));
    t(`blk.${l}.ffn_down.weight`, [hiddenDim, dim], at(w.w2, l, dim * hiddenDim));
    t(`blk.${l}.ffn_up.weight`, [dim, hiddenDim], at(w.w3, l, hiddenDim * dim));
  }
  t('output_norm.weight', [dim], w.rmsFinal);
  const type = (id: number) => (id === UNK_ID ? UNKNOWN : id === BOS_ID || id === EOS_ID ? CONTROL : id < 3 + 256 ? BYTE : NORMAL);
  return encodeGguf([
    ['general.architecture', 'llama'],
    ['general.name', 'stories260K'],
    ['llama.context_length', u32(seqLen)],
    ['llama.embedding_length', u32(dim)],
    ['llama.block_count', u32(layers)],
    ['llama.feed_forward_length', u32(hiddenDim)],
    ['llama.attention.head_count', u32(heads)],
    ['llama.attention.head_count_kv', u32(kvHeads)],
    ['llama.rope.dimension_count', u32(dim / heads)],
    ['llama.rope.freq_base', f32(ROPE_THETA)],
    ['llama.attention.layer_norm_rms_epsilon', f32(RMS_NORM_EPS)],
    ['tokenizer.ggml.model', 'llama'],
    ['tokenizer.ggml.tokens', hfPieces(vocab)],
    ['tokenizer.ggml.scores', { f32s: vocab.scores }],
    ['tokenizer.ggml.token_type', { i32s: vocab.pieces.map((_, id) => type(id)) }],
    ['tokenizer.ggml.unknown_token_id', u32(UNK_ID)],
    ['tokenizer.ggml.bos_token_id', u32(BOS_ID)],
    ['tokenizer.ggml.eos_token_id', u32(EOS_ID)],
    ['tokenizer.ggml.add_bos_token', true],
    ['tokenizer.ggml.add_eos_token', false],
    ['tokenizer.chat_template', STORY_CHAT_TEMPLATE],
  ], tensors);
}
