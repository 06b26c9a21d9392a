/**
 * web-llm keeps its last conversation's KV cache and reuses it for a request that continues it
 * (docs/decisions/webllm-keeps-its-conversation.md). Through the gateway and the official `openai`
 * and `@anthropic-ai/sdk` clients, a conversation's turns after the first must read only their new
 * message, and each turn's usage must say exactly how many tokens were read again: plain turns,
 * turns cut at a stop string, turns after tool calls (OpenAI `tool_calls` with `arguments` strings,
 * Anthropic `tool_use` with `input` objects), and Responses continued by `previous_response_id`.
 *
 * web-llm's MLCEngine is played by a TEST DOUBLE (test/support/webllm-double.ts; the real one needs
 * WebGPU and a model library that cannot be had here) that reuses by web-llm's own rule, checks stop
 * strings as web-llm does, matches its scripted output against each request's grammar, and keeps its
 * own account of what it reused (`rounds`), which the usage is compared with.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import type { XGrammar } from '../../src/engines/grammar/xgrammar.ts';
import type { WebLLMModelSpec } from '../../src/engines/catalog/webllm-model-spec.ts';
import { createWebLLMAdapter } from '../../src/engines/webllm/webllm-adapter.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { replyScript, TestDoubleMLCEngine, type WebLLMScript } from '../support/webllm-double.ts';

const model = 'webllm-chat';
const SPEC: WebLLMModelSpec = {
  info: { id: model, kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};

const CITY = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } }, required: ['city', 'days'], additionalProperties: false };
// Spelled as a model may spell it within the grammar (an escaped letter, a zero fraction): written
// out again from its parsed value it would read {"city": "Paris", "days": 2}.
const ARGS = '{"city": "Par\\u0069s", "days": 2.0}';
const CALL = ['<tool_call>\n{"name": "get_weather", "arguments": ', ARGS, '}\n</tool_call>'];

/** The script's steps (one token each), then the stop token. */
const says = (...steps: string[]): WebLLMScript => ({ steps: [...steps, ''], finish: 'stop' });

let xgrammar: XGrammar;
beforeAll(async () => {
  xgrammar = await loadXGrammar();
});

let h: Harness;
let oa: OpenAI;
let an: Anthropic;
let engines: TestDoubleMLCEngine[];
let answers: WebLLMScript[];

beforeEach(() => {
  engines = [];
  answers = [];
  const adapter = createWebLLMAdapter({
    models: [SPEC],
    prebuiltModels: false,
    gpu: async () => ({ hasShaderF16: false }),
    grammar: loadXGrammar,
    createEngine: (options) => {
      const engine = new TestDoubleMLCEngine(options, { grammar: xgrammar, answer: () => answers.shift() ?? replyScript(['Hi']) });
      engines.push(engine);
      return engine;
    },
  });
  h = createHarness('fetch option', { engine: createModelHost({ adapters: [adapter] }) });
  oa = h.openai();
  an = h.anthropic();
});
afterEach(() => h.close());

/** What the double read again and prefilled for its last generation. */
const lastRound = () => engines[0]!.rounds.at(-1)!;

/** The chat usage says what the double reused: the whole prompt, of which the kept tokens were cached. */
function expectChatUsage(usage: OpenAI.CompletionUsage | undefined, reused: boolean) {
  const round = lastRound();
  expect(round.reused).toBe(reused);
  expect(usage?.prompt_tokens_details?.cached_tokens).toBe(round.kept);
  expect(usage?.prompt_tokens).toBe(round.kept + round.prefilled);
}

/** Anthropic counts the cached tokens apart: `input_tokens` is what was read this turn. */
function expectAnthropicUsage(usage: Anthropic.Usage | Anthropic.MessageDeltaUsage, reused: boolean) {
  const round = lastRound();
  expect(round.reused).toBe(reused);
  expect(usage.cache_read_input_tokens).toBe(round.kept);
  expect(usage.input_tokens).toBe(round.prefilled);
}

describe('OpenAI chat completions', () => {
  it('a plain conversation: each turn after the first reads only its new message', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }];
    const kept: number[] = [];
    for (const [i, reply] of [['Hi', ' there'], ['Fine'], ['Bye', '!']].entries()) {
      answers.push(says(...reply));
      const res = await oa.chat.completions.create({ model, messages, max_tokens: 20 });
      expectChatUsage(res.usage, i > 0);
      kept.push(res.usage!.prompt_tokens_details!.cached_tokens!);
      messages.push({ role: 'assistant', content: res.choices[0]!.message.content }, { role: 'user', content: `Turn ${i + 2}` });
    }
    // The double's tokens: 3 + (4 + 3) + (4 + 2) = 16 for the first prompt and its 2 answer tokens;
    // then 3 + (4 + 2) for "Turn 2" and its 1 answer token.
    expect(kept).toEqual([0, 16 + 2, 16 + 2 + 9 + 1]);
  });

  it('turns cut at a stop string, JSON and streamed: finish_reason stop, the text cut before it, and the next turn reuses', async () => {
    answers.push(says('Sure', ' E', 'ND', ' more'));
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hello' }];
    const first = await oa.chat.completions.create({ model, messages, max_tokens: 20, stop: ['END'] });
    expect(first.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'Sure ' } });
    expect(engines[0]!.interrupts).toBe(0);
    messages.push({ role: 'assistant', content: first.choices[0]!.message.content }, { role: 'user', content: 'Go on' });
    answers.push(says('Yes', ' E', 'N', 'D'));
    const stream = await oa.chat.completions.create({ model, messages, max_tokens: 20, stop: ['END'], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect({ text, finish }).toEqual({ text: 'Yes ', finish: 'stop' });
    expectChatUsage(usage, true);
    // Kept: the first prompt and its answer's tokens but the last sampled (the one that completed "END").
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(first.usage!.prompt_tokens + first.usage!.completion_tokens - 1);
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: 'Thanks' });
    answers.push(says('Bye'));
    expectChatUsage((await oa.chat.completions.create({ model, messages, max_tokens: 20 })).usage, true);
    expect(engines[0]!.interrupts).toBe(0);
  });

  it('tool calls: the call sent back with its arguments string renders as the model wrote it, and the next turns reuse', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: CITY } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    answers.push(says(...CALL));
    const call = await oa.chat.completions.create({ model, messages, tools, max_tokens: 64 });
    const message = call.choices[0]!.message;
    expect(call.choices[0]!.finish_reason).toBe('tool_calls');
    expect(message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: ARGS } });
    messages.push(message, { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: '{"temp": 21}' });
    answers.push(says('Sunny', '.'));
    const answer = await oa.chat.completions.create({ model, messages, tools, max_tokens: 64 });
    expect(answer.choices[0]!.message.content).toBe('Sunny.');
    expectChatUsage(answer.usage, true);
    messages.push(answer.choices[0]!.message, { role: 'user', content: 'Thanks' });
    answers.push(says('Bye'));
    expectChatUsage((await oa.chat.completions.create({ model, messages, tools, max_tokens: 64 })).usage, true);
  });
});

describe('Anthropic messages', () => {
  it('a turn cut at a stop sequence: stop_reason stop_sequence with the string, and the next turn reuses', async () => {
    answers.push(says('Sure', ' E', 'ND', ' more'));
    const first = await an.messages.create({ model, max_tokens: 20, stop_sequences: ['never', 'END'], messages: [{ role: 'user', content: 'Hello' }] });
    expect(first).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END', content: [{ type: 'text', text: 'Sure ' }] });
    expect(first.usage.cache_read_input_tokens).toBe(0);
    answers.push(says('Ok'));
    const stream = await an.messages.create({
      model,
      max_tokens: 20,
      stream: true,
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: 'Go on' },
      ],
    });
    let usage: Anthropic.MessageDeltaUsage | undefined;
    for await (const event of stream) if (event.type === 'message_delta') usage = event.usage;
    expectAnthropicUsage(usage!, true);
    expect(engines[0]!.interrupts).toBe(0);
  });

  it('tool_use: the call sent back as an input object renders as the model wrote it, and the next turns reuse', async () => {
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: CITY as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    answers.push(says(...CALL));
    const call = await an.messages.create({ model, max_tokens: 64, tools, messages });
    expect(call.stop_reason).toBe('tool_use');
    const use = call.content.find((block) => block.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris', days: 2 } });
    messages.push({ role: 'assistant', content: call.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp": 21}' }] });
    answers.push(says('Sunny', '.'));
    const answer = await an.messages.create({ model, max_tokens: 64, tools, messages });
    expect(answer.content).toEqual([{ type: 'text', text: 'Sunny.' }]);
    expectAnthropicUsage(answer.usage, true);
    messages.push({ role: 'assistant', content: answer.content }, { role: 'user', content: 'Thanks' });
    answers.push(says('Bye'));
    expectAnthropicUsage((await an.messages.create({ model, max_tokens: 64, tools, messages })).usage, true);
  });
});

describe('OpenAI Responses', () => {
  it('previous_response_id: a function call, its output, then a new message, each turn reusing', async () => {
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: CITY, strict: true }];
    answers.push(says(...CALL));
    const call = await oa.responses.create({ model, input: 'Weather in Paris?', tools, max_output_tokens: 64 });
    const item = call.output.find((o) => o.type === 'function_call')!;
    expect(item).toMatchObject({ name: 'get_weather', arguments: ARGS });
    expect(call.usage?.input_tokens_details.cached_tokens).toBe(0);
    answers.push(says('Sunny', '.'));
    const answer = await oa.responses.create({ model, previous_response_id: call.id, input: [{ type: 'function_call_output', call_id: item.call_id, output: '{"temp": 21}' }], tools, max_output_tokens: 64 });
    expect(answer.output_text).toBe('Sunny.');
    let round = lastRound();
    expect(round.reused).toBe(true);
    expect(answer.usage).toMatchObject({ input_tokens: round.kept + round.prefilled, input_tokens_details: { cached_tokens: round.kept } });
    answers.push(says('Bye'));
    const next = await oa.responses.create({ model, previous_response_id: answer.id, input: 'Thanks', tools, max_output_tokens: 64 });
    round = lastRound();
    expect(round.reused).toBe(true);
    expect(next.usage).toMatchObject({ input_tokens: round.kept + round.prefilled, input_tokens_details: { cached_tokens: round.kept } });
  });
});
