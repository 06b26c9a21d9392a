/**
 * A response asked for whole and the same one streamed agree: the same text, status, usage and
 * function calls, the stream's final response equal to the JSON one (ids and times aside), its
 * deltas adding up to it. Run through the gateway on every engine fixture (test/support/engines.ts):
 * the scripted engine, the same behind the worker RPC, and real transformers.js inference on the
 * tiny model, greedy (temperature 0, a seed), so that both requests decode the same tokens.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../core/engine.ts';
import { createGateway, type Gateway } from '../../../gateway/index.ts';
import { ENGINE_FIXTURES } from '../../../../test/support/engines.ts';
import { expectWellFormedEvents, parseResponsesSSE, type ResponsesEvent } from '../../../../test/support/responses-events.ts';

const BASE = 'http://app.local/v1';
const GREEDY = { temperature: 0, seed: 7 };
const WEATHER = { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'London', 'Tokyo'] } }, required: ['city'], additionalProperties: false };
const TIME = { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false };
const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'The weather in a city.', parameters: WEATHER },
  { type: 'function', name: 'get_time', description: 'The time in a zone.', parameters: TIME },
];

type Response = Record<string, unknown> & { id: string; status: string; output: Record<string, unknown>[] };

/**
 * What a response is apart from what each run draws or times: ids, call ids, the clock, and how
 * much of its prompt an earlier request had left in the engine's prefix cache (the second of two
 * equal requests finds the first's).
 */
function comparable(response: Response) {
  const { id, created_at, completed_at, output, usage, ...rest } = response;
  expect([id, created_at, completed_at].every((v) => v !== undefined && v !== null)).toBe(true);
  const counts = usage as { input_tokens: number; input_tokens_details: { cached_tokens: number } } | null;
  if (counts) expect(counts.input_tokens_details.cached_tokens).toBeLessThan(counts.input_tokens);
  return {
    ...rest,
    usage: counts && { ...counts, input_tokens_details: { ...counts.input_tokens_details, cached_tokens: expect.any(Number) } },
    output: output.map((item) => ({ ...item, id: expect.stringMatching(/^(msg|fc)_/), ...('call_id' in item ? { call_id: expect.stringMatching(/^call_/) } : {}) })),
  };
}

const textOf = (response: Response) =>
  response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content as { text: string }[])
    .map((part) => part.text)
    .join('');

describe.each(ENGINE_FIXTURES)('/responses whole and streamed agree on $name', (fixture) => {
  let engine: Engine;
  let gateway: Gateway;
  let toolCalling = false;

  beforeAll(async () => {
    ({ engine } = await fixture.create());
    gateway = createGateway({ engine, baseUrl: BASE });
    toolCalling = (await engine.listModels()).some((model) => model.id === fixture.chatModel && model.toolCalling === true);
  }, 120_000);

  const post = (body: Record<string, unknown>) =>
    gateway.fetch(new Request(`${BASE}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: fixture.chatModel, ...GREEDY, ...body }) }));

  /** The same request whole and streamed: the JSON response, the stream's events and its final response. */
  async function both(body: Record<string, unknown>) {
    const whole = await post(body);
    expect(whole.status).toBe(200);
    const json = (await whole.json()) as Response;
    const stream = await post({ ...body, stream: true });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseResponsesSSE(await stream.text());
    const final = expectWellFormedEvents(events) as Response | undefined;
    expect(final, `the stream ended with ${JSON.stringify(events.at(-1))}`).toBeDefined();
    return { json, events, final: final! };
  }

  const deltas = (events: readonly ResponsesEvent[], type: string) => events.filter((e) => e.type === type).map((e) => e.delta).join('');

  it('gives the same text, status and usage, whole and streamed', async () => {
    const { json, events, final } = await both({ instructions: 'Be brief.', input: 'Tell me about the sea.', max_output_tokens: 24 });
    expect(comparable(final)).toEqual(comparable(json));
    expect(textOf(final)).toBe(textOf(json));
    expect(deltas(events, 'response.output_text.delta')).toBe(textOf(json));
    expect(comparable(final).usage).toEqual(comparable(json).usage);
    expect((json.usage as { output_tokens: number }).output_tokens).toBeGreaterThan(0);
  });

  it('agrees on a response cut by max_output_tokens: incomplete both ways', async () => {
    const { json, events, final } = await both({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'Tell me a long story about rivers and stars.' }] }], max_output_tokens: 16 });
    // Both engines' answers run past 16 tokens here (the scripted one's is 64 tokens long).
    expect(json).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ type: 'message', status: 'incomplete' }] });
    expect(comparable(final)).toEqual(comparable(json));
    expect(events.at(-1)!.type).toBe('response.incomplete');
  });

  it('continues a conversation the same way from a whole and from a streamed first turn', async () => {
    const first = await both({ input: 'Name a colour.', max_output_tokens: 16 });
    const fromWhole = (await (await post({ previous_response_id: first.json.id, input: 'And another?', max_output_tokens: 16 })).json()) as Response;
    const fromStreamed = (await (await post({ previous_response_id: first.final.id, input: 'And another?', max_output_tokens: 16 })).json()) as Response;
    expect(fromStreamed.previous_response_id).toBe(first.final.id);
    expect(comparable({ ...fromStreamed, previous_response_id: null })).toEqual(comparable({ ...fromWhole, previous_response_id: null }));
  });

  it('makes the same function calls whole and streamed, or refuses tools the same way', async () => {
    const body = { input: 'What is the weather in Paris, and the time in UTC?', tools: TOOLS, tool_choice: 'required', max_output_tokens: 120 };
    if (!toolCalling) {
      const whole = await post(body);
      const streamed = await post({ ...body, stream: true });
      expect(whole.status).toBe(400);
      expect(streamed.status).toBe(400);
      expect(await streamed.json()).toEqual(await whole.json());
      return;
    }
    const { json, events, final } = await both(body);
    const calls = (response: Response) => response.output.filter((item) => item.type === 'function_call');
    expect(calls(json).length).toBeGreaterThan(0);
    expect(comparable(final)).toEqual(comparable(json));
    for (const call of calls(json)) expect(() => JSON.parse(call.arguments as string)).not.toThrow();
    const streamedArguments = events.filter((e) => e.type === 'response.function_call_arguments.done').map((e) => e.arguments);
    expect(streamedArguments).toEqual(calls(json).map((call) => call.arguments));
    expect(calls(final).map((call) => call.call_id)).toEqual(calls(final).map(() => expect.stringMatching(/^call_/)));
  });
});
