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
 * @module
 */

import { attr, GraphBuilder } from './graph-builder.ts';
import { json, type ModelFiles } from './model-files.ts';
import { DataType, encodeModel } from './onnx-proto.ts';
import type { Prng } from './prng.ts';
import { STORY_WORDS } from './words.ts';

export const TINY_CHAT = {
  hiddenSize: 64,
  layers: 2,
  heads: 4,
  headDim: 16,
  intermediateSize: 128,
  /** The context window; RoPE has no hard limit, this is what config and tokenizer declare. */
  maxPositions: 2048,
  /** Tokens of assistant text after which the model emits the end token. */
  stopAfter: 40,
  ropeTheta: 10000,
} as const;

const SPECIALS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
const [PAD, IM_START, IM_END] = [0, 1, 2];
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
  const { vocab, merges, wordIds } = buildVocab();
  const files: ModelFiles = new Map();
  files.set('config.json', json({
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    vocab_size: vocab.length,
    hidden_size: TINY_CHAT.hiddenSize,
    intermediate_size: TINY_CHAT.intermediateSize,
    num_hidden_layers: TINY_CHAT.layers,
    num_attention_heads: TINY_CHAT.heads,
    num_key_value_heads: TINY_CHAT.heads,
    head_dim: TINY_CHAT.headDim,
    max_position_embeddings: TINY_CHAT.maxPositions,
    rms_norm_eps: 1e-5,
    rope_theta: TINY_CHAT.ropeTheta,
    hidden_act: 'silu',
    tie_word_embeddings: false,
    eos_token_id: IM_END,
    pad_token_id: PAD,
    'transformers.js_config': { dtype: 'fp32' },
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
    model_max_length: TINY_CHAT.maxPositions,
    chat_template: CHAT_TEMPLATE,
  }));
  files.set('onnx/model.onnx', buildGraph(prng, vocab.length, wordIds));
  return files;
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
 */
function buildVocab(): { vocab: string[]; merges: string[]; wordIds: number[] } {
  const bytes = byteChars();
  const vocab = [...SPECIALS, ...bytes];
  const merges: string[] = [];
  const known = new Set(vocab);
  const addWord = (text: string): number => {
    const chars = [...new TextEncoder().encode(text)].map((b) => bytes[b]!);
    let token = chars[0]!;
    for (const char of chars.slice(1)) {
      const next = token + char;
      if (!known.has(next)) {
        known.add(next);
        vocab.push(next);
        merges.push(`${token} ${char}`);
      }
      token = next;
    }
    return vocab.indexOf(token);
  };
  const wordIds = STORY_WORDS.map((w) => addWord(` ${w}`));
  ROLES.forEach(addWord);
  return { vocab, merges, wordIds };
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

function buildGraph(prng: Prng, V: number, wordIds: readonly number[]): Uint8Array {
  const { hiddenSize: H, heads, headDim: D, intermediateSize: F, layers, stopAfter, ropeTheta } = TINY_CHAT;
  const g = new GraphBuilder();
  const i64 = (v: number) => g.int64s([v], []);
  const f32 = (v: number) => g.floats([v], []);
  const linear = (x: string, name: string, fanIn: number, fanOut: number, edit?: (w: Float32Array) => void): string => {
    const w = prng.floats(fanIn * fanOut, Math.sqrt(3 / fanIn));
    edit?.(w);
    return g.op('MatMul', [x, g.weight(name, [fanIn, fanOut], w)]);
  };
  const ones = g.floats(new Array<number>(H).fill(1));
  const rmsNorm = (x: string): string => {
    const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], [attr.ints('axes', [-1]), attr.i('keepdims', 1)]);
    return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [meanSquare, f32(1e-5)])])]), ones]);
  };
  const splitHeads = (x: string): string =>
    g.op('Transpose', [g.op('Reshape', [x, g.int64s([0, 0, heads, D])])], [attr.ints('perm', [0, 2, 1, 3])]);
  const unsqueeze = (x: string, axes: number[]): string => g.op('Unsqueeze', [x, g.int64s(axes)]);

  const embed = g.weight('embed_tokens', [V, H], prng.floats(V * H, 1));
  let x = g.op('Gather', [embed, 'input_ids']);

  // RoPE (rotate-half form): cos/sin of position × inv_freq, each [B,1,S,D].
  const invFreq = Array.from({ length: D / 2 }, (_, i) => ropeTheta ** (-(2 * i) / D));
  const freqs = g.op('Mul', [unsqueeze(g.op('Cast', ['position_ids'], [attr.i('to', DataType.FLOAT)]), [-1]), g.floats(invFreq)]);
  const angles = g.op('Concat', [freqs, freqs], [attr.i('axis', -1)]);
  const cos = unsqueeze(g.op('Cos', [angles]), [1]);
  const sin = unsqueeze(g.op('Sin', [angles]), [1]);
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

  // 1.0 at each <|im_start|>, stored in value slot (head 0, dim 0) of layer 0; see the stop rule.
  const isStart = g.op('Cast', [g.op('Equal', ['input_ids', i64(IM_START)])], [attr.i('to', DataType.FLOAT)]);
  const startSlot = g.op('Mul', [unsqueeze(isStart, [1, 3]), g.floats(oneHot(heads * D, 0), [heads, 1, D])]);
  let layer0Values = '';

  for (let l = 0; l < layers; l++) {
    const p = `layers.${l}`;
    const h = rmsNorm(x);
    const q = rope(splitHeads(linear(h, `${p}.q_proj`, H, H)));
    const k = rope(splitHeads(linear(h, `${p}.k_proj`, H, H)));
    // Layer 0's value column 0 is zeroed so that slot holds exactly the start flag.
    let v = splitHeads(linear(h, `${p}.v_proj`, H, H, l === 0 ? (w) => { for (let r = 0; r < H; r++) w[r * H] = 0; } : undefined));
    if (l === 0) v = g.op('Add', [v, startSlot]);
    const keys = g.op('Concat', [`past_key_values.${l}.key`, k], [attr.i('axis', 2)], `present.${l}.key`);
    const values = g.op('Concat', [`past_key_values.${l}.value`, v], [attr.i('axis', 2)], `present.${l}.value`);
    if (l === 0) layer0Values = values;
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [keys], [attr.ints('perm', [0, 1, 3, 2])])]), scale]), maskBias]);
    const context = g.op('MatMul', [g.op('Softmax', [scores], [attr.i('axis', -1)]), values]);
    const merged = g.op('Reshape', [g.op('Transpose', [context], [attr.ints('perm', [0, 2, 1, 3])]), g.int64s([0, 0, H])]);
    x = g.op('Add', [x, linear(merged, `${p}.o_proj`, H, H)]);
    const m = rmsNorm(x);
    const gate = linear(m, `${p}.gate_proj`, H, F);
    const swish = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(m, `${p}.up_proj`, H, F)]);
    x = g.op('Add', [x, linear(swish, `${p}.down_proj`, F, H)]);
  }

  // Vocabulary bias: words 0, end token -50, everything else -30 (see the module comment).
  const bias = new Array<number>(V).fill(-30);
  for (const id of wordIds) bias[id] = 0;
  bias[IM_END] = -50;
  const raw = linear(rmsNorm(x), 'lm_head', H, V);
  // A term that varies with the absolute position keeps greedy text from settling into a two-word loop.
  const positionFeatures = g.op('Concat', [g.op('Cos', [freqs]), g.op('Sin', [freqs])], [attr.i('axis', -1)]);
  const drift = linear(positionFeatures, 'position_head', D, V);
  const biased = g.op('Add', [g.op('Add', [raw, drift]), g.floats(bias)]);

  // Stop rule: s = last <|im_start|> position (from the KV slot); the turn holds q - s - 2 tokens.
  const flags = g.op('Reshape', [g.op('Slice', [layer0Values, g.int64s([0, 0]), g.int64s([1, 1]), g.int64s([1, 3])]), g.int64s([0, -1])]);
  const keyPosPlus1 = g.op('Add', [g.op('Cast', [keyPos], [attr.i('to', DataType.FLOAT)]), f32(1)]);
  const lastStartPlus1 = g.op('ReduceMax', [g.op('Mul', [flags, keyPosPlus1])], [attr.ints('axes', [1]), attr.i('keepdims', 1)]);
  const turnTokens = g.op('Sub', [g.op('Sub', [g.op('Cast', [queryPos], [attr.i('to', DataType.FLOAT)]), lastStartPlus1]), f32(1)]);
  const stop = g.op('Cast', [g.op('GreaterOrEqual', [turnTokens, f32(stopAfter)])], [attr.i('to', DataType.FLOAT)]);
  const endBoost = g.floats(oneHot(V, IM_END).map((v) => v * 100));
  g.op('Add', [biased, g.op('Mul', [unsqueeze(stop, [-1]), endBoost])], [], 'logits');

  const cacheIn = ['batch_size', heads, 'past_sequence_length', D];
  const cacheOut = ['batch_size', heads, 'total_sequence_length', D];
  const cache = (prefix: string, shape: (string | number)[]) =>
    Array.from({ length: layers }, (_, l) => ['key', 'value'].map((kind) => ({ name: `${prefix}.${l}.${kind}`, elemType: DataType.FLOAT, shape }))).flat();
  return encodeModel(g.build('tiny-chat', [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'total_sequence_length'] },
    { name: 'position_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    ...cache('past_key_values', cacheIn),
  ], [
    { name: 'logits', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', V] },
    ...cache('present', cacheOut),
  ]));
}

function oneHot(length: number, index: number): number[] {
  const out = new Array<number>(length).fill(0);
  out[index] = 1;
  return out;
}
