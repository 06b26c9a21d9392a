/**
 * `tiny-chat`: a llama-style decoder (2 layers, hidden 64, 4 heads of 16, RMSNorm, RoPE, SwiGLU,
 * KV cache) with a byte-level BPE tokenizer and a ChatML template, in the layout transformers.js
 * loads for `text-generation`.
 *
 * Random weights would emit the end token at once or bytes that are not UTF-8, so two fixed rules
 * sit on top of the random logits:
 * - a vocabulary bias: only whole-word tokens (" the", " cat", ...) can win, so any output, greedy
 *   or sampled, is printable words with spaces; the random part decides which word, so the text
 *   depends on the prompt;
 * - a stop rule: the end token (`<|im_end|>`) wins exactly when the assistant turn already holds
 *   `TINY_CHAT.stopAfter` (40) tokens after `<|im_start|>assistant\n` (a prefill counts). So
 *   `max_new_tokens` ≤ 40 always ends by length, and a larger budget ends naturally after 40. The rule
 *   counts from the last `<|im_start|>`, whose presence the graph keeps in a value slot of the
 *   layer-0 KV cache (the only state carried between steps).
 *
 * The builder takes the sizes (`DecoderShape`) and the export's layout (`DecoderLayout`: 4-bit
 * weights, grouped-query attention, tied embeddings, q/k/v biases, RoPE tables) as arguments, so
 * the real-shaped decoder (bench/real-models/real-chat.ts) is this same graph at Qwen2.5-0.5B's
 * sizes. The tiny model's arguments reproduce its bytes exactly.
 * @module
 */

import { attr, GraphBuilder } from './graph-builder.ts';
import { json, type ModelFiles } from './model-files.ts';
import { CONTRIB_OPSET, DataType, encodeModel } from './onnx-proto.ts';
import type { Prng } from './prng.ts';
import { q4Linear } from './q4.ts';
import { q8Linear, q8Product, randomQ8Weight } from './q8.ts';
import { STORY_WORDS } from './words.ts';

/** The sizes of a llama-style decoder. */
export interface DecoderShape {
  readonly hiddenSize: number;
  readonly layers: number;
  /** Query heads. */
  readonly heads: number;
  /** Key/value heads: fewer than `heads` is grouped-query attention (each shared by heads / kvHeads). */
  readonly kvHeads: number;
  readonly headDim: number;
  readonly intermediateSize: number;
  /** The context window; RoPE has no hard limit, this is what config and tokenizer declare. */
  readonly maxPositions: number;
  /** Tokens of assistant text after which the model emits the end token. */
  readonly stopAfter: number;
  readonly ropeTheta: number;
  readonly rmsNormEps: number;
  /** Tokenizer entries (= embedding and lm_head rows); absent: just the words the model needs. */
  readonly vocabSize?: number;
}

/** How the graph is laid out beyond its sizes: the choices that make it cost what an export costs. */
export interface DecoderLayout {
  /** The seven projections of each layer as float32 MatMul, 4-bit MatMulNBits (q4.ts) or 8-bit dynamic quantization (q8.ts). */
  readonly weights: 'fp32' | 'q4' | 'q8';
  /** lm_head is the token embedding table, transposed (no weight of its own). */
  readonly tiedEmbeddings: boolean;
  /** q/k/v projections add a bias (Qwen2 does). */
  readonly qkvBias: boolean;
  /** RoPE cos/sin gathered from [maxPositions, headDim] tables stored in the file, not computed. */
  readonly ropeCache: boolean;
  /**
   * Where the position-dependent term that keeps greedy text from looping enters: a
   * [headDim, vocab] head added to the logits, or a [headDim, hidden] term added before lm_head
   * (negligible cost at a real vocabulary size).
   */
  readonly positionDrift: 'logits' | 'hidden';
  readonly modelType: string;
  readonly architecture: string;
  readonly graphName: string;
}

export const TINY_CHAT = {
  hiddenSize: 64,
  layers: 2,
  heads: 4,
  kvHeads: 4,
  headDim: 16,
  intermediateSize: 128,
  /** The context window; RoPE has no hard limit, this is what config and tokenizer declare. */
  maxPositions: 2048,
  /** Tokens of assistant text after which the model emits the end token. */
  stopAfter: 40,
  ropeTheta: 10000,
  rmsNormEps: 1e-5,
} as const satisfies DecoderShape;

export const TINY_CHAT_LAYOUT: DecoderLayout = {
  weights: 'fp32',
  tiedEmbeddings: false,
  qkvBias: false,
  ropeCache: false,
  positionDrift: 'logits',
  modelType: 'llama',
  architecture: 'LlamaForCausalLM',
  graphName: 'tiny-chat',
};

export const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
export const [PAD, IM_START, IM_END] = [0, 1, 2];
/** Role names become single tokens so the header is exactly `<|im_start|>`, role, `\n`. */
const ROLES = ['system', 'user', 'assistant'];

/**
 * ChatML, with tools written as Qwen 2.5's template writes them (a `# Tools` system block,
 * `<tool_call>` blocks in assistant turns, `<tool_response>` blocks in a user turn), so tests run
 * the path real Qwen-family models take. Without tools it renders exactly as plain ChatML.
 */
export const CHAT_TEMPLATE = [
  String.raw`{%- if tools %}{{- '<|im_start|>system\n' }}{%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] + '\n\n' }}{%- endif %}`,
  String.raw`{{- '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>' }}`,
  String.raw`{%- for tool in tools %}{{- '\n' }}{{- tool | tojson }}{%- endfor %}`,
  String.raw`{{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' }}{%- endif %}`,
  String.raw`{%- for message in messages %}`,
  String.raw`{%- if message['role'] == 'system' and loop.first and tools %}`,
  String.raw`{%- elif message['role'] == 'assistant' and message['tool_calls'] %}{{- '<|im_start|>assistant' }}{%- if message['content'] %}{{- '\n' + message['content'] }}{%- endif %}`,
  String.raw`{%- for tool_call in message['tool_calls'] %}{%- if tool_call['function'] is defined %}{%- set tool_call = tool_call['function'] %}{%- endif %}`,
  String.raw`{{- '\n<tool_call>\n{"name": "' + tool_call['name'] + '", "arguments": ' + (tool_call['arguments'] | tojson) + '}\n</tool_call>' }}{%- endfor %}{{- '<|im_end|>\n' }}`,
  String.raw`{%- elif message['role'] == 'tool' %}{%- if loop.first or messages[loop.index0 - 1]['role'] != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}`,
  String.raw`{{- '\n<tool_response>\n' + message['content'] + '\n</tool_response>' }}{%- if loop.last or messages[loop.index0 + 1]['role'] != 'tool' %}{{- '<|im_end|>\n' }}{%- endif %}`,
  String.raw`{%- else %}{{- '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{%- endif %}{%- endfor %}`,
  String.raw`{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- endif %}`,
].join('');

export function buildTinyChat(prng: Prng): ModelFiles {
  return buildDecoder(prng, TINY_CHAT, TINY_CHAT_LAYOUT);
}

/** A decoder of any shape and layout, in the layout transformers.js loads for `text-generation`. */
export function buildDecoder(prng: Prng, shape: DecoderShape, layout: DecoderLayout): ModelFiles {
  const { files, vocabSize, wordIds } = decoderTextFiles(shape, layout);
  files.set(decoderModelFile(layout), buildGraph(prng, shape, layout, vocabSize, wordIds));
  return files;
}

/**
 * Every file but the ONNX graph (config, generation config, tokenizer), which need no weights;
 * `wordIds` are the tokens the vocabulary bias lets win.
 */
export function decoderTextFiles(shape: DecoderShape, layout: DecoderLayout): { files: ModelFiles; vocabSize: number; wordIds: readonly number[] } {
  const { vocab, merges, wordIds } = buildVocab(shape.vocabSize);
  const files: ModelFiles = new Map();
  files.set('config.json', json({
    model_type: layout.modelType,
    architectures: [layout.architecture],
    vocab_size: vocab.length,
    hidden_size: shape.hiddenSize,
    intermediate_size: shape.intermediateSize,
    num_hidden_layers: shape.layers,
    num_attention_heads: shape.heads,
    num_key_value_heads: shape.kvHeads,
    head_dim: shape.headDim,
    max_position_embeddings: shape.maxPositions,
    rms_norm_eps: shape.rmsNormEps,
    rope_theta: shape.ropeTheta,
    hidden_act: 'silu',
    tie_word_embeddings: layout.tiedEmbeddings,
    eos_token_id: IM_END,
    pad_token_id: PAD,
    // Which file transformers.js picks when no dtype is asked for (the browser's `wasm` device would otherwise look for model_quantized.onnx).
    'transformers.js_config': { dtype: layout.weights },
  }));
  files.set('generation_config.json', json({ eos_token_id: IM_END, pad_token_id: PAD }));
  files.set('tokenizer.json', json(tokenizerJson(vocab, merges)));
  files.set('tokenizer_config.json', json({
    tokenizer_class: 'Qwen2Tokenizer',
    add_bos_token: false,
    add_eos_token: false,
    bos_token: null,
    eos_token: SPECIALS[IM_END],
    pad_token: SPECIALS[PAD],
    unk_token: null,
    model_max_length: shape.maxPositions,
    chat_template: CHAT_TEMPLATE,
  }));
  return { files, vocabSize: vocab.length, wordIds };
}

/** The ONNX file's path in the model folder, named as transformers.js looks for its dtype. */
export function decoderModelFile(layout: Pick<DecoderLayout, 'weights'>): string {
  return layout.weights === 'q4' ? 'onnx/model_q4.onnx' : layout.weights === 'q8' ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
}

/** GPT-2's byte-to-printable-character map used by byte-level BPE. */
function byteChars(): string[] {
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    chars.push(String.fromCodePoint(printable ? b : 256 + extra++));
  }
  return chars;
}

/**
 * Specials, the 256 bytes, then one merge chain per word (" cat": Ġ+c, Ġc+a, Ġca+t). Space-prefixed
 * words rank first so that, e.g., the role merge a+s never splits " has" before Ġh+a applies.
 * With a `size`, synthetic tokens fill the vocabulary up to it, ranked after all of those (see
 * `fillerWords`).
 */
export function buildVocab(size?: number): { vocab: string[]; merges: string[]; wordIds: number[] } {
  const bytes = byteChars();
  const vocab = [...SPECIALS, ...bytes];
  const merges: string[] = [];
  const ids = new Map(vocab.map((token, id) => [token, id]));
  const addWord = (text: string): number => {
    const chars = [...new TextEncoder().encode(text)].map((b) => bytes[b]!);
    let token = chars[0]!;
    for (const char of chars.slice(1)) {
      const next = token + char;
      if (!ids.has(next)) {
        ids.set(next, vocab.length);
        vocab.push(next);
        merges.push(`${token} ${char}`);
      }
      token = next;
    }
    return ids.get(token)!;
  };
  const wordIds = STORY_WORDS.map((w) => addWord(` ${w}`));
  ROLES.forEach(addWord);
  if (size !== undefined) {
    for (const word of fillerWords()) {
      if (vocab.length >= size) break;
      addWord(word);
    }
    if (vocab.length !== size) throw new Error(`vocabulary of ${vocab.length} tokens, asked for ${size}`);
  }
  return { vocab, merges, wordIds };
}

/**
 * Lower-case letter strings by length (1, 2, 3, ...), each as ` word` then `word`, in a scattered
 * but fixed order within a length. Every shorter string comes before a longer one, so each adds
 * exactly one token and one merge (its prefix + its last letter).
 */
function* fillerWords(): Generator<string> {
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let length = 1; ; length++) {
    const count = letters.length ** length;
    for (let i = 0; i < count; i++) {
      // 7919 is prime and coprime with 26^length: i -> i * 7919 mod count visits every string once.
      let n = (i * 7919) % count;
      let word = '';
      for (let c = 0; c < length; c++) {
        word = letters[n % 26]! + word;
        n = Math.floor(n / 26);
      }
      yield ` ${word}`;
      yield word;
    }
  }
}

function tokenizerJson(vocab: readonly string[], merges: readonly string[]): object {
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, id) => ({
      id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
    })),
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab.map((token, i) => [token, i])),
      merges,
    },
  };
}

function buildGraph(prng: Prng, shape: DecoderShape, layout: DecoderLayout, V: number, wordIds: readonly number[]): Uint8Array {
  const { hiddenSize: H, heads, kvHeads, headDim: D, intermediateSize: F, layers, stopAfter, ropeTheta, rmsNormEps, maxPositions } = shape;
  /** Widths of the query and of the key/value projections. */
  const [Q, KV] = [heads * D, kvHeads * D];
  const g = new GraphBuilder();
  const i64 = (v: number) => g.int64s([v], []);
  const f32 = (v: number) => g.floats([v], []);
  /** A float32 MatMul whatever the layout (lm_head, the position head). */
  const dense = (x: string, name: string, fanIn: number, fanOut: number): string =>
    g.op('MatMul', [x, g.weight(name, [fanIn, fanOut], prng.floats(fanIn * fanOut, Math.sqrt(3 / fanIn)))]);
  /** A layer projection in the layout's weights; `zeroColumn0` makes output 0 exactly zero. */
  const linear = (x: string, name: string, fanIn: number, fanOut: number, zeroColumn0 = false): string => {
    if (layout.weights === 'q4') return q4Linear(g, prng, x, name, fanIn, fanOut, zeroColumn0);
    if (layout.weights === 'q8') return q8Linear(g, prng, x, name, fanIn, fanOut, zeroColumn0);
    const w = prng.floats(fanIn * fanOut, Math.sqrt(3 / fanIn));
    if (zeroColumn0) for (let r = 0; r < fanIn; r++) w[r * fanOut] = 0;
    return g.op('MatMul', [x, g.weight(name, [fanIn, fanOut], w)]);
  };
  const project = (x: string, name: string, fanOut: number, zeroColumn0 = false): string => {
    const y = linear(x, name, H, fanOut, zeroColumn0);
    if (!layout.qkvBias) return y;
    const bias = prng.floats(fanOut, 0.1);
    if (zeroColumn0) bias[0] = 0;
    return g.op('Add', [y, g.weight(`${name}.bias`, [fanOut], bias)]);
  };
  const ones = g.floats(new Array<number>(H).fill(1));
  const rmsNorm = (x: string): string => {
    const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], [attr.ints('axes', [-1]), attr.i('keepdims', 1)]);
    return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [meanSquare, f32(rmsNormEps)])])]), ones]);
  };
  const splitHeads = (x: string, count: number): string =>
    g.op('Transpose', [g.op('Reshape', [x, g.int64s([0, 0, count, D])])], [attr.ints('perm', [0, 2, 1, 3])]);
  const unsqueeze = (x: string, axes: number[]): string => g.op('Unsqueeze', [x, g.int64s(axes)]);
  /** [B,kvHeads,T,D] → [B,heads,T,D], each key/value head repeated for its group of query heads. */
  const repeatKv = (t: string): string => {
    if (kvHeads === heads) return t;
    const expanded = g.op('Expand', [unsqueeze(t, [2]), g.int64s([1, 1, heads / kvHeads, 1, 1])]);
    return g.op('Reshape', [expanded, g.int64s([0, heads, -1, D])]);
  };

  // Tied: the table lm_head reads too, so its rows are scaled like an output weight (logits of unit variance).
  const embedScale = layout.tiedEmbeddings ? Math.sqrt(3 / H) : 1;
  // 8-bit and tied, as dynamic quantization leaves a tied table: one int8 [H, V] table (variance
  // 1/H), read by lm_head as a quantized MatMul and, column by column, by the embedding.
  const q8Table = layout.weights === 'q8' && layout.tiedEmbeddings ? randomQ8Weight(prng, H, V) : undefined;
  const embed = q8Table ? g.int8s('embed_tokens.weight_quantized', [H, V], q8Table.codes) : g.weight('embed_tokens', [V, H], prng.floats(V * H, embedScale));
  let x = q8Table
    ? g.op('Mul', [g.op('Cast', [g.op('Transpose', [g.op('Gather', [embed, 'input_ids'], [attr.i('axis', 1)])], [attr.ints('perm', [1, 2, 0])])], [attr.i('to', DataType.FLOAT)]), g.floats([q8Table.scale], [])])
    : g.op('Gather', [embed, 'input_ids']);

  // RoPE (rotate-half form): cos/sin of position × inv_freq, each [B,1,S,D].
  const invFreq = Array.from({ length: D / 2 }, (_, i) => ropeTheta ** (-(2 * i) / D));
  const freqs = g.op('Mul', [unsqueeze(g.op('Cast', ['position_ids'], [attr.i('to', DataType.FLOAT)]), [-1]), g.floats(invFreq)]);
  let cos: string;
  let sin: string;
  if (layout.ropeCache) {
    const tables = ropeTables(maxPositions, invFreq);
    cos = unsqueeze(g.op('Gather', [g.weight('rope.cos', [maxPositions, D], tables.cos), 'position_ids']), [1]);
    sin = unsqueeze(g.op('Gather', [g.weight('rope.sin', [maxPositions, D], tables.sin), 'position_ids']), [1]);
  } else {
    const angles = g.op('Concat', [freqs, freqs], [attr.i('axis', -1)]);
    cos = unsqueeze(g.op('Cos', [angles]), [1]);
    sin = unsqueeze(g.op('Sin', [angles]), [1]);
  }
  // rotate_half(x) = [-x2, x1] as one MatMul with a signed permutation (exact in float).
  const rotation = new Array<number>(D * D).fill(0);
  for (let j = 0; j < D / 2; j++) {
    rotation[(j + D / 2) * D + j] = -1;
    rotation[j * D + j + D / 2] = 1;
  }
  const rotate = g.floats(rotation, [D, D]);
  const rope = (t: string): string => g.op('Add', [g.op('Mul', [t, cos]), g.op('Mul', [g.op('MatMul', [t, rotate]), sin])]);

  // Key positions t in [0,T), query positions q in [T-S, T); allowed when t ≤ q and not padding.
  const total = g.op('Gather', [g.op('Shape', ['attention_mask']), i64(1)]);
  const seqLen = g.op('Gather', [g.op('Shape', ['input_ids']), i64(1)]);
  const keyPos = g.op('Range', [i64(0), total, i64(1)]);
  const queryPos = g.op('Add', [g.op('Range', [i64(0), seqLen, i64(1)]), g.op('Sub', [total, seqLen])]);
  const causal = g.op('LessOrEqual', [unsqueeze(keyPos, [0]), unsqueeze(queryPos, [1])]);
  const notPad = unsqueeze(g.op('Cast', ['attention_mask'], [attr.i('to', DataType.BOOL)]), [1, 2]);
  const maskBias = g.op('Where', [g.op('And', [causal, notPad]), f32(0), f32(-1e9)]);
  const scale = f32(1 / Math.sqrt(D));

  // 1.0 at each <|im_start|>, stored in value slot (kv head 0, dim 0) of layer 0; see the stop rule.
  const isStart = g.op('Cast', [g.op('Equal', ['input_ids', i64(IM_START)])], [attr.i('to', DataType.FLOAT)]);
  const startSlot = g.op('Mul', [unsqueeze(isStart, [1, 3]), g.floats(oneHot(kvHeads * D, 0), [kvHeads, 1, D])]);
  let layer0Values = '';

  for (let l = 0; l < layers; l++) {
    const p = `layers.${l}`;
    const h = rmsNorm(x);
    const q = rope(splitHeads(project(h, `${p}.q_proj`, Q), heads));
    const k = rope(splitHeads(project(h, `${p}.k_proj`, KV), kvHeads));
    // Layer 0's value column 0 is zeroed so that slot holds exactly the start flag.
    let v = splitHeads(project(h, `${p}.v_proj`, KV, l === 0), kvHeads);
    if (l === 0) v = g.op('Add', [v, startSlot]);
    const keys = g.op('Concat', [`past_key_values.${l}.key`, k], [attr.i('axis', 2)], `present.${l}.key`);
    const values = g.op('Concat', [`past_key_values.${l}.value`, v], [attr.i('axis', 2)], `present.${l}.value`);
    if (l === 0) layer0Values = values;
    const [groupKeys, groupValues] = [repeatKv(keys), repeatKv(values)];
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [groupKeys], [attr.ints('perm', [0, 1, 3, 2])])]), scale]), maskBias]);
    const context = g.op('MatMul', [g.op('Softmax', [scores], [attr.i('axis', -1)]), groupValues]);
    const merged = g.op('Reshape', [g.op('Transpose', [context], [attr.ints('perm', [0, 2, 1, 3])]), g.int64s([0, 0, Q])]);
    x = g.op('Add', [x, linear(merged, `${p}.o_proj`, Q, H)]);
    const m = rmsNorm(x);
    const gate = linear(m, `${p}.gate_proj`, H, F);
    const swish = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(m, `${p}.up_proj`, H, F)]);
    x = g.op('Add', [x, linear(swish, `${p}.down_proj`, F, H)]);
  }

  // Vocabulary bias: words 0, end token -50, everything else -30 (see the module comment).
  const bias = new Array<number>(V).fill(-30);
  for (const id of wordIds) bias[id] = 0;
  bias[IM_END] = -50;
  const lmHead = (h: string): string =>
    q8Table ? q8Product(g, h, embed, q8Table.scale) : layout.tiedEmbeddings ? g.op('MatMul', [h, g.op('Transpose', [embed], [attr.ints('perm', [1, 0])])]) : dense(h, 'lm_head', H, V);
  // A term that varies with the absolute position keeps greedy text from settling into a two-word loop.
  let biased: string;
  if (layout.positionDrift === 'logits') {
    const raw = lmHead(rmsNorm(x));
    const positionFeatures = g.op('Concat', [g.op('Cos', [freqs]), g.op('Sin', [freqs])], [attr.i('axis', -1)]);
    const drift = dense(positionFeatures, 'position_head', D, V);
    biased = g.op('Add', [g.op('Add', [raw, drift]), g.floats(bias)]);
  } else {
    const normed = rmsNorm(x);
    const positionFeatures = g.op('Concat', [g.op('Cos', [freqs]), g.op('Sin', [freqs])], [attr.i('axis', -1)]);
    const drift = dense(positionFeatures, 'position_head', D, H);
    biased = g.op('Add', [lmHead(g.op('Add', [normed, drift])), g.floats(bias)]);
  }

  // Stop rule: s = last <|im_start|> position (from the KV slot); the turn holds q - s - 2 tokens.
  const flags = g.op('Reshape', [g.op('Slice', [layer0Values, g.int64s([0, 0]), g.int64s([1, 1]), g.int64s([1, 3])]), g.int64s([0, -1])]);
  const keyPosPlus1 = g.op('Add', [g.op('Cast', [keyPos], [attr.i('to', DataType.FLOAT)]), f32(1)]);
  const lastStartPlus1 = g.op('ReduceMax', [g.op('Mul', [flags, keyPosPlus1])], [attr.ints('axes', [1]), attr.i('keepdims', 1)]);
  const turnTokens = g.op('Sub', [g.op('Sub', [g.op('Cast', [queryPos], [attr.i('to', DataType.FLOAT)]), lastStartPlus1]), f32(1)]);
  const stop = g.op('Cast', [g.op('GreaterOrEqual', [turnTokens, f32(stopAfter)])], [attr.i('to', DataType.FLOAT)]);
  const endBoost = g.floats(oneHot(V, IM_END).map((v) => v * 100));
  g.op('Add', [biased, g.op('Mul', [unsqueeze(stop, [-1]), endBoost])], [], 'logits');

  const cacheIn = ['batch_size', kvHeads, 'past_sequence_length', D];
  const cacheOut = ['batch_size', kvHeads, 'total_sequence_length', D];
  const cache = (prefix: string, shape: (string | number)[]) =>
    Array.from({ length: layers }, (_, l) => ['key', 'value'].map((kind) => ({ name: `${prefix}.${l}.${kind}`, elemType: DataType.FLOAT, shape }))).flat();
  return encodeModel(g.build(layout.graphName, [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'total_sequence_length'] },
    { name: 'position_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ...cache('past_key_values', cacheIn),
  ], [
    { name: 'logits', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', V] },
    ...cache('present', cacheOut),
  ]), { extraOpsets: g.usesContribOps ? [CONTRIB_OPSET] : [] });
}

/** cos/sin of position × inv_freq for every position, as [positions, D] (both halves alike). */
function ropeTables(positions: number, invFreq: readonly number[]): { cos: Float32Array; sin: Float32Array } {
  const D = invFreq.length * 2;
  const cos = new Float32Array(positions * D);
  const sin = new Float32Array(positions * D);
  for (let p = 0; p < positions; p++) {
    for (let j = 0; j < D; j++) {
      // Math.cos/sin are V8's fdlibm ports: the same bits on every machine Node runs on.
      const angle = Math.fround(p * Math.fround(invFreq[j % (D / 2)]!));
      cos[p * D + j] = Math.cos(angle);
      sin[p * D + j] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

function oneHot(length: number, index: number): number[] {
  const out = new Array<number>(length).fill(0);
  out[index] = 1;
  return out;
}
