/**
 * `serveGateway`'s limits over real HTTP on 127.0.0.1: what Node's own parser refuses comes back
 * as JSON, the header and request timeouts act on time, and requests past `maxRequests` are held
 * and refused without their body being read. The scripted engine (a test double) gives streams a
 * fixed pace and a record of every call; what is under test is the HTTP layer in front of it.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, rawRequest, rawUpload } from '../../test/support/raw-http.ts';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { serveGateway, type GatewayServer } from './index.ts';

const stream = (tokens: number) => JSON.stringify({ model: 'scripted-chat', stream: true, max_tokens: tokens, messages: [{ role: 'user', content: 'Go.' }] });
const post = (server: GatewayServer, body: string) => fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
/**
 * A POST on a connection of its own, the answer read whole: its status, or undefined when `stop`
 * cut it. (fetch's pool would keep connections it opened for requests cut before they were sent,
 * and close() would wait for them.)
 */
const postOnce = (server: GatewayServer, body: string, stop: AbortSignal) =>
  new Promise<number | undefined>((resolve) => {
    const request = httpRequest(`${server.url}/chat/completions`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' }, signal: stop }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode));
    });
    request.once('error', () => resolve(undefined));
    request.end(body);
  });
/** A POST whose headers promise a body that is never sent: only a server that never reads it can answer. */
const promised = (path: string, extra: string[] = []) =>
  rawRequest([`POST /v1${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 1000', ...extra]);

describe('what Node’s HTTP parser refuses, and its timeouts', () => {
  let server: GatewayServer;
  beforeAll(async () => {
    server = await serveGateway({ engine: new ScriptedEngine(), port: 0, headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
  });
  afterAll(() => server?.close());

  it.each([
    ['a NUL byte in a header', ['GET /v1/models HTTP/1.1', 'Host: 127.0.0.1', 'X-Note: a\0b'], 400, /^The request is not valid HTTP: /],
    ['both Content-Length and Transfer-Encoding', ['POST /v1/chat/completions HTTP/1.1', 'Host: 127.0.0.1', 'Content-Length: 3', 'Transfer-Encoding: chunked'], 400, /^The request is not valid HTTP: /],
    ['20 KB of headers', ['GET /v1/models HTTP/1.1', 'Host: 127.0.0.1', `X-Big: ${'x'.repeat(20_000)}`], 431, /headers are too large/],
  ])('answers %s with a JSON error, not an empty body', async (_, lines, status, message) => {
    const answer = await rawExchange(server.url, rawRequest(lines));
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual({ error: { message: expect.stringMatching(message), type: 'invalid_request_error', param: null, code: status === 431 ? 'request_too_large' : null } });
  });

  it('answers a malformed request on a kept-alive connection after a good one, too', async () => {
    const good = rawRequest(['GET /v1/models HTTP/1.1', 'Host: 127.0.0.1']);
    const bad = rawRequest(['GET /v1/models HTTP/1.1', 'Host: 127.0.0.1', 'X: a\0b']);
    // The second once the first is answered: a pipelined one would be answered before it, as by Node.
    const answer = await rawExchange(server.url, good, { keepOpen: true, socket: (socket) => socket.once('data', () => socket.end(bad)) });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/HTTP\/1\.1 400 Bad Request[^]*"The request is not valid HTTP: /);
  });

  it('drops headers that never finish within a check interval of headersTimeoutMs, with a JSON 408', async () => {
    const answer = await rawExchange(server.url, 'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', { keepOpen: true });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error.message).toMatch(/not received in time/);
    // Node's own check runs every 30 s; here it runs often enough to act within a second of the limit.
    expect(answer.ms).toBeGreaterThanOrEqual(950);
    expect(answer.ms).toBeLessThan(2500);
  });

  it('drops a body that stops coming at requestTimeoutMs, with a JSON 408', async () => {
    const answer = await rawExchange(server.url, `${promised('/embeddings')}{"model":`, { keepOpen: true });
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeGreaterThanOrEqual(1950);
    expect(answer.ms).toBeLessThan(3500);
  });
});

describe('answers sent before their body was read', () => {
  it('reach a client that sends its whole body first: a 50 MB chunked body, no Content-Length, gets its 413 every time', async () => {
    const server = await serveGateway({ engine: new ScriptedEngine(), port: 0 });
    try {
      const head = ['POST /v1/chat/completions HTTP/1.1', 'Host: 127.0.0.1', 'Content-Type: application/json'];
      // 800 pieces of 64 KiB, 2 ms apart: the 413 is sent at 16 MiB, while most of the body is still to come.
      for (let run = 0; run < 3; run++) expect(await rawUpload(server.url, head, { chunks: 800, delayMs: 2 })).toEqual({ status: 413 });
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('requests past maxRequests', () => {
  let engine: ScriptedEngine;
  let server: GatewayServer;
  beforeAll(async () => {
    engine = new ScriptedEngine({ tokenDelayMs: 50, answerTokens: 200 });
    server = await serveGateway({ engine, port: 0, maxRequests: 1 });
  });
  afterAll(() => server?.close());

  it('holds one for up to a second, body unread, then refuses it with a 429 in its flavour', async () => {
    const running = post(server, stream(30)).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [openai, anthropic] = await Promise.all([rawExchange(server.url, promised('/chat/completions'), { keepOpen: true }), rawExchange(server.url, promised('/messages', ['anthropic-version: 2023-06-01']), { keepOpen: true })]);
    for (const answer of [openai, anthropic]) {
      expect(answer.status).toBe(429);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers.connection).toBe('close');
      expect(answer.ms).toBeGreaterThanOrEqual(900);
      expect(answer.ms).toBeLessThan(2000);
    }
    expect(JSON.parse(openai.body)).toEqual({ error: { message: expect.stringMatching(/--max-requests/), type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    await running;
    // Only the admitted request reached the engine.
    expect(engine.chatCalls.filter((c) => c.request.messages[0]!.content === 'Go.')).toHaveLength(1);
  });

  it('admits a held request as soon as a place is free, and forgets one whose client left', async () => {
    const first = post(server, stream(12)).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 100));
    // This one gives up while held: it must not keep the place it would have been given.
    const leaving = rawExchange(server.url, promised('/chat/completions'), { keepOpen: true, socket: (socket) => setTimeout(() => socket.destroy(), 100) }).catch(() => undefined);
    const held = post(server, stream(2));
    await leaving;
    const second = await held;
    expect(second.status).toBe(200);
    expect(await second.text()).toMatch(/\[DONE\]/);
    await first;
    const started = performance.now();
    const next = await post(server, stream(2));
    expect(next.status).toBe(200);
    await next.text();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('answers 40 clients that ignore retry-after about once a second each, while the admitted stream keeps its pace', async () => {
    const response = await post(server, stream(40));
    const reader = response.body!.getReader();
    const arrivals: number[] = [];
    const reading = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return;
        arrivals.push(performance.now());
      }
    })();
    const stop = AbortSignal.timeout(1500);
    const statuses: number[] = [];
    const flood = async () => {
      while (!stop.aborted) {
        const status = await postOnce(server, stream(2), stop);
        if (status !== undefined) statuses.push(status);
      }
    };
    await Promise.all(Array.from({ length: 40 }, flood));
    const answered = statuses.length;
    expect(new Set(statuses)).toEqual(new Set([429]));
    await reading;
    // 1.5 s at one answer a second each: 40 at once, then at most one more each.
    expect(answered).toBeLessThanOrEqual(80);
    // 40 tokens 50 ms apart: about 2 s, flood or not.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeLessThan(39 * 50 * 1.5);
  });
});
