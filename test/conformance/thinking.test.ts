/**
 * A thinking model's thinking never passes for its answer, in every flavour, through the official
 * SDKs: chat completions' `reasoning_content` (whole, and as deltas of its own), the Responses
 * API's `reasoning` item (with its summary where asked), Anthropic `thinking` blocks where the
 * request enables thinking and nothing otherwise; the thinking turned off by each flavour's
 * switch; `reasoning_tokens` / `thinking_tokens` in usage; tool calls and JSON schemas held after
 * the thinking.
 *
 * The model: Qwen3's real tokenizer and chat template over seeded weights that think
 * (`QWEN3_THINKING_CHAT`, test/support/real-tokenizer-models.ts): `<think>`, `THINK_TEXT` (which
 * holds `</th`, the start of the closing marker), `</think>`, then `REPLY_TEXT`. Real
 * transformers.js inference (onnxruntime-node). openai 7 has no type for `reasoning_content` (a
 * vLLM/SGLang field), so it is read past the SDK's types; @anthropic-ai/sdk's `thinking` blocks
 * and deltas are typed.
 *
 * Defects checked to fail here, by planting each: the gateway not splitting the thinking (no
 * `reasoning` passed to startGeneration in the OpenAI routes): every chat test fails with the
 * thinking in `content`; `enable_thinking` not passed to the template (chat-prompt.ts): the
 * thinking-off tests fail; whitespace without bound after the thinking in the grammar (ebnf.ts
 * `thinking_gap`): the JSON test fails, the model writing newlines to its cap.
 */
import { Template } from '@huggingface/jinja';
import Ajv from 'ajv';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { packageTokenizer, QWEN3_THINKING_CHAT, realTokenizerSpec, REPLY_TEXT, THINK_TEXT, writeModel } from '../support/real-tokenizer-models.ts';

const MODEL = QWEN3_THINKING_CHAT.id;
const SLOW = 120_000;
const MESSAGES = [{ role: 'user' as const, content: 'Greet me in 中文.' }];
/** `<think>`, the thought's tokens between newlines, `</think>`: what usage counts as thinking. */
let thinkingTokens: number;

let dir: string;
let h: Harness;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-thinking-'));
  await writeModel(QWEN3_THINKING_CHAT, join(dir, MODEL));
  const adapter = createTransformersAdapter({ models: [realTokenizerSpec(QWEN3_THINKING_CHAT)], localModelPath: dir, device: 'cpu', grammar: loadXGrammar });
  h = createHarness('fetch option', { engine: createModelHost({ adapters: [adapter] }) });
  const own = await packageTokenizer(QWEN3_THINKING_CHAT);
  thinkingTokens = 2 + own.encode(`\n${THINK_TEXT}\n`, { add_special_tokens: false }).length;
}, 60_000);
afterAll(async () => {
  h?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The chat completion fields openai 7 does not type. */
type WithReasoning = { reasoning_content?: string | null };
type ReasoningUsage = { completion_tokens_details?: { reasoning_tokens?: number } };

describe('chat completions', () => {
  it('carries the thinking as reasoning_content, the answer alone as content, and counts reasoning tokens', { timeout: SLOW }, async () => {
    const reply = await h.openai().chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 200 });
    const message = reply.choices[0]!.message as typeof reply.choices[0]['message'] & WithReasoning;
    expect(message.content).toBe(REPLY_TEXT);
    expect(message.reasoning_content).toBe(THINK_TEXT);
    expect(reply.choices[0]!.finish_reason).toBe('stop');
    expect((reply.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(thinkingTokens);
    // The answer's tokens: `\n\n`, the stray special token (never in the text), the reply's.
    const own = await packageTokenizer(QWEN3_THINKING_CHAT);
    expect(reply.usage!.completion_tokens).toBe(thinkingTokens + 2 + own.encode(REPLY_TEXT, { add_special_tokens: false }).length);
  });

  it('streams the thinking as reasoning_content deltas before any content delta, the same as whole', { timeout: SLOW }, async () => {
    const stream = await h.openai().chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 200, stream: true, stream_options: { include_usage: true } });
    const order: ('reasoning' | 'content')[] = [];
    let reasoning = '';
    let content = '';
    let usage: ReasoningUsage | undefined;
    for await (const chunk of stream) {
      const delta = (chunk.choices[0]?.delta ?? {}) as { content?: string | null } & WithReasoning;
      if (delta.reasoning_content) {
        reasoning += delta.reasoning_content;
        order.push('reasoning');
      }
      if (delta.content) {
        content += delta.content;
        order.push('content');
      }
      if (chunk.usage) usage = chunk.usage as ReasoningUsage;
    }
    expect(reasoning).toBe(THINK_TEXT);
    expect(content).toBe(REPLY_TEXT);
    expect(order.indexOf('content')).toBeGreaterThan(order.lastIndexOf('reasoning'));
    expect(order.filter((o) => o === 'reasoning').length).toBeGreaterThan(3);
    expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(thinkingTokens);
  });

  it('turns the thinking off with chat_template_kwargs.enable_thinking or reasoning_effort, writing the empty block into the prompt', { timeout: SLOW }, async () => {
    const config = JSON.parse(await readFile(join(dir, MODEL, 'tokenizer_config.json'), 'utf8')) as { chat_template: string; eos_token: string };
    const own = await packageTokenizer(QWEN3_THINKING_CHAT);
    const prompt = own.encode(new Template(config.chat_template).render({ messages: MESSAGES, add_generation_prompt: true, eos_token: config.eos_token, enable_thinking: false }), { add_special_tokens: false });
    for (const off of [{ chat_template_kwargs: { enable_thinking: false } }, { reasoning_effort: 'none' }, { reasoning_effort: 'minimal' }]) {
      const reply = await h.openai().chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 200, ...(off as object) });
      const message = reply.choices[0]!.message as typeof reply.choices[0]['message'] & WithReasoning;
      expect(message.content, JSON.stringify(off)).toBe(REPLY_TEXT);
      expect(message.reasoning_content).toBeNull();
      expect(reply.usage!.prompt_tokens).toBe(prompt.length);
      expect((reply.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(0);
    }
  });

  it('holds a JSON schema and a tool call after the thinking', { timeout: SLOW }, async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city', 'days'], additionalProperties: false };
    const json = await h.openai().chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400, response_format: { type: 'json_schema', json_schema: { name: 'w', schema, strict: true } } });
    const jsonMessage = json.choices[0]!.message as typeof json.choices[0]['message'] & WithReasoning;
    expect(jsonMessage.reasoning_content).toBe(THINK_TEXT);
    expect(new Ajv().validate(schema, JSON.parse(jsonMessage.content!))).toBe(true);

    const call = await h.openai().chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      max_tokens: 400,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: schema } }],
      tool_choice: 'required',
    });
    const callMessage = call.choices[0]!.message as typeof call.choices[0]['message'] & WithReasoning;
    expect(call.choices[0]!.finish_reason).toBe('tool_calls');
    expect(callMessage.reasoning_content).toBe(THINK_TEXT);
    const fn = callMessage.tool_calls![0]!;
    expect(fn.type === 'function' && fn.function.name).toBe('get_weather');
    expect(new Ajv().validate(schema, JSON.parse(fn.type === 'function' ? fn.function.arguments : ''))).toBe(true);
  });
});

describe('the Responses API', () => {
  it('gives the thinking as a reasoning item before the message, its summary where asked, whole and streamed', { timeout: SLOW }, async () => {
    const oa = h.openai();
    for (const summary of [undefined, 'auto'] as const) {
      const request = { model: MODEL, input: MESSAGES[0]!.content, max_output_tokens: 200, ...(summary ? { reasoning: { summary } } : {}) };
      const whole = await oa.responses.create(request);
      const streamed = oa.responses.stream(request);
      const deltas: string[] = [];
      streamed.on('response.reasoning_text.delta', (event) => deltas.push(event.delta));
      const final = await streamed.finalResponse();
      for (const response of [whole, final]) {
        expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
        const reasoning = response.output[0]!;
        if (reasoning.type !== 'reasoning') throw new Error('not a reasoning item');
        expect(reasoning.content).toEqual([{ type: 'reasoning_text', text: THINK_TEXT }]);
        expect(reasoning.summary).toEqual(summary ? [{ type: 'summary_text', text: THINK_TEXT }] : []);
        expect(response.output_text).toBe(REPLY_TEXT);
        expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(thinkingTokens);
      }
      expect(deltas.join('')).toBe(THINK_TEXT);
    }
  });

  it("turns the thinking off with reasoning.effort 'none'", { timeout: SLOW }, async () => {
    const response = await h.openai().responses.create({ model: MODEL, input: MESSAGES[0]!.content, max_output_tokens: 200, reasoning: { effort: 'none' } });
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expect(response.output_text).toBe(REPLY_TEXT);
    expect(response.reasoning).toMatchObject({ effort: 'none' });
  });
});

describe('Anthropic messages', () => {
  it('hides the thinking unless the request enables it, then gives it as a thinking block, whole and streamed', { timeout: SLOW }, async () => {
    const an = h.anthropic();
    const hidden = await an.messages.create({ model: MODEL, messages: MESSAGES, max_tokens: 1024 });
    expect(hidden.content).toEqual([{ type: 'text', text: REPLY_TEXT }]);
    expect(hidden.usage.output_tokens_details?.thinking_tokens).toBe(thinkingTokens);

    const request = { model: MODEL, messages: MESSAGES, max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 } };
    const shown = await an.messages.create(request);
    expect(shown.content).toEqual([
      { type: 'thinking', thinking: THINK_TEXT, signature: '' },
      { type: 'text', text: REPLY_TEXT },
    ]);
    const stream = an.messages.stream(request);
    const deltas: string[] = [];
    stream.on('thinking', (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(final.content).toEqual(shown.content);
    expect(deltas.join('')).toBe(THINK_TEXT);
    const adaptive = await an.messages.create({ ...request, thinking: { type: 'adaptive' } });
    expect(adaptive.content.map((block) => block.type)).toEqual(['thinking', 'text']);
  });

  it("turns the thinking off with thinking: {type: 'disabled'}, and takes earlier thinking blocks back", { timeout: SLOW }, async () => {
    const an = h.anthropic();
    const off = await an.messages.create({ model: MODEL, messages: MESSAGES, max_tokens: 1024, thinking: { type: 'disabled' } });
    expect(off.content).toEqual([{ type: 'text', text: REPLY_TEXT }]);
    expect(off.usage.output_tokens_details?.thinking_tokens).toBe(0);
    const followUp = await an.messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages: [...MESSAGES, { role: 'assistant', content: [{ type: 'thinking', thinking: THINK_TEXT, signature: '' }, { type: 'text', text: REPLY_TEXT }] }, { role: 'user', content: 'Again.' }],
    });
    expect(followUp.content).toEqual([{ type: 'text', text: REPLY_TEXT }]);
  });
});
