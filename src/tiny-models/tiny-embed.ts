/**
 * `tiny-embed`: a BERT-like encoder (2 layers, hidden 32, 4 heads) with a WordPiece tokenizer, in the
 * layout transformers.js loads for `feature-extraction`. Random weights: the vectors mean nothing,
 * but they are deterministic, differ between texts, and do not depend on padding (masked keys get
 * exactly zero attention weight).
 *
 * The builder takes the shape and vocabulary as arguments (`buildEncoder`), so the real-shaped
 * encoder (bench/real-models/real-embed.ts) is this same graph at all-MiniLM-L6-v2's sizes.
 * @module
 */

import { json, type ModelFiles } from './model-files.ts';
import { attr, GraphBuilder } from './graph-builder.ts';
import { DataType, encodeModel } from './onnx-proto.ts';
import type { Prng } from './prng.ts';
import { PROMPT_WORDS, STORY_WORDS, SUFFIXES } from './words.ts';

/** The sizes of a BERT-like encoder. */
export interface EncoderShape {
  readonly hiddenSize: number;
  readonly layers: number;
  readonly heads: number;
  readonly intermediateSize: number;
  /** Positions the model has embeddings for: the context window. */
  readonly maxPositions: number;
}

export const TINY_EMBED = {
  hiddenSize: 32,
  layers: 2,
  heads: 4,
  intermediateSize: 64,
  /** Positions the model has embeddings for: the context window. */
  maxPositions: 128,
} as const satisfies EncoderShape;

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

/** Files of the model, by path relative to its directory. */
export function buildTinyEmbed(prng: Prng): ModelFiles {
  return buildEncoder(prng, TINY_EMBED, tinyEmbedVocab(), 'tiny-embed');
}

/**
 * An encoder of any shape over a WordPiece `vocab` (which must start with SPECIALS), in the
 * layout transformers.js loads for `feature-extraction`; `graphName` names the ONNX graph.
 */
export function buildEncoder(prng: Prng, shape: EncoderShape, vocab: readonly string[], graphName: string): ModelFiles {
  const files: ModelFiles = new Map();
  files.set('config.json', json({
    model_type: 'bert',
    architectures: ['BertModel'],
    vocab_size: vocab.length,
    hidden_size: shape.hiddenSize,
    num_hidden_layers: shape.layers,
    num_attention_heads: shape.heads,
    intermediate_size: shape.intermediateSize,
    hidden_act: 'gelu',
    max_position_embeddings: shape.maxPositions,
    type_vocab_size: 2,
    layer_norm_eps: 1e-12,
    pad_token_id: 0,
    // The browser `wasm` device would otherwise look for model_quantized.onnx.
    'transformers.js_config': { dtype: 'fp32' },
  }));
  files.set('tokenizer.json', json(tokenizerJson(vocab)));
  files.set('tokenizer_config.json', json({
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: shape.maxPositions,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
  }));
  files.set('onnx/model.onnx', buildGraph(prng, shape, vocab.length, graphName));
  return files;
}

/** The tiny model's WordPiece vocabulary: specials, characters, a few suffixes, the word lists. */
export function tinyEmbedVocab(): string[] {
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  const pieces = [
    ...SPECIALS,
    ...'0123456789.,!?;:\'"()-'.split(''),
    ...letters,
    ...letters.map((l) => `##${l}`),
    ...SUFFIXES.map((s) => `##${s}`),
    ...STORY_WORDS,
    ...PROMPT_WORDS,
  ];
  return [...new Set(pieces)];
}

function tokenizerJson(vocab: readonly string[]): object {
  const ids = new Map(vocab.map((token, i) => [token, i]));
  const id = (token: string): number => ids.get(token) ?? -1;
  const special = (token: string) => ({ id: token, type_id: 0 });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content) => ({
      id: id(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: special('[CLS]') }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: special('[SEP]') }],
      pair: [
        { SpecialToken: special('[CLS]') }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: special('[SEP]') },
        { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, i) => [token, i])),
    },
  };
}

function buildGraph(prng: Prng, shape: EncoderShape, vocabSize: number, graphName: string): Uint8Array {
  const { hiddenSize: H, heads, intermediateSize: F, layers, maxPositions } = shape;
  const headDim = H / heads;
  const g = new GraphBuilder();
  const xavier = (fanIn: number) => Math.sqrt(3 / fanIn);
  const dense = (x: string, name: string, fanIn: number, fanOut: number): string => {
    const w = g.weight(`${name}.weight`, [fanIn, fanOut], prng.floats(fanIn * fanOut, xavier(fanIn)));
    const b = g.weight(`${name}.bias`, [fanOut], prng.floats(fanOut, 0.1));
    return g.op('Add', [g.op('MatMul', [x, w]), b]);
  };
  const ones = g.floats(new Array<number>(H).fill(1));
  const zeros = g.floats(new Array<number>(H).fill(0));
  const layerNorm = (x: string): string => g.op('LayerNormalization', [x, ones, zeros], [attr.i('axis', -1), attr.f('epsilon', 1e-12)]);
  const splitHeads = (x: string, perm: number[]): string =>
    g.op('Transpose', [g.op('Reshape', [x, g.int64s([0, 0, heads, headDim])])], [attr.ints('perm', perm)]);

  // Embeddings: word + position + token type, then LayerNorm.
  const words = g.op('Gather', [g.weight('embeddings.word', [vocabSize, H], prng.floats(vocabSize * H, 1)), 'input_ids']);
  const seqLen = g.op('Gather', [g.op('Shape', ['input_ids']), g.int64s([1], [])]);
  const positions = g.op('Range', [g.int64s([0], []), seqLen, g.int64s([1], [])]);
  const posTable = g.weight('embeddings.position', [maxPositions, H], prng.floats(maxPositions * H, 0.5));
  const typeTable = g.weight('embeddings.token_type', [2, H], prng.floats(2 * H, 0.2));
  let x = g.op('Add', [g.op('Add', [words, g.op('Gather', [posTable, positions])]), g.op('Gather', [typeTable, 'token_type_ids'])]);
  x = layerNorm(x);

  // Additive key mask [B,1,1,S]: 0 for tokens, -1e4 for padding (exp underflows to exactly 0).
  const maskF = g.op('Cast', ['attention_mask'], [attr.i('to', DataType.FLOAT)]);
  const keyBias = g.op('Unsqueeze', [g.op('Mul', [g.op('Sub', [g.floats([1], []), maskF]), g.floats([-1e4], [])]), g.int64s([1, 2])]);
  const scale = g.floats([1 / Math.sqrt(headDim)], []);

  for (let l = 0; l < layers; l++) {
    const p = `layer.${l}`;
    const q = splitHeads(dense(x, `${p}.query`, H, H), [0, 2, 1, 3]);
    const k = splitHeads(dense(x, `${p}.key`, H, H), [0, 2, 3, 1]);
    const v = splitHeads(dense(x, `${p}.value`, H, H), [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, k]), scale]), keyBias]);
    const context = g.op('MatMul', [g.op('Softmax', [scores], [attr.i('axis', -1)]), v]);
    const merged = g.op('Reshape', [g.op('Transpose', [context], [attr.ints('perm', [0, 2, 1, 3])]), g.int64s([0, 0, H])]);
    x = layerNorm(g.op('Add', [x, dense(merged, `${p}.output`, H, H)]));
    // GELU (erf form): opset 17 has no Gelu op.
    const h = dense(x, `${p}.intermediate`, H, F);
    const erf = g.op('Erf', [g.op('Mul', [h, g.floats([Math.SQRT1_2], [])])]);
    const gelu = g.op('Mul', [g.op('Mul', [h, g.floats([0.5], [])]), g.op('Add', [erf, g.floats([1], [])])]);
    x = layerNorm(g.op('Add', [x, dense(gelu, `${p}.ffn_output`, F, H)]));
  }
  g.op('Identity', [x], [], 'last_hidden_state');

  const tokens = ['batch_size', 'sequence_length'];
  return encodeModel(g.build(graphName, [
    { name: 'input_ids', elemType: DataType.INT64, shape: tokens },
    { name: 'attention_mask', elemType: DataType.INT64, shape: tokens },
    { name: 'token_type_ids', elemType: DataType.INT64, shape: tokens },
  ], [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: [...tokens, H] }]));
}
