/**
 * The gateway as a real HTTP server on 127.0.0.1: the official SDKs over the network (no `fetch`
 * option), on the tiny models through onnxruntime-node; then streaming, aborts and shutdown, timed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { createSSEParser, type SSEEvent } from '../core/sse.ts';
import { createGateway, createNodeEngine, serveGateway, writeTinyModels, type GatewayServer, type ModelHost } from './index.ts';

// Captured before any server starts: serveGateway must leave the process's fetch classes alone.
const { Request: GlobalRequest, Response: GlobalResponse } = globalThis;
const user = (content: string) => [{ role: 'user' as const, content }];
const JSON_TYPE = { 'content-type': 'application/json' };
const openai = (server: GatewayServer, apiKey = 'sk-local') => new OpenAI({ baseURL: server.url, apiKey, maxRetries: 0 });
// The Anthropic SDK appends /v1 itself.
const anthropic = (server: GatewayServer, apiKey = 'sk-ant-local') => new Anthropic({ baseURL: server.url.replace(/\/v1$/, ''), apiKey, maxRetries: 0 });

let dir: string;
let engine: ModelHost;
let open: GatewayServer;
let locked: GatewayServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-serve-'));
  await writeTinyModels(dir);
  engine = createNodeEngine({ localModelPath: dir });
  open = await serveGateway({ engine, port: 0 });
  locked = await serveGateway({ engine, port: 0, apiKeys: ['sk-right'], maxBodyBytes: 4096 });
});
afterAll(async () => {
  await Promise.all([open?.close(), locked?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('serveGateway with the official SDKs over HTTP (tiny models, onnxruntime-node)', () => {
  it('listens on 127.0.0.1 under /v1, leaving the global Request and Response as they were', () => {
    expect(open.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(open.url).not.toBe(locked.url);
    expect(globalThis.Request).toBe(GlobalRequest);
    expect(globalThis.Response).toBe(GlobalResponse);
  });

  it('answers a chat completion, with the request id the SDK reads from the headers', async () => {
    const { data, response, request_id } = await openai(open).chat.completions.create({ model: 'tiny-chat', max_tokens: 6, messages: user('Say hi.') }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0]!.message.role).toBe('assistant');
    expect(data.usage!.completion_tokens).toBeGreaterThan(0);
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(request_id).toMatch(/^req_/);
    expect(response.headers.get('request-id')).toBe(request_id);
  });

  it('streams a chat completion, usage last', async () => {
    const stream = await openai(open).chat.completions.create({ model: 'tiny-chat', max_tokens: 12, stream: true, stream_options: { include_usage: true }, messages: user('Count.') });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(chunks.filter((c) => c.choices[0]?.finish_reason).length).toBe(1);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('embeds as float and as base64 (the SDK default), the same vectors', async () => {
    const client = openai(open);
    const input = ['the cat sleeps', 'a dog runs'];
    const float = await client.embeddings.create({ model: 'tiny-embed', input, encoding_format: 'float' });
    const decoded = await client.embeddings.create({ model: 'tiny-embed', input });
    const raw = await client.embeddings.create({ model: 'tiny-embed', input: input[0]!, encoding_format: 'base64' });
    expect(float.data.map((d) => d.index)).toEqual([0, 1]);
    expect(float.data[0]!.embedding).toHaveLength(32);
    expect(decoded.data.map((d) => d.embedding)).toEqual(float.data.map((d) => d.embedding.map(Math.fround)));
    const bytes = Buffer.from(raw.data[0]!.embedding as unknown as string, 'base64');
    expect(bytes.byteLength).toBe(4 * 32);
    expect([...new Float32Array(bytes.buffer, bytes.byteOffset, 32)]).toEqual(float.data[0]!.embedding.map(Math.fround));
  });

  it('answers an Anthropic message, whole and streamed', async () => {
    const client = anthropic(open);
    const message = await client.messages.create({ model: 'tiny-chat', max_tokens: 6, messages: user('Say hi.') });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text' }] });
    expect(message.id).toMatch(/^msg_/);

    const stream = client.messages.stream({ model: 'tiny-chat', max_tokens: 10, messages: user('Count.') });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(await stream.finalText()).toBe(text);
  });

  it('lists the models in both shapes, and finds one by id', async () => {
    const ids = (await openai(open).models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['tiny-chat', 'tiny-embed']));
    expect((await openai(open).models.retrieve('tiny-embed')).id).toBe('tiny-embed');
    const page = await anthropic(open).models.list();
    expect(page.data.map((m) => m.id)).toEqual(ids);
    expect(page.data[0]).toMatchObject({ type: 'model', display_name: expect.any(String) });
    await expect(openai(open).models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers paths outside /v1 exactly as the gateway does in the browser', async () => {
    const inPage = createGateway({ engine, baseUrl: '/v1' });
    const origin = new URL(open.url).origin;
    for (const headers of [{}, { 'anthropic-version': '2023-06-01' }] as Record<string, string>[]) {
      const overHttp = await fetch(`${origin}/nope`, { headers });
      const direct = await inPage.fetch(new Request(`${origin}/nope`, { headers }));
      expect(overHttp.status).toBe(404);
      expect(overHttp.status).toBe(direct.status);
      // Request ids differ per response; every other byte of the body is the same.
      const strip = (text: string) => text.replace(/req_\w+/g, 'req_');
      expect(strip(await overHttp.text())).toBe(strip(await direct.text()));
      for (const name of ['content-type', 'x-should-retry', 'access-control-expose-headers']) {
        expect(overHttp.headers.get(name), name).toBe(direct.headers.get(name));
      }
      // CORS is the one difference: the server's own policy (serve-access.test.ts), where the
      // gateway in a page allows every origin. Without a key and without an Origin, none is named.
      expect(direct.headers.get('access-control-allow-origin')).toBe('*');
      expect(overHttp.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('answers a request its HTTP layer cannot read in the OpenAI error shape', async () => {
    // A backslash in the path: the adapter refuses to build a URL from it.
    const { status, body } = await rawRequest(open.url, 'GET /v1/models\\..\\x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
    expect(status).toBe(400);
    expect(JSON.parse(body)).toEqual({ error: { message: expect.stringMatching(/^The request could not be read: /), type: 'invalid_request_error', param: null, code: null } });
  });
});

describe('serveGateway with API keys and a body cap', () => {
  it('refuses a caller without a key in each flavour, and lets the right key in', async () => {
    const noKey = { headers: { authorization: null } };
    const oa = openai(locked, 'sk-right');
    const an = anthropic(locked, 'sk-right');
    await expect(oa.models.list(noKey)).rejects.toMatchObject({ status: 401, constructor: OpenAI.AuthenticationError });
    await expect(oa.chat.completions.create({ model: 'tiny-chat', max_tokens: 2, messages: user('hi') }, noKey)).rejects.toMatchObject({ status: 401 });
    await expect(an.messages.create({ model: 'tiny-chat', max_tokens: 2, messages: user('hi') }, noKey)).rejects.toMatchObject({
      status: 401,
      constructor: Anthropic.AuthenticationError,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    await expect(openai(locked, 'sk-wrong').models.list()).rejects.toMatchObject({ status: 401 });

    expect((await oa.models.list()).data.length).toBeGreaterThan(0);
    expect((await oa.chat.completions.create({ model: 'tiny-chat', max_tokens: 2, messages: user('hi') })).object).toBe('chat.completion');
    expect((await an.messages.create({ model: 'tiny-chat', max_tokens: 2, messages: user('hi') })).type).toBe('message');
  });

  it('answers 413 past maxBodyBytes, with or without a Content-Length', async () => {
    const headers = { ...JSON_TYPE, authorization: 'Bearer sk-right' };
    const body = JSON.stringify({ model: 'tiny-chat', messages: user('x'.repeat(8000)) });
    const declared = await fetch(`${locked.url}/chat/completions`, { method: 'POST', headers, body });
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.code).toBe('request_too_large');
    // A streamed body has no Content-Length: the gateway counts bytes as they arrive.
    const chunked = await fetch(`${locked.url}/chat/completions`, { method: 'POST', headers, body: new Blob([body]).stream(), duplex: 'half' } as RequestInit);
    expect(chunked.status).toBe(413);
  });
});

// The timing tests use the scripted engine (a test double) for its fixed token pace and its record
// of each call's abort signal; the tiny model answers too fast to see a stream spread out. The real
// engine's side of an abort (the signal stopping transformers.js) is covered in src/engines.
describe('serveGateway streaming, aborts and shutdown (scripted engine, paced tokens)', () => {
  it('sends each event as it is generated, not all at the end', async () => {
    const scripted = new ScriptedEngine({ tokenDelayMs: 80, answerTokens: 8 });
    const server = await serveGateway({ engine: scripted, port: 0 });
    try {
      const started = performance.now();
      const response = await post(server, { model: 'scripted-chat', stream: true, messages: user('Go.') });
      const arrivals = (await readTimedSSE(response)).map((e) => ({ ...e, at: e.at - started }));
      const tokens = arrivals.filter((e) => e.data !== '[DONE]' && JSON.parse(e.data).choices[0]?.delta?.content);
      expect(tokens).toHaveLength(8);
      // Eight tokens 80 ms apart: buffered, they would all arrive at once, after the last. (Not
      // every gap is asserted: a busy machine may merge two events into one read.)
      expect(tokens.at(-1)!.at - tokens[0]!.at).toBeGreaterThan(7 * 80 * 0.7);
      expect(new Set(tokens.map((e) => e.at)).size).toBeGreaterThanOrEqual(6);
    } finally {
      await server.close();
    }
  });

  // Mid-stream, the adapter both cancels the response body and fires the Request's signal (either
  // stops the engine); before the first byte only the signal can, which the next test covers.
  it('aborts the engine call when the client goes away mid-stream', async () => {
    const scripted = new ScriptedEngine({ tokenDelayMs: 30, answerTokens: 200 });
    const server = await serveGateway({ engine: scripted, port: 0 });
    try {
      const client = new AbortController();
      const response = await post(server, { model: 'scripted-chat', stream: true, max_tokens: 200, messages: user('Go.') }, client.signal);
      const reader = response.body!.getReader();
      await reader.read();
      client.abort();
      // Stopped early: a natural end would be 200 tokens (and fires the signal too).
      await vi.waitFor(() => expect(scripted.chatCalls[0]?.aborted).toBe(true), { timeout: 2000 });
      expect(scripted.chatCalls[0]!.tokens).toBeLessThan(50);
    } finally {
      await server.close();
    }
  });

  it('aborts the engine call when the client leaves before a non-streamed answer', async () => {
    const scripted = new ScriptedEngine({ tokenDelayMs: 30, answerTokens: 200 });
    const server = await serveGateway({ engine: scripted, port: 0 });
    try {
      const client = AbortSignal.timeout(150);
      await expect(post(server, { model: 'scripted-chat', max_tokens: 200, messages: user('Go.') }, client)).rejects.toThrow();
      // Stopped early: a natural end would be 200 tokens (and fires the signal too).
      await vi.waitFor(() => expect(scripted.chatCalls[0]?.aborted).toBe(true), { timeout: 2000 });
      expect(scripted.chatCalls[0]!.tokens).toBeLessThan(50);
    } finally {
      await server.close();
    }
  });

  it('close() lets a stream in flight finish, refuses new connections, and resolves', async () => {
    const scripted = new ScriptedEngine({ tokenDelayMs: 60, answerTokens: 10 });
    const server = await serveGateway({ engine: scripted, port: 0 });
    const response = await post(server, { model: 'scripted-chat', stream: true, messages: user('Go.') });
    const events = readTimedSSE(response);
    await vi.waitFor(() => expect(scripted.chatCalls[0]?.tokens).toBeGreaterThan(0));
    let closedAt = 0;
    const closing = server.close().then(() => (closedAt = performance.now()));
    await expect(fetch(`${server.url}/models`)).rejects.toThrow();
    const done = await events;
    const endedAt = performance.now();
    expect(done.at(-1)!.data).toBe('[DONE]');
    expect(done.filter((e) => e.data !== '[DONE]' && JSON.parse(e.data).choices[0]?.delta?.content)).toHaveLength(10);
    // All ten tokens: the engine was not stopped (its signal fires after a natural end too, so the count tells).
    expect(scripted.chatCalls[0]!.tokens).toBe(10);
    await closing;
    expect(closedAt).toBeGreaterThanOrEqual(done.at(-1)!.at);
    // The client's kept-alive connection is closed once its response ends, not after Node's 5 s keep-alive timeout.
    expect(closedAt - endedAt).toBeLessThan(1000);
  });

  it('close() cuts a stream that outlasts shutdownTimeoutMs, aborting its engine call', async () => {
    const scripted = new ScriptedEngine({ tokenDelayMs: 50, answerTokens: 200 });
    const server = await serveGateway({ engine: scripted, port: 0, shutdownTimeoutMs: 300 });
    const response = await post(server, { model: 'scripted-chat', stream: true, max_tokens: 200, messages: user('Go.') });
    const events = readTimedSSE(response).catch((error: unknown) => error);
    await vi.waitFor(() => expect(scripted.chatCalls[0]?.tokens).toBeGreaterThan(0));
    const started = performance.now();
    await server.close();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
    expect(await events).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(scripted.chatCalls[0]!.aborted).toBe(true));
    expect(scripted.chatCalls[0]!.tokens).toBeLessThan(20);
  });
});

function post(server: GatewayServer, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${server.url}/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
}

/** Every SSE event of a response with the time it arrived (performance.now()). */
async function readTimedSSE(response: Response): Promise<(SSEEvent & { at: number })[]> {
  const parser = createSSEParser();
  const decoder = new TextDecoder();
  const out: (SSEEvent & { at: number })[] = [];
  for await (const chunk of response.body!) {
    const at = performance.now();
    for (const event of parser.feed(decoder.decode(chunk, { stream: true }))) out.push({ ...event, at });
  }
  return out;
}

/** Sends raw bytes (what fetch would refuse to send) and reads the status and body of the answer. */
function rawRequest(url: string, text: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let received = '';
    socket.on('data', (data) => (received += data.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), body });
    });
  });
}
