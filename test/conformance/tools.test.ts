/**
 * Tool calling through the gateway in both flavours, with the official clients and their stream
 * helpers, on the tiny random-weight model (real transformers.js inference): the calls are
 * written under a grammar built from the tools' schemas, so every call names a given tool and
 * its arguments validate, whatever the weights. What cannot be done is a 400 in the flavour's shape.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { zodFunction } from 'openai/helpers/zod';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptedFixture, transformersFixture } from '../support/engines.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { SCHEMAS, TIME, WEATHER } from '../support/tool-schemas.ts';


const OPENAI_TOOLS: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'The forecast for a city.', parameters: WEATHER } },
  { type: 'function', function: { name: 'get_time', description: 'The time in a zone.', parameters: TIME } },
];
const ANTHROPIC_TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'The forecast for a city.', input_schema: WEATHER as Anthropic.Tool.InputSchema },
  { name: 'get_time', description: 'The time in a zone.', input_schema: TIME as Anthropic.Tool.InputSchema },
];
const QUESTION = 'What is the weather in Paris, and the time in UTC?';

const ajv = new Ajv({ strict: true });
addFormats(ajv);
/** Throws unless `args` is a call of a known tool whose arguments match its schema. */
function expectValidCall(name: string, args: unknown): void {
  expect(Object.keys(SCHEMAS)).toContain(name);
  const validate = ajv.compile(SCHEMAS[name]!);
  expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
}

let harness: Harness;
afterEach(() => harness.close());

describe('OpenAI tools on transformers.js (tiny-chat)', () => {
  beforeEach(async () => {
    harness = createHarness('fetch option', { engine: (await transformersFixture.create()).engine });
  });
  const base = { model: 'tiny-chat', messages: [{ role: 'user' as const, content: QUESTION }], tools: OPENAI_TOOLS, max_tokens: 200 };

  it("tool_choice 'required': every call names a tool and its arguments match the schema, finish_reason tool_calls", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const completion = await harness.openai().chat.completions.create({ ...base, tool_choice: 'required', temperature: 1, seed });
      const { message, finish_reason } = completion.choices[0]!;
      expect(finish_reason).toBe('tool_calls');
      expect(message.content).toBeNull();
      expect(message.tool_calls!.length).toBeGreaterThan(0);
      for (const call of message.tool_calls!) {
        expect(call).toMatchObject({ type: 'function', id: expect.stringMatching(/^call_/) });
        if (call.type !== 'function') throw new Error('not a function call');
        expectValidCall(call.function.name, JSON.parse(call.function.arguments));
      }
      expect(new Set(message.tool_calls!.map((c) => c.id)).size).toBe(message.tool_calls!.length);
    }
  });

  it("chat.completions.parse with zodFunction tools gives parsed_arguments that the zod schema accepts", async () => {
    const Weather = z.object({ city: z.enum(['Paris', 'Oslo']), days: z.number().int().min(1).max(7) });
    const completion = await harness.openai().chat.completions.parse({
      model: 'tiny-chat',
      messages: base.messages,
      max_tokens: 200,
      tools: [zodFunction({ name: 'forecast', parameters: Weather })],
      tool_choice: 'required',
      seed: 4,
    });
    const calls = completion.choices[0]!.message.tool_calls ?? [];
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      if (call.type !== 'function') throw new Error('not a function call');
      expect(Weather.parse(call.function.parsed_arguments)).toEqual(call.function.parsed_arguments);
    }
  });

  it('a named tool_choice calls that tool; parallel_tool_calls false makes one call', async () => {
    for (const seed of [1, 2, 3]) {
      const completion = await harness.openai().chat.completions.create({ ...base, tool_choice: { type: 'function', function: { name: 'get_time' } }, parallel_tool_calls: false, temperature: 1, seed });
      const calls = completion.choices[0]!.message.tool_calls!;
      expect(calls).toHaveLength(1);
      const call = calls[0]!;
      if (call.type !== 'function') throw new Error('not a function call');
      expect(call.function.name).toBe('get_time');
      expectValidCall('get_time', JSON.parse(call.function.arguments));
    }
  });

  it("the SDK's stream helper reassembles streamed tool-call deltas into the same calls as the whole response, with exact usage", async () => {
    const request = { ...base, tool_choice: 'required' as const, temperature: 0.9, seed: 11 };
    const whole = await harness.openai().chat.completions.create(request);
    const stream = harness.openai().chat.completions.stream({ ...request, stream_options: { include_usage: true } });
    const deltas: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    stream.on('chunk', (chunk) => deltas.push(...(chunk.choices[0]?.delta.tool_calls ?? [])));
    const final = await stream.finalChatCompletion();
    const strip = (calls: OpenAI.ChatCompletionMessageToolCall[] | undefined) => calls?.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : []));
    expect(strip(final.choices[0]!.message.tool_calls)).toEqual(strip(whole.choices[0]!.message.tool_calls));
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.usage).toEqual(whole.usage);
    // Each call opens with its index, id and name, then streams its arguments in fragments.
    const first = deltas.filter((d) => d.id !== undefined);
    expect(first.map((d) => d.function?.name)).toEqual(whole.choices[0]!.message.tool_calls!.map((c) => (c.type === 'function' ? c.function.name : '')));
    expect(first.every((d) => d.type === 'function' && d.function?.arguments === '')).toBe(true);
    expect(deltas.filter((d) => d.id === undefined && d.function?.arguments).length).toBeGreaterThan(3);
  });

  it("tool_choice 'auto' gives a text reply or valid calls, never a broken call; 'none' gives text", async () => {
    for (const seed of [1, 2, 3]) {
      const auto = await harness.openai().chat.completions.create({ ...base, tool_choice: 'auto', temperature: 1, seed });
      const { message, finish_reason } = auto.choices[0]!;
      if (message.tool_calls?.length) {
        expect(finish_reason).toBe('tool_calls');
        for (const call of message.tool_calls) if (call.type === 'function') expectValidCall(call.function.name, JSON.parse(call.function.arguments));
      } else {
        expect(message.content!.startsWith('<tool_call>\n')).toBe(false);
      }
      const none = await harness.openai().chat.completions.create({ ...base, tool_choice: 'none', temperature: 1, seed, max_tokens: 24 });
      expect(none.choices[0]!.message.tool_calls).toBeUndefined();
      expect(none.choices[0]!.message.content!.startsWith('<tool_call>\n')).toBe(false);
    }
  });

  it('a round trip: call, tool result, final answer; the result is in the prompt of the follow-up', async () => {
    const first = await harness.openai().chat.completions.create({ ...base, tool_choice: 'required', seed: 3 });
    const message = first.choices[0]!.message;
    const results: OpenAI.ChatCompletionToolMessageParam[] = message.tool_calls!.map((call) => ({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ ok: true, forecast: 'sunny' }) }));
    const messages: OpenAI.ChatCompletionMessageParam[] = [...base.messages, message, ...results];
    const final = await harness.openai().chat.completions.create({ ...base, messages, max_tokens: 16 });
    expect(final.choices[0]!.finish_reason).toMatch(/^(stop|length|tool_calls)$/);
    // The follow-up's prompt holds the first prompt, the calls and the results.
    expect(final.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens + first.usage!.completion_tokens);
    const text = await harness.openai().chat.completions.create({ ...base, messages, tool_choice: 'none', max_tokens: 16, seed: 3 });
    expect(text.choices[0]!.message.tool_calls).toBeUndefined();
    expect(text.choices[0]!.message.content).toEqual(expect.any(String));
  });

  it('stop sequences never cut a call; max_tokens cuts it with finish_reason length and exact usage', async () => {
    const stopped = await harness.openai().chat.completions.create({ ...base, tool_choice: 'required', stop: ['"', '{', '\n'], seed: 2 });
    expect(stopped.choices[0]!.finish_reason).toBe('tool_calls');
    for (const call of stopped.choices[0]!.message.tool_calls!) if (call.type === 'function') expectValidCall(call.function.name, JSON.parse(call.function.arguments));
    const cut = await harness.openai().chat.completions.create({ ...base, tool_choice: 'required', max_tokens: 12, seed: 2 });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.usage!.completion_tokens).toBe(12);
  });

  it.each([
    [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { not: {} } } } } }] }, 'tools[0].function.parameters', "'not' cannot be enforced"],
    [{ tools: [{ type: 'function', function: { name: 'bad name' } }] }, 'tools[0].function.name', 'letters, digits'],
    [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'array' } } }] }, 'tools[0].function.parameters.type', "must be 'object'"],
    [{ tools: [{ type: 'custom', custom: { name: 'f' } }] }, 'tools[0].type', "'function'"],
    [{ tools: OPENAI_TOOLS, tool_choice: { type: 'function', function: { name: 'nope' } } }, 'tool_choice', "no tool named 'nope'"],
    [{ tool_choice: 'required' }, 'tool_choice', "only allowed when 'tools' are specified"],
    [{ tools: [...OPENAI_TOOLS, OPENAI_TOOLS[0]] }, 'tools', 'given twice'],
    [{ tools: OPENAI_TOOLS, messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_x', content: 'r' }] }, 'messages[1]', "must be a response to a preceding message with 'tool_calls'"],
    [{ messages: [{ role: 'tool', content: 'r' }] }, 'messages[0].tool_call_id', 'Missing required parameter'],
  ])('refuses %j with a 400 naming %s', async (patch, param, message) => {
    const response = await harness.fetch('https://llm.test/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'hi' }], ...patch }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string; message: string; type: string } };
    expect(body.error).toMatchObject({ param, type: 'invalid_request_error' });
    expect(body.error.message).toContain(message);
  });
});

describe('Anthropic tools on transformers.js (tiny-chat)', () => {
  beforeEach(async () => {
    harness = createHarness('fetch option', { engine: (await transformersFixture.create()).engine });
  });
  const base = { model: 'tiny-chat', max_tokens: 200, messages: [{ role: 'user' as const, content: QUESTION }], tools: ANTHROPIC_TOOLS };

  it("tool_choice 'any' gives tool_use blocks whose input matches the schema, stop_reason tool_use, no empty text block", async () => {
    for (const question of ['Weather in Paris?', 'Time in UTC?', QUESTION]) {
      const message = await harness.anthropic().messages.create({ ...base, messages: [{ role: 'user', content: question }], tool_choice: { type: 'any' } });
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content.length).toBeGreaterThan(0);
      for (const block of message.content) {
        expect(block.type).toBe('tool_use');
        if (block.type !== 'tool_use') continue;
        expect(block.id).toMatch(/^toolu_/);
        expectValidCall(block.name, block.input);
      }
    }
  });

  it("the SDK's stream helper builds the same tool_use blocks from input_json_delta events", async () => {
    const request = { ...base, tool_choice: { type: 'tool' as const, name: 'get_weather' } };
    const whole = await harness.anthropic().messages.create(request);
    const stream = harness.anthropic().messages.stream(request);
    const partials: string[] = [];
    stream.on('inputJson', (partial) => partials.push(partial));
    const final = await stream.finalMessage();
    const strip = (content: Anthropic.ContentBlock[]) => content.map((b) => (b.type === 'tool_use' ? [b.name, b.input] : [b.type]));
    expect(strip(final.content)).toEqual(strip(whole.content));
    expect(final.stop_reason).toBe('tool_use');
    expect(final.usage.output_tokens).toBe(whole.usage.output_tokens);
    expect(final.content.every((b) => b.type === 'tool_use' && b.name === 'get_weather')).toBe(true);
    expect(partials.length).toBeGreaterThan(3);
  });

  it('disable_parallel_tool_use makes exactly one call', async () => {
    for (const question of ['Weather in Paris?', QUESTION]) {
      const message = await harness.anthropic().messages.create({ ...base, messages: [{ role: 'user', content: question }], tool_choice: { type: 'any', disable_parallel_tool_use: true } });
      expect(message.content.filter((b) => b.type === 'tool_use')).toHaveLength(1);
    }
  });

  it('a round trip: tool_use, tool_result, final answer', async () => {
    const first = await harness.anthropic().messages.create({ ...base, tool_choice: { type: 'any' } });
    const results: Anthropic.ToolResultBlockParam[] = first.content.flatMap((b) => (b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'sunny, 21 degrees' }] : []));
    const messages: Anthropic.MessageParam[] = [...base.messages, { role: 'assistant', content: first.content }, { role: 'user', content: results }];
    const final = await harness.anthropic().messages.create({ ...base, messages, tool_choice: { type: 'none' }, max_tokens: 16 });
    expect(final.content[0]!.type).toBe('text');
    expect(final.stop_reason).toMatch(/^(end_turn|max_tokens)$/);
    // The whole prompt (what came from the prefix cache included) holds the first turn.
    const prompt = ({ usage }: Anthropic.Message) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0);
    expect(prompt(final)).toBeGreaterThan(prompt(first) + first.usage.output_tokens);
  });

  it.each([
    [{ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tools.0.type'],
    [{ tools: [{ name: 'f' }] }, 'tools.0.input_schema'],
    [{ tools: ANTHROPIC_TOOLS, tool_choice: { type: 'tool', name: 'nope' } }, 'tool_choice.name'],
    [{ tools: ANTHROPIC_TOOLS, tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }] }, 'messages'],
  ])('refuses %j with a 400 naming %s', async (patch, param) => {
    const response = await harness.fetch('https://llm.test/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'tiny-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], ...patch }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain(param);
  });
});

it('an engine without tool calling (the scripted test double) says so with a 400 in each flavour', async () => {
  harness = createHarness('fetch option', { engine: (await scriptedFixture.create()).engine });
  const openai = await harness
    .openai()
    .chat.completions.create({ model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], tools: OPENAI_TOOLS })
    .catch((e: unknown) => e as { status: number; error: { param: string; message: string } });
  expect(openai).toMatchObject({ status: 400, error: { param: 'tools', message: expect.stringContaining("not supported by model 'scripted-chat'") } });
  const anthropic = await harness
    .anthropic()
    .messages.create({ model: 'scripted-chat', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }], tools: ANTHROPIC_TOOLS })
    .catch((e: unknown) => e as { status: number });
  expect(anthropic).toMatchObject({ status: 400 });
});
