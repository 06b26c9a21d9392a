/**
 * The gateway on real trained weights (the real-weights folder, converted by test/support/real-weights):
 * stories260K, a TinyStories Llama whose greedy story after `Once upon a time` is published, and
 * model2vec-bge-vq, a sentence embedder with its authors' reference vector. Unlike the generated
 * models' output, these answers have a right value known apart from this project, so a bug in
 * prompt assembly, positions, the KV cache, stop handling, batching or decoding shows as a wrong
 * text or vector. Real transformers.js inference (onnxruntime-node), through the official `openai`
 * and `@anthropic-ai/sdk` clients, by the SDK's `fetch` option and through the msw handlers.
 *
 * Defects these tests were checked to catch, by planting each in the conversion and running this
 * file (test/support/real-weights/stories260k.test.ts has the padded batch):
 * - rotary positions one ahead on every decoding step (the step's position counted as the tokens
 *   so far, not that count − 1; the prompt's right): the whole-story tests fail (story, Anthropic,
 *   Responses, max_tokens 251, concurrent, conversation) on text that parts from the published
 *   one only at its fourth line (token ~190): a shorter check would not see it;
 * - the KV cache losing the previous step's entry (its slot taken by the next token's): the same
 *   tests and the stop strings fail, the text parting at `…named Lily`;
 * - the chat template without BOS: every story test fails (`prompt_tokens` 4, another story).
 * The schema, tool and embedding tests are shape and vector checks, untouched by those.
 */
import Ajv from 'ajv';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost, type ModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createHarness, type Harness, TRANSPORTS } from '../support/harness.ts';
import {
  EMBEDDER_DIMENSIONS,
  EMBEDDER_ID,
  embedderSpec,
  PARAPHRASE_PAIRS,
  greedyStoryTokens,
  readReferenceVector,
  readStoryContinuation,
  REFERENCE_TEXT,
  realWeightsDir,
  removeRealWeightsDir,
  sharedModelsMissing,
  STORIES_ID,
  storiesSpec,
  STORY_PROMPT,
  STORY_PROMPT_IDS,
  STORY_TOKENS,
} from '../support/real-weights/index.ts';

const missing = sharedModelsMissing();
const model = STORIES_ID;
const user = (content: string): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];
const story = { model, messages: user(STORY_PROMPT), max_tokens: STORY_TOKENS, temperature: 0 } as const;
const ajv = new Ajv({ strict: true });

let host: ModelHost;
/** The published continuation (the reference text after its prompt). */
let continuation: string;
/** The text of the story's first `n` tokens (whole stories are compared with the published text itself). */
let storyPrefix: (n: number) => string;
let reference: number[];
beforeAll(async () => {
  if (missing) return;
  const dir = await realWeightsDir();
  host = createModelHost({ adapters: [createTransformersAdapter({ models: [storiesSpec, embedderSpec], localModelPath: dir, device: 'cpu', grammar: loadXGrammar })] });
  continuation = await readStoryContinuation();
  reference = await readReferenceVector();
  storyPrefix = (await greedyStoryTokens(dir)).prefix;
}, 60_000);
afterAll(removeRealWeightsDir);
beforeEach((context) => context.skip(missing !== undefined, missing));

const maxDiff = (a: readonly number[], b: readonly number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
const fromBase64 = (data: string) => Array.from(new Float32Array(new Uint8Array(Buffer.from(data, 'base64')).buffer));

async function streamedChat(h: Harness, request: OpenAI.ChatCompletionCreateParamsNonStreaming) {
  let text = '';
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | undefined;
  for await (const chunk of await h.openai().chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } })) {
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  return { text, finish, usage };
}

describe.each(TRANSPORTS)('through %s', (transport) => {
  let h: Harness;
  beforeAll(() => {
    if (!missing) h = createHarness(transport, { engine: host });
  });
  afterAll(() => h?.close());

  it('OpenAI chat at temperature 0 writes the published story byte for byte, whole and streamed (252 tokens, prompt 5)', async () => {
    const whole = await h.openai().chat.completions.create(story);
    expect(whole.choices[0]!.message.content).toBe(continuation);
    expect(whole.choices[0]!.finish_reason).toBe('length');
    expect(whole.usage).toMatchObject({ prompt_tokens: STORY_PROMPT_IDS.length, completion_tokens: STORY_TOKENS });
    const streamed = await streamedChat(h, story);
    expect(streamed.text).toBe(continuation);
    expect(streamed.finish).toBe('length');
    expect(streamed.usage).toMatchObject({ prompt_tokens: STORY_PROMPT_IDS.length, completion_tokens: STORY_TOKENS });
  });

  it('embeds `hello` ×1000 as the authors\' reference vector to 1e-6, as float and as base64, 1,000 tokens', async () => {
    const float = await h.openai().embeddings.create({ model: EMBEDDER_ID, input: REFERENCE_TEXT, encoding_format: 'float' });
    expect(float.data[0]!.embedding).toHaveLength(EMBEDDER_DIMENSIONS);
    expect(maxDiff(float.data[0]!.embedding, reference)).toBeLessThan(1e-6);
    expect(float.usage.prompt_tokens).toBe(1000);
    const raw = await h.openai().embeddings.create({ model: EMBEDDER_ID, input: REFERENCE_TEXT, encoding_format: 'base64' });
    expect(maxDiff(fromBase64(raw.data[0]!.embedding as unknown as string), reference)).toBeLessThan(1e-6);
  });
});

describe('the story in every flavour and with every stop (SDK fetch option)', () => {
  let h: Harness;
  beforeAll(() => {
    if (!missing) h = createHarness('fetch option', { engine: host });
  });

  it('Anthropic messages write it, whole and streamed: input_tokens 5, stop_reason max_tokens', async () => {
    const request = { model, max_tokens: STORY_TOKENS, messages: [{ role: 'user' as const, content: STORY_PROMPT }] };
    const whole = await h.anthropic().messages.create(request);
    expect(whole.content).toHaveLength(1);
    expect(whole.content[0]).toMatchObject({ type: 'text', text: continuation });
    expect(whole.stop_reason).toBe('max_tokens');
    // The whole prompt: Anthropic counts what came from the prefix cache apart from input_tokens.
    expect(whole.usage.input_tokens + (whole.usage.cache_read_input_tokens ?? 0)).toBe(STORY_PROMPT_IDS.length);
    expect(whole.usage.output_tokens).toBe(STORY_TOKENS);
    const stream = h.anthropic().messages.stream(request);
    let text = '';
    stream.on('text', (delta) => void (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe(continuation);
    expect(final.stop_reason).toBe('max_tokens');
  });

  it('the Responses API writes it, whole and streamed: input_tokens 5, incomplete at max_output_tokens', async () => {
    const request = { model, input: STORY_PROMPT, max_output_tokens: STORY_TOKENS, temperature: 0 };
    const whole = await h.openai().responses.create(request);
    expect(whole.output_text).toBe(continuation);
    expect(whole.status).toBe('incomplete');
    expect(whole.usage).toMatchObject({ input_tokens: STORY_PROMPT_IDS.length, output_tokens: STORY_TOKENS });
    const stream = h.openai().responses.stream(request);
    let text = '';
    stream.on('response.output_text.delta', (event) => void (text += event.delta));
    const final = await stream.finalResponse();
    expect(text).toBe(continuation);
    expect(final.output_text).toBe(continuation);
  });

  it('max_tokens N gives the first N tokens of it, finish length', async () => {
    for (const n of [1, 2, 17, 100, 251]) {
      const res = await h.openai().chat.completions.create({ ...story, max_tokens: n });
      expect(res.choices[0]!.message.content, `max_tokens ${n}`).toBe(storyPrefix(n));
      expect(continuation.startsWith(res.choices[0]!.message.content!)).toBe(true);
      expect(res.choices[0]!.finish_reason).toBe('length');
      expect(res.usage!.completion_tokens).toBe(n);
    }
  });

  it('a stop string cuts it exactly where the text has it, whole and streamed, in both flavours', async () => {
    // Inside a token, across tokens, a newline from a byte piece, a quote; first occurrences only.
    for (const stop of ['Lily', 'ily. S', '\n', '"', "didn't know", 'park.']) {
      const expected = continuation.slice(0, continuation.indexOf(stop));
      const whole = await h.openai().chat.completions.create({ ...story, stop });
      expect(whole.choices[0]!.message.content, JSON.stringify(stop)).toBe(expected);
      expect(whole.choices[0]!.finish_reason).toBe('stop');
      const streamed = await streamedChat(h, { ...story, stop: [stop, 'never in the story'] });
      expect(streamed.text).toBe(expected);
      expect(streamed.finish).toBe('stop');
      const an = await h.anthropic().messages.create({ model, max_tokens: STORY_TOKENS, messages: [{ role: 'user', content: STORY_PROMPT }], stop_sequences: [stop] });
      expect(an.content[0]).toMatchObject({ type: 'text', text: expected });
      expect(an).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: stop });
    }
  });

  it('gives each of concurrent identical requests the story', async () => {
    const answers = await Promise.all([
      h.openai().chat.completions.create(story).then((r) => r.choices[0]!.message.content),
      streamedChat(h, story).then((r) => r.text),
      h.anthropic().messages.create({ model, max_tokens: STORY_TOKENS, messages: [{ role: 'user', content: STORY_PROMPT }] }).then((r) => (r.content[0]!.type === 'text' ? r.content[0]!.text : '')),
    ]);
    expect(answers).toEqual([continuation, continuation, continuation]);
  });

  it('gives each of several different prompts at once what it gets alone', async () => {
    const prompts = [STORY_PROMPT, 'Lily', 'The dog ran to the park and saw a big', 'Tom had a red'];
    const ask = (prompt: string) => h.openai().chat.completions.create({ model, messages: user(prompt), max_tokens: 48, temperature: 0 }).then((r) => r.choices[0]!.message.content);
    const alone: (string | null)[] = [];
    for (const prompt of prompts) alone.push(await ask(prompt));
    expect(alone[0]).toBe(storyPrefix(48));
    expect(new Set(alone).size).toBe(prompts.length);
    expect(await Promise.all(prompts.map(ask))).toEqual(alone);
  });

  it('gives a conversation the text of its turns joined in one message (the template writes BOS, then the turns\' text)', async () => {
    const conversations: OpenAI.ChatCompletionMessageParam[][] = [
      [{ role: 'user', content: 'Once upon' }, { role: 'assistant', content: ' a' }, { role: 'user', content: ' time' }],
      [{ role: 'system', content: 'Once' }, { role: 'user', content: ' upon a time' }],
      // A trailing assistant turn is a prefill: the story goes on from it.
      [{ role: 'user', content: 'Once upon a' }, { role: 'assistant', content: ' time' }],
    ];
    // The whole published story for the first; the others' first 64 tokens (the prompt count shows the rest).
    for (const [i, messages] of conversations.entries()) {
      const n = i === 0 ? STORY_TOKENS : 64;
      const res = await h.openai().chat.completions.create({ ...story, messages, max_tokens: n });
      expect(res.choices[0]!.message.content, JSON.stringify(messages)).toBe(i === 0 ? continuation : storyPrefix(n));
      expect(res.usage!.prompt_tokens).toBe(STORY_PROMPT_IDS.length);
    }
    const an = await h.anthropic().messages.create({ model, max_tokens: 64, system: 'Once upon', messages: [{ role: 'user', content: ' a' }, { role: 'assistant', content: ' time' }] });
    expect(an.content[0]).toMatchObject({ type: 'text', text: storyPrefix(64) });
    expect(an.usage.input_tokens + (an.usage.cache_read_input_tokens ?? 0)).toBe(STORY_PROMPT_IDS.length);
  });
});

describe('structured output and tool calls on real logits (SDK fetch option)', () => {
  let h: Harness;
  beforeAll(() => {
    if (!missing) h = createHarness('fetch option', { engine: host });
  });
  // Bounded strings: a story model writes story text inside a free string and never closes it.
  const CHILD = {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 12 },
      mood: { enum: ['happy', 'sad'] },
      age: { type: 'integer', minimum: 1, maximum: 9 },
      friends: { type: 'array', items: { type: 'string', maxLength: 6 }, maxItems: 2 },
    },
    required: ['name', 'mood', 'age', 'friends'],
    additionalProperties: false,
  };
  // Small, since the tool instructions alone take most of this 512-token window (~390 tokens).
  const MOOD = { type: 'object', properties: { mood: { enum: ['happy', 'sad'] } }, required: ['mood'], additionalProperties: false };

  it('answers a JSON schema with JSON that parses and validates, whole and streamed alike', async () => {
    const request = { model, messages: user(STORY_PROMPT), max_tokens: 100, temperature: 0, response_format: { type: 'json_schema' as const, json_schema: { name: 'child', schema: CHILD, strict: true } } };
    const whole = await h.openai().chat.completions.create(request);
    expect(whole.choices[0]!.finish_reason).toBe('stop');
    const value = JSON.parse(whole.choices[0]!.message.content!);
    expect(ajv.validate(CHILD, value), JSON.stringify(value)).toBe(true);
    // The model's own words where the grammar leaves a choice.
    expect(value.name.length).toBeGreaterThan(0);
    expect((await streamedChat(h, request)).text).toBe(whole.choices[0]!.message.content);
  });

  it('calls a tool when it must, with arguments that validate, in both flavours', async () => {
    const res = await h.openai().chat.completions.create({
      model, messages: user(STORY_PROMPT), max_tokens: 100, temperature: 0,
      tools: [{ type: 'function', function: { name: 'feel', parameters: MOOD } }], tool_choice: 'required',
    });
    expect(res.choices[0]!.finish_reason).toBe('tool_calls');
    const call = res.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('feel');
    expect(ajv.validate(MOOD, JSON.parse(call.function.arguments))).toBe(true);
    const an = await h.anthropic().messages.create({
      model, max_tokens: 100, messages: [{ role: 'user', content: STORY_PROMPT }],
      tools: [{ name: 'feel', input_schema: MOOD as { type: 'object' } }], tool_choice: { type: 'any' },
    });
    expect(an.stop_reason).toBe('tool_use');
    const use = an.content.find((block) => block.type === 'tool_use');
    expect(use?.type === 'tool_use' && ajv.validate(MOOD, use.input)).toBe(true);
  });
});

describe('embeddings: meaning and batches (SDK fetch option)', () => {
  let h: Harness;
  beforeAll(() => {
    if (!missing) h = createHarness('fetch option', { engine: host });
  });
  const sentences = PARAPHRASE_PAIRS.flat();
  const vectorsOf = async (input: string | string[]) => (await h.openai().embeddings.create({ model: EMBEDDER_ID, input, encoding_format: 'float' })).data.map((d) => d.embedding);

  it('finds each paraphrase\'s pair as its nearest neighbour, 6 of 6', async () => {
    const vectors = await vectorsOf(sentences);
    const dot = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * b[i]!, 0);
    const nearest = vectors.map((v, i) => vectors.map((w, j) => (i === j ? -Infinity : dot(v, w))).reduce((best, c, j, all) => (c > all[best]! ? j : best), i === 0 ? 1 : 0));
    expect(nearest).toEqual(sentences.map((_, i) => i ^ 1));
  });

  it('gives a batch, and concurrent requests, the vectors each input gets alone', async () => {
    const inputs = [...sentences, REFERENCE_TEXT, 'hello'];
    const alone: number[][] = [];
    for (const input of inputs) alone.push((await vectorsOf(input))[0]!);
    expect(await vectorsOf(inputs)).toEqual(alone);
    expect((await Promise.all(inputs.map(vectorsOf))).map(([v]) => v)).toEqual(alone);
    expect(maxDiff(alone.at(-2)!, reference)).toBeLessThan(1e-6);
  });
});
