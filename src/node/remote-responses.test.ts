/**
 * `POST /responses` and `POST /messages/count_tokens` for remote models: a Responses request is
 * answered by the chat path, so a remote model's upstream is sent a chat completion (an upstream
 * that speaks only OpenAI chat completions: the scripted one, test/support/scripted-upstream.ts)
 * or a Messages request (one that speaks only Anthropic: the project's own Node server on the tiny
 * models, set to be spoken to in Anthropic only), and its answer comes back as a response object
 * or a Responses event stream. Every request the front sends upstream is recorded through the
 * gateway's `fetch` option, so a test can read what each upstream was sent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream } from '../../test/support/scripted-upstream.ts';
import { expectWellFormedEvents, parseResponsesSSE, type ResponsesEvent } from '../../test/support/responses-events.ts';
import { createGateway, createNodeEngine, serveGateway, writeTinyModels, type Gateway, type GatewayServer, type ModelEntry } from './index.ts';

const FRONT = 'http://front.test/v1';
const WEATHER = { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'London', 'Tokyo'] } }, required: ['city'], additionalProperties: false };

let dir: string;
let upstream: GatewayServer;
let scripted: ScriptedUpstream;
let front: Gateway;
/** What the front sent upstream: every POST, with its URL and JSON body. */
let sent: { url: string; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-remote-responses-'));
  await writeTinyModels(dir);
  upstream = await serveGateway({ engine: createNodeEngine({ localModelPath: dir }), port: 0 });
  scripted = await startScriptedUpstream();
  const models: ModelEntry[] = [
    { engine: 'remote', id: 'chat-only', upstream: { baseURL: scripted.url, model: 'scripted-model', speaks: ['openai'] } },
    { engine: 'remote', id: 'messages-only', upstream: { baseURL: upstream.url, model: 'tiny-chat', speaks: ['anthropic'] } },
  ];
  const recording: typeof fetch = async (input, init) => {
    if (init?.method === 'POST') sent.push({ url: String(input), body: JSON.parse(String(init.body)) as Record<string, unknown> });
    return fetch(input, init);
  };
  front = createGateway({ engine: createNodeEngine({ localModelPath: dir, models }), baseUrl: FRONT, fetch: recording });
});

beforeEach(() => {
  sent = [];
});

afterAll(async () => {
  await Promise.all([upstream?.close(), scripted?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  front.fetch(new Request(`${FRONT}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }));

/** A response object's text: its message items' output_text parts. */
function textOf(response: { output: readonly Record<string, unknown>[] }): string {
  return response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content as { text: string }[])
    .map((part) => part.text)
    .join('');
}

async function streamed(response: Response): Promise<{ events: ResponsesEvent[]; final: Record<string, unknown> | undefined }> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = parseResponsesSSE(await response.text());
  return { events, final: expectWellFormedEvents(events) };
}

const deltas = (events: readonly ResponsesEvent[]) => events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta);

describe('/responses for a remote model whose upstream speaks only OpenAI chat completions', () => {
  it('sends the upstream a chat completion and answers with a response object', async () => {
    scripted.reply = () => ({ chunks: ['Hello', ' there'] });
    const answer = await post('/responses', { model: 'chat-only', instructions: 'Be brief.', input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi.' }] }], max_output_tokens: 20, temperature: 0 });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-inpage-llm-served-by')).toBe('chat-only');
    expect(answer.headers.get('x-inpage-llm-upstream')).toBe(scripted.url);
    const response = (await answer.json()) as Record<string, unknown> & { output: Record<string, unknown>[] };
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'chat-only',
      instructions: 'Be brief.',
      max_output_tokens: 20,
      output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello there', annotations: [] }] }],
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    });
    expect(response.id).toMatch(/^resp_/);

    expect(sent).toEqual([
      {
        url: `${scripted.url}/chat/completions`,
        // `max_tokens`: what every OpenAI-compatible server reads (llama.cpp's ignores `max_completion_tokens`).
        body: { model: 'scripted-model', max_tokens: 20, temperature: 0, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi.' }] },
      },
    ]);
    // The stored response continues the conversation: its answer is the assistant turn of the next.
    const next = await post('/responses', { model: 'chat-only', previous_response_id: response.id, input: 'And then?' });
    expect(next.status).toBe(200);
    expect(sent[1]!.body.messages).toEqual([
      { role: 'user', content: 'Hi.' },
      { role: 'assistant', content: 'Hello there' },
      { role: 'user', content: 'And then?' },
    ]);
  });

  it('streams the upstream’s chunks as Responses events, usage asked of the upstream and reported at the end', async () => {
    scripted.reply = () => ({ chunks: ['one', ' two', ' three'] });
    const { events, final } = await streamed(await post('/responses', { model: 'chat-only', input: 'Count.', stream: true }));
    expect(deltas(events)).toEqual(['one', ' two', ' three']);
    expect(final).toMatchObject({ status: 'completed', model: 'chat-only', usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 } });
    expect(textOf(final as never)).toBe('one two three');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`${scripted.url}/chat/completions`);
    expect(sent[0]!.body).toMatchObject({ model: 'scripted-model', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Count.' }] });

    // What the official client's stream helper makes of the same stream.
    const client = new OpenAI({ apiKey: 'sk-local', baseURL: FRONT, maxRetries: 0, fetch: (input, init) => front.fetch(new Request(input, init)) });
    const final2 = await client.responses.stream({ model: 'chat-only', input: 'Count.' }).finalResponse();
    expect(final2.output_text).toBe('one two three');
    expect(final2.usage).toMatchObject({ input_tokens: 5, output_tokens: 3 });
  });

  it('ends a stream the upstream breaks off with one error event, and keeps no response', async () => {
    scripted.reply = () => ({ chunks: ['one', ' two', ' three'], chunkDelayMs: 20, cutAfter: 2 });
    const { events, final } = await streamed(await post('/responses', { model: 'chat-only', input: 'Count.', stream: true }));
    expect(final).toBeUndefined();
    expect(deltas(events)).toEqual(['one', ' two']);
    expect(events.at(-1)).toMatchObject({ type: 'error', code: 'upstream_unreachable', message: expect.stringContaining(`The upstream ${scripted.url} broke off the stream`) });
    const id = (events[0]!.response as { id: string }).id;
    expect((await front.fetch(new Request(`${FRONT}/responses/${id}`))).status).toBe(404);
  });

  it('answers an upstream failure with its status, in the OpenAI error shape', async () => {
    scripted.reply = () => ({ status: 429, headers: { 'retry-after': '7' }, body: { error: { message: 'Rate limit reached for requests.', type: 'rate_limit_error', code: 'rate_limit_exceeded' } } });
    const answer = await post('/responses', { model: 'chat-only', input: 'Hi.' });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(await answer.json()).toEqual({
      error: { message: `The upstream ${scripted.url} answered 429 Too Many Requests: Rate limit reached for requests.`, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' },
    });
  });
});

describe('/responses for a remote model whose upstream speaks only Anthropic messages', () => {
  const ask = { model: 'messages-only', instructions: 'Be brief.', input: 'Tell me about the sea.', max_output_tokens: 16, temperature: 0 };
  /** The same question asked of the upstream directly, in its own flavour. */
  const direct = async () => {
    const answer = await fetch(`${upstream.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'tiny-chat', max_tokens: 16, temperature: 0, system: 'Be brief.', messages: [{ role: 'user', content: 'Tell me about the sea.' }] }),
    });
    return (await answer.json()) as { content: { type: string; text: string }[]; usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number }; stop_reason: string };
  };

  it('sends the upstream a Messages request and answers with what it said, as a response object', async () => {
    const expected = await direct();
    sent = [];
    const answer = await post('/responses', ask);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-inpage-llm-served-by')).toBe('messages-only');
    expect(answer.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    const response = (await answer.json()) as Record<string, unknown> & { output: Record<string, unknown>[] };
    expect(textOf(response)).toBe(expected.content.map((block) => block.text).join(''));
    expect(response).toMatchObject({
      model: 'messages-only',
      status: expected.stop_reason === 'max_tokens' ? 'incomplete' : 'completed',
      usage: { input_tokens: expected.usage.input_tokens, output_tokens: expected.usage.output_tokens, total_tokens: expected.usage.input_tokens + expected.usage.output_tokens },
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`${upstream.url}/messages`);
    expect(sent[0]!.body).toMatchObject({ model: 'tiny-chat', max_tokens: 16, temperature: 0, system: 'Be brief.', messages: [{ role: 'user' }] });
    expect(sent[0]!.body).not.toHaveProperty('input');
    expect(sent[0]!.body).not.toHaveProperty('instructions');
  });

  it('streams the translated Anthropic events as Responses events with the same text and usage', async () => {
    const expected = await direct();
    sent = [];
    const { events, final } = await streamed(await post('/responses', { ...ask, stream: true }));
    expect(final).toBeDefined();
    expect(deltas(events).join('')).toBe(expected.content.map((block) => block.text).join(''));
    expect(textOf(final as never)).toBe(expected.content.map((block) => block.text).join(''));
    // Responses counts the whole prompt; Anthropic counts what came from its prefix cache apart.
    expect(final!.usage).toMatchObject({ input_tokens: expected.usage.input_tokens + (expected.usage.cache_read_input_tokens ?? 0), output_tokens: expected.usage.output_tokens });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe(`${upstream.url}/messages`);
    expect(sent[0]!.body).toMatchObject({ model: 'tiny-chat', stream: true });
  });

  it('carries function tools there and back: a function_call item, JSON and streamed alike', async () => {
    const tools = [{ type: 'function', name: 'get_weather', description: 'The weather in a city.', parameters: WEATHER }];
    const body = { input: 'What is the weather in Paris?', tools, tool_choice: 'required', max_output_tokens: 120, temperature: 0 };
    const whole = (await (await post('/responses', { model: 'messages-only', ...body })).json()) as { output: Record<string, unknown>[] };
    const calls = whole.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ type: 'function_call', name: 'get_weather', status: 'completed', call_id: expect.any(String) })]);
    const args = JSON.parse(calls[0]!.arguments as string) as { city: string };
    expect(['Paris', 'London', 'Tokyo']).toContain(args.city);
    expect(sent[0]!.body).toMatchObject({ tools: [{ name: 'get_weather', description: 'The weather in a city.', input_schema: WEATHER }], tool_choice: { type: 'any' } });

    const { events, final } = await streamed(await post('/responses', { model: 'messages-only', ...body, stream: true }));
    const streamedCalls = (final!.output as Record<string, unknown>[]).filter((item) => item.type === 'function_call');
    expect(streamedCalls.map((call) => [call.name, JSON.parse(call.arguments as string)])).toEqual([['get_weather', args]]);
    expect(events.map((e) => e.type)).toContain('response.function_call_arguments.done');
  });
});

describe('/messages/count_tokens for remote models', () => {
  const count = { messages: [{ role: 'user', content: 'Count these words, please.' }], system: 'Be brief.' };
  const anthropicHeaders = { 'anthropic-version': '2023-06-01' };

  it('passes the request through to an Anthropic upstream and gives back its count', async () => {
    const direct = await fetch(`${upstream.url}/messages/count_tokens`, { method: 'POST', headers: { 'content-type': 'application/json', ...anthropicHeaders }, body: JSON.stringify({ model: 'tiny-chat', ...count }) });
    const expected = (await direct.json()) as { input_tokens: number };
    expect(expected.input_tokens).toBeGreaterThan(0);
    sent = [];
    const answer = await post('/messages/count_tokens', { model: 'messages-only', ...count }, anthropicHeaders);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-inpage-llm-served-by')).toBe('messages-only');
    expect(await answer.json()).toEqual(expected);
    expect(sent).toEqual([{ url: `${upstream.url}/messages/count_tokens`, body: { model: 'tiny-chat', ...count } }]);
  });

  it('is a 400 naming the reason for a model whose upstream speaks only OpenAI, which sends nothing upstream', async () => {
    const before = scripted.posts().length;
    const answer = await post('/messages/count_tokens', { model: 'chat-only', ...count }, anthropicHeaders);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: "Token counting is not available for model 'chat-only': its server speaks only the OpenAI API, which has no token counting." },
      request_id: answer.headers.get('request-id'),
    });
    expect(sent).toEqual([]);
    expect(scripted.posts()).toHaveLength(before);
  });
});
