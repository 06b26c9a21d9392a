import { describe, expect, it } from 'vitest';
import type { Engine } from '../core/engine.ts';
import { FAULTS, withFaults } from '../../test/support/fault-engine.ts';
import { readSSE } from '../../test/support/harness.ts';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { createGateway, type GatewayOptions } from './index.ts';

const ORIGIN = 'https://llm.test';
const V_NEW = { 'anthropic-version': '2026-10-21' };
const V_OLD = { 'anthropic-version': '2023-06-01' };
const JSON_TYPE = { 'content-type': 'application/json' };
const CHAT = { model: 'scripted-chat', messages: [{ role: 'user', content: 'Say hi.' }] };
const MESSAGE = { model: 'scripted-chat', max_tokens: 16, messages: [{ role: 'user', content: 'Say hi.' }] };

function setup(options: Partial<GatewayOptions> = {}) {
  const raw = new ScriptedEngine({ answerTokens: 6 });
  const gateway = createGateway({ engine: withFaults(raw), baseUrl: '/v1', ...options });
  const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) =>
    gateway.fetch(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers: init.headers,
        body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
      }),
    );
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => call('POST', path, { headers: { ...JSON_TYPE, ...headers }, body });
  return { gateway, raw, call, post };
}

async function openaiError(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(typeof body.error.message).toBe('string');
  return body.error as { message: string; type: string; param: string | null; code: string | null };
}

async function anthropicError(response: Response) {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await response.json();
  expect(Object.keys(body).sort()).toEqual(['error', 'request_id', 'type']);
  expect(body.type).toBe('error');
  expect(Object.keys(body.error).sort()).toEqual(['message', 'type']);
  expect(body.request_id).toBe(response.headers.get('request-id'));
  return body.error as { type: string; message: string };
}

describe('routing', () => {
  it('matches a path base on any origin', () => {
    const { gateway } = setup();
    expect(gateway.baseUrl).toBe('/v1');
    expect(gateway.handles('https://a.test/v1/models')).toBe(true);
    expect(gateway.handles('http://b.test:8080/v1/chat/completions?x=1')).toBe(true);
    expect(gateway.handles('https://a.test/v1')).toBe(true);
    expect(gateway.handles('https://a.test/v2/models')).toBe(false);
    expect(gateway.handles('https://a.test/v1x/models')).toBe(false);
    expect(gateway.handles('https://a.test/')).toBe(false);
  });

  it('matches an absolute base URL on its own origin only', () => {
    const { gateway } = setup({ baseUrl: 'https://llm.test/v1' });
    expect(gateway.baseUrl).toBe('https://llm.test/v1');
    expect(gateway.handles('https://llm.test/v1/models')).toBe(true);
    expect(gateway.handles(new URL('https://llm.test/v1/messages'))).toBe(true);
    expect(gateway.handles('https://other.test/v1/models')).toBe(false);
    expect(gateway.handles('http://llm.test/v1/models')).toBe(false);
    expect(gateway.handles('https://llm.test:444/v1/models')).toBe(false);
  });

  it('strips a trailing slash from the base and supports nested bases', async () => {
    const { gateway, call } = setup({ baseUrl: '/api/v1/' });
    expect(gateway.baseUrl).toBe('/api/v1');
    expect((await call('GET', '/api/v1/models')).status).toBe(200);
    expect((await call('GET', '/v1/models')).status).toBe(404);
  });

  it('answers a request from another origin with a 404 that names the base', async () => {
    const { gateway } = setup({ baseUrl: 'https://llm.test/v1' });
    const response = await gateway.fetch(new Request('https://other.test/v1/models'));
    expect(response.status).toBe(404);
    expect((await openaiError(response)).message).toContain('outside https://llm.test/v1');
  });

  it('keeps routing with query strings', async () => {
    const { call } = setup();
    expect((await call('GET', '/v1/models?beta=true')).status).toBe(200);
  });

  it('serves /models/{id} with the id percent-decoded', async () => {
    const { call } = setup();
    const response = await call('GET', '/v1/models/scripted%2Dchat');
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe('scripted-chat');
  });

  it('answers a malformed percent-escape in the path with a 404, not a server error', async () => {
    const { call } = setup();
    for (const path of ['/v1/models/%ZZ', '/v1/models/%E0%A4%A', '/v1/models/50%']) {
      const response = await call('GET', path);
      expect(response.status).toBe(404);
      expect(response.headers.get('x-should-retry')).toBe('false');
      expect((await openaiError(response)).type).toBe('invalid_request_error');
    }
  });

  it('answers an unknown path with a 404 in the OpenAI shape', async () => {
    const { call } = setup();
    const response = await call('POST', '/v1/completions', { headers: JSON_TYPE, body: {} });
    expect(response.status).toBe(404);
    expect(await openaiError(response)).toEqual({
      message: 'Unknown request URL: POST /v1/completions.',
      type: 'invalid_request_error',
      param: null,
      code: 'unknown_url',
    });
  });

  it('answers the bare base with a 404', async () => {
    const { call } = setup();
    expect((await call('GET', '/v1')).status).toBe(404);
  });

  it('answers an unknown path with a 404 in the Anthropic shape when a version header is sent', async () => {
    const { call } = setup();
    const response = await call('GET', '/v1/files', { headers: V_NEW });
    expect(response.status).toBe(404);
    expect((await anthropicError(response)).type).toBe('not_found_error');
  });

  it('routes /messages/count_tokens apart from /messages, and answers its errors in the Anthropic shape', async () => {
    const { call } = setup();
    const counted = await call('POST', '/v1/messages/count_tokens', { headers: { ...JSON_TYPE, ...V_NEW }, body: MESSAGE });
    expect(counted.status).toBe(200);
    expect(Object.keys(await counted.json())).toEqual(['input_tokens']);
    const refused = await call('GET', '/v1/messages/count_tokens', { headers: JSON_TYPE });
    expect(refused.status).toBe(405);
    expect((await anthropicError(refused)).type).toBe('invalid_request_error');
    const unknown = await call('POST', '/v1/messages/count', { headers: JSON_TYPE, body: MESSAGE });
    expect(unknown.status).toBe(404);
    expect((await anthropicError(unknown)).type).toBe('not_found_error');
  });

  it('hints at the base URL when an Anthropic client was given one ending in /v1', async () => {
    const { post } = setup();
    const response = await post('/v1/v1/messages', MESSAGE, V_NEW);
    expect(response.status).toBe(404);
    const error = await anthropicError(response);
    expect(error.type).toBe('not_found_error');
    expect(error.message).toContain('without the trailing /v1');
    expect(error.message).toContain("here '/'");
  });

  it('hints at the origin for an absolute base', async () => {
    const { gateway } = setup({ baseUrl: 'https://llm.test/v1' });
    const response = await gateway.fetch(new Request('https://llm.test/v1/v1/messages', { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(MESSAGE) }));
    expect((await anthropicError(response)).message).toContain("here 'https://llm.test'");
  });

  it('answers a wrong method with 405 and an allow header, in the flavour of the path', async () => {
    const { call } = setup();
    const chat = await call('GET', '/v1/chat/completions');
    expect(chat.status).toBe(405);
    expect(chat.headers.get('allow')).toBe('POST');
    expect(chat.headers.get('x-should-retry')).toBe('false');
    expect((await openaiError(chat)).code).toBe('method_not_allowed');

    const models = await call('POST', '/v1/models', { headers: JSON_TYPE, body: {} });
    expect(models.status).toBe(405);
    expect(models.headers.get('allow')).toBe('GET');

    const messages = await call('DELETE', '/v1/messages');
    expect(messages.status).toBe(405);
    expect(messages.headers.get('allow')).toBe('POST');
    expect((await anthropicError(messages)).type).toBe('invalid_request_error');
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__'])('answers the method %s (an Object.prototype name) with 405', async (method) => {
    const { call } = setup();
    const response = await call(method, '/v1/models');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('answers a CORS preflight with 204 without asking for credentials', async () => {
    const { call } = setup({ apiKeys: ['sk-1'] });
    const response = await call('OPTIONS', '/v1/chat/completions', { headers: { 'access-control-request-headers': 'authorization, x-stainless-os' } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, x-stainless-os');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('headers on every response', () => {
  it('sends equal x-request-id and request-id, fresh per request, exposed to browsers', async () => {
    const { call, post } = setup({ apiKeys: ['sk-1'] });
    const responses = [
      await call('GET', '/v1/models', { headers: { authorization: 'Bearer sk-1' } }),
      await call('GET', '/v1/models'),
      await call('GET', '/nowhere'),
      await post('/v1/chat/completions', { ...CHAT, stream: true }, { authorization: 'Bearer sk-1' }),
      await post('/v1/messages', MESSAGE, { 'x-api-key': 'sk-1' }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 200, 400]);
    const ids = new Set<string>();
    for (const response of responses) {
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^req_[0-9A-Za-z]{24}$/);
      expect(response.headers.get('request-id')).toBe(id);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toContain('x-request-id');
      expect(response.headers.get('access-control-expose-headers')).toContain('request-id');
      ids.add(id!);
      await response.body?.cancel();
    }
    expect(ids.size).toBe(responses.length);
  });

  it('answers a 503 with retry-after when the response has not begun within respondWithin, and stops the waiting work', async () => {
    // An engine still "loading": it never reaches `start` until its signal is aborted.
    const waits: AbortSignal[] = [];
    const loading: Engine = {
      listModels: () => new ScriptedEngine().listModels(),
      async *chat(_request, { signal }) {
        waits.push(signal);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('stopped');
      },
      embed: (request) => new ScriptedEngine().embed(request),
    };
    const gateway = createGateway({ engine: loading });
    const ask = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      gateway.fetch(new Request(`${ORIGIN}${path}`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) }), { respondWithin: 50 });
    const started = performance.now();
    const openai = await ask('/v1/chat/completions', { ...CHAT, stream: true });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(openai.status).toBe(503);
    expect(openai.headers.get('retry-after')).toBe('5');
    expect((await openaiError(openai)).message).toMatch(/did not start answering within 0.05 s/);
    const anthropic = await ask('/v1/messages', MESSAGE, V_NEW);
    expect(anthropic.status).toBe(503);
    expect((await anthropicError(anthropic)).message).toMatch(/still loading/);
    expect(waits).toHaveLength(2);
    expect(waits.every((signal) => signal.aborted)).toBe(true);
  });

  it('does not cut a response that began within respondWithin, however long its body runs; a client abort still stops it', async () => {
    const raw = new ScriptedEngine({ answerTokens: 6, tokenDelayMs: 40 });
    const gateway = createGateway({ engine: raw });
    const request = (signal?: AbortSignal) =>
      new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ ...CHAT, stream: true }), signal });
    // 6 tokens × 40 ms is far past the 20 ms deadline, which applies to the response's start only.
    const whole = await gateway.fetch(request(), { respondWithin: 20 });
    expect(whole.status).toBe(200);
    const events = await readSSE(whole);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.some((e) => e.data.includes('"error"'))).toBe(false);

    const controller = new AbortController();
    const cut = await gateway.fetch(request(controller.signal), { respondWithin: 20 });
    const reader = cut.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    await expect.poll(() => raw.chatCalls.at(-1)?.aborted).toBe(true);
  });

  it('says x-should-retry false on deterministic 4xx errors', async () => {
    const { call, post } = setup({ maxBodyBytes: 100 });
    const responses = [
      await post('/v1/chat/completions', { ...CHAT, messages: [] }),
      await post('/v1/chat/completions', { ...CHAT, model: 'nope' }),
      await call('GET', '/v1/nope'),
      await call('PUT', '/v1/embeddings'),
      await post('/v1/embeddings', { input: 'x'.repeat(200), model: 'scripted-embed' }),
      await post('/v1/messages', MESSAGE),
    ];
    expect(responses.map((r) => r.status)).toEqual([400, 404, 404, 405, 413, 400]);
    for (const response of responses) expect(response.headers.get('x-should-retry')).toBe('false');
  });

  it('lets clients retry a crashed engine (500) and a full queue (429, retry-after)', async () => {
    const { post } = setup();
    const crash = await post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: FAULTS.crash }] });
    expect(crash.status).toBe(500);
    expect(crash.headers.get('x-should-retry')).toBe('true');
    expect((await openaiError(crash)).type).toBe('server_error');

    const busy = await post('/v1/messages', { ...MESSAGE, messages: [{ role: 'user', content: FAULTS.queueFull }] }, V_NEW);
    expect(busy.status).toBe(429);
    expect(busy.headers.get('x-should-retry')).toBe('true');
    expect(busy.headers.get('retry-after')).toBe('0');
    expect((await anthropicError(busy)).type).toBe('rate_limit_error');
  });

  it('reports a model that cannot load as 503 without retries', async () => {
    const { post } = setup();
    const response = await post('/v1/embeddings', { model: 'scripted-embed', input: FAULTS.unavailable });
    expect(response.status).toBe(503);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect((await openaiError(response)).type).toBe('service_unavailable_error');
  });
});

describe('authentication', () => {
  it('lets every caller in when no keys are configured', async () => {
    const { call } = setup();
    expect((await call('GET', '/v1/models')).status).toBe(200);
    expect((await call('GET', '/v1/models', { headers: { authorization: 'Bearer anything' } })).status).toBe(200);
  });

  it('treats an empty key list as no keys', async () => {
    const { call } = setup({ apiKeys: [] });
    expect((await call('GET', '/v1/models')).status).toBe(200);
  });

  it('answers a missing OpenAI key with 401 asking for Bearer auth', async () => {
    const { post } = setup({ apiKeys: ['sk-secret-123456'] });
    const response = await post('/v1/chat/completions', CHAT);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const error = await openaiError(response);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key', param: null });
    expect(error.message).toContain('Authorization: Bearer');
  });

  it('answers a wrong OpenAI key with 401 without echoing the whole key', async () => {
    const { post } = setup({ apiKeys: ['sk-secret-123456'] });
    const response = await post('/v1/chat/completions', CHAT, { authorization: 'Bearer sk-wrong-abcdefgh' });
    expect(response.status).toBe(401);
    const error = await openaiError(response);
    expect(error.code).toBe('invalid_api_key');
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).not.toContain('sk-wrong-abcdefgh');
  });

  it('accepts the right OpenAI key, with any capitalisation of Bearer', async () => {
    const { post } = setup({ apiKeys: ['sk-secret-123456'] });
    expect((await post('/v1/chat/completions', CHAT, { authorization: 'Bearer sk-secret-123456' })).status).toBe(200);
    expect((await post('/v1/chat/completions', CHAT, { authorization: 'bearer sk-secret-123456' })).status).toBe(200);
  });

  it('reads only Authorization: Bearer on OpenAI endpoints', async () => {
    const { post } = setup({ apiKeys: ['k1'] });
    expect((await post('/v1/chat/completions', CHAT, { 'x-api-key': 'k1' })).status).toBe(401);
    expect((await post('/v1/chat/completions', CHAT, { authorization: 'Basic k1' })).status).toBe(401);
  });

  it('answers a missing Anthropic key with 401 authentication_error naming x-api-key', async () => {
    const { post } = setup({ apiKeys: ['k1'] });
    const response = await post('/v1/messages', MESSAGE, V_NEW);
    expect(response.status).toBe(401);
    const error = await anthropicError(response);
    expect(error.type).toBe('authentication_error');
    expect(error.message).toContain('x-api-key header is required');
  });

  it('answers a wrong Anthropic key with 401 invalid x-api-key', async () => {
    const { post } = setup({ apiKeys: ['k1'] });
    const response = await post('/v1/messages', MESSAGE, { ...V_NEW, 'x-api-key': 'k2' });
    expect(response.status).toBe(401);
    expect(await anthropicError(response)).toEqual({ type: 'authentication_error', message: 'invalid x-api-key' });
  });

  it('accepts the Anthropic key as x-api-key (SDK 0.x) and as Authorization: Bearer (SDK 1.x)', async () => {
    const { post } = setup({ apiKeys: ['k1'] });
    expect((await post('/v1/messages', MESSAGE, { ...V_OLD, 'x-api-key': 'k1' })).status).toBe(200);
    expect((await post('/v1/messages', MESSAGE, { ...V_NEW, authorization: 'Bearer k1' })).status).toBe(200);
  });

  it('checks credentials before the version header', async () => {
    const { post } = setup({ apiKeys: ['k1'] });
    const response = await post('/v1/messages', MESSAGE);
    expect(response.status).toBe(401);
    expect((await anthropicError(response)).type).toBe('authentication_error');
  });

  it('answers /models in the flavour of the version header, with its auth rules', async () => {
    const { call } = setup({ apiKeys: ['k1'] });
    const anthropic = await call('GET', '/v1/models', { headers: { ...V_NEW, 'x-api-key': 'k1' } });
    expect(anthropic.status).toBe(200);
    expect(await anthropic.json()).toHaveProperty('has_more', false);
    const missing = await call('GET', '/v1/models', { headers: V_NEW });
    expect((await anthropicError(missing)).type).toBe('authentication_error');
  });

  describe('a key limited to some models', () => {
    const keys = ['full', { key: 'chat-only', models: ['scripted-chat'] }];
    const auth = { authorization: 'Bearer chat-only' };

    it('may use its models', async () => {
      const { post } = setup({ apiKeys: keys });
      expect((await post('/v1/chat/completions', CHAT, auth)).status).toBe(200);
    });

    it('gets 404 model_not_found for the others, as if they did not exist', async () => {
      const { post, call } = setup({ apiKeys: keys });
      const embed = await post('/v1/embeddings', { model: 'scripted-embed', input: 'x' }, auth);
      expect(embed.status).toBe(404);
      expect(await openaiError(embed)).toMatchObject({ code: 'model_not_found', param: 'model' });
      expect((await call('GET', '/v1/models/scripted-embed', { headers: auth })).status).toBe(404);
      const anthropic = await call('GET', '/v1/models/scripted-embed', { headers: { ...V_NEW, ...auth } });
      expect((await anthropicError(anthropic)).type).toBe('not_found_error');
    });

    it('sees only its models in both list shapes', async () => {
      const { call } = setup({ apiKeys: keys });
      const openai = await (await call('GET', '/v1/models', { headers: auth })).json();
      expect(openai.data.map((m: { id: string }) => m.id)).toEqual(['scripted-chat']);
      const anthropic = await (await call('GET', '/v1/models', { headers: { ...auth, ...V_NEW } })).json();
      expect(anthropic).toMatchObject({ has_more: false, first_id: 'scripted-chat', last_id: 'scripted-chat' });
      expect(anthropic.data).toHaveLength(1);
    });

    it('leaves an unlimited key seeing everything', async () => {
      const { call } = setup({ apiKeys: keys });
      const list = await (await call('GET', '/v1/models', { headers: { authorization: 'Bearer full' } })).json();
      expect(list.data.map((m: { id: string }) => m.id)).toEqual(['scripted-chat', 'scripted-embed', 'scripted-embed-fixed']);
    });
  });
});

describe('anthropic version header', () => {
  it('requires it on /messages, naming the header', async () => {
    const { post } = setup();
    const response = await post('/v1/messages', MESSAGE);
    expect(response.status).toBe(400);
    const error = await anthropicError(response);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain('anthropic-version');
  });

  it('rejects an unknown version', async () => {
    const { post } = setup();
    const response = await post('/v1/messages', MESSAGE, { 'anthropic-version': '1999-01-01' });
    expect(response.status).toBe(400);
    expect((await anthropicError(response)).message).toContain('"1999-01-01" is not a valid version');
  });

  it.each([
    ['anthropic-version', '2026-10-21'],
    ['anthropic-version', '2023-06-01'],
    ['vendor-version', '2026-10-21'],
    ['vendor-version', '2023-06-01'],
  ])('accepts %s: %s', async (name, value) => {
    const { post } = setup();
    const response = await post('/v1/messages', MESSAGE, { [name]: value });
    expect(response.status).toBe(200);
    expect((await response.json()).type).toBe('message');
  });

  it('rejects temperature under 2026-10-21', async () => {
    const { post } = setup();
    const response = await post('/v1/messages', { ...MESSAGE, temperature: 1 }, V_NEW);
    expect(response.status).toBe(400);
    expect((await anthropicError(response)).message).toContain('temperature');
  });

  it('accepts temperature under 2023-06-01', async () => {
    const { post, raw } = setup();
    const response = await post('/v1/messages', { ...MESSAGE, temperature: 0.2 }, V_OLD);
    expect(response.status).toBe(200);
    expect(raw.chatCalls.at(-1)!.request.temperature).toBe(0.2);
  });

  it('prefixes the field to Anthropic validation messages', async () => {
    const { post } = setup();
    const response = await post('/v1/messages', { ...MESSAGE, max_tokens: undefined }, V_NEW);
    expect(await anthropicError(response)).toEqual({ type: 'invalid_request_error', message: 'max_tokens: Field required' });
  });
});

describe('request bodies', () => {
  it('answers an over-limit body with 413 in each flavour', async () => {
    const { post } = setup({ maxBodyBytes: 200 });
    const big = { ...CHAT, pad: 'x'.repeat(500) };
    const openai = await post('/v1/chat/completions', big);
    expect(openai.status).toBe(413);
    expect(await openaiError(openai)).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    const anthropic = await post('/v1/messages', { ...MESSAGE, pad: 'x'.repeat(500) }, V_NEW);
    expect(anthropic.status).toBe(413);
    expect((await anthropicError(anthropic)).type).toBe('request_too_large');
  });

  it('accepts a body under the limit', async () => {
    const { post } = setup({ maxBodyBytes: 200 });
    expect((await post('/v1/chat/completions', CHAT)).status).toBe(200);
  });

  it('answers a non-JSON content type, invalid JSON and a JSON array with 400', async () => {
    const { call } = setup();
    const wrongType = await call('POST', '/v1/chat/completions', { headers: { 'content-type': 'text/plain' }, body: CHAT });
    const badJson = await call('POST', '/v1/chat/completions', { headers: JSON_TYPE, body: '{"model":' });
    const array = await call('POST', '/v1/messages', { headers: { ...JSON_TYPE, ...V_NEW }, body: [MESSAGE] });
    expect([wrongType.status, badJson.status, array.status]).toEqual([400, 400, 400]);
    expect((await openaiError(badJson)).type).toBe('invalid_request_error');
    expect((await anthropicError(array)).type).toBe('invalid_request_error');
  });

  it('refuses a model of the wrong kind, naming the model field', async () => {
    const { post } = setup();
    const response = await post('/v1/chat/completions', { ...CHAT, model: 'scripted-embed' });
    expect(response.status).toBe(400);
    expect((await openaiError(response)).param).toBe('model');
  });

  it('reports an over-long prompt as context_length_exceeded', async () => {
    const { post } = setup();
    const response = await post('/v1/chat/completions', { ...CHAT, messages: [{ role: 'user', content: 'word '.repeat(600) }] });
    expect(response.status).toBe(400);
    expect((await openaiError(response)).code).toBe('context_length_exceeded');
  });
});

describe('answers', () => {
  it('serves chat completions as JSON and as an SSE stream ending in [DONE]', async () => {
    const { post } = setup();
    const json = await post('/v1/chat/completions', CHAT);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json.json()).object).toBe('chat.completion');
    const stream = await post('/v1/chat/completions', { ...CHAT, stream: true });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toBe('no-cache');
    const events = await readSSE(stream);
    expect(events.every((e) => e.event === null)).toBe(true);
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  it('serves messages as an SSE stream of named events', async () => {
    const { post } = setup();
    const events = await readSSE(await post('/v1/messages', { ...MESSAGE, stream: true }, V_NEW));
    expect(events[0]!.event).toBe('message_start');
    expect(events.at(-1)!.event).toBe('message_stop');
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
  });

  it('stops the engine once a non-streaming answer hits a stop sequence or the token cap', async () => {
    const { post, raw } = setup();
    const stopped = await post('/v1/chat/completions', { ...CHAT, stop: ['brown'] });
    expect((await stopped.json()).choices[0].finish_reason).toBe('stop');
    const capped = await post('/v1/messages', { ...MESSAGE, max_tokens: 2 }, V_NEW);
    expect((await capped.json()).stop_reason).toBe('max_tokens');
    expect(raw.chatCalls.map((c) => c.aborted)).toEqual([true, true]);
  });

  it('stops the engine when the client cancels a stream', async () => {
    const raw = new ScriptedEngine({ answerTokens: 200, tokenDelayMs: 2 });
    const gateway = createGateway({ engine: raw });
    const response = await gateway.fetch(
      new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ ...CHAT, max_tokens: 200, stream: true }) }),
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(raw.chatCalls[0]!.aborted).toBe(true);
    expect(raw.chatCalls[0]!.tokens).toBeLessThan(200);
  });

  it('answers a request whose client already went away with 499, not a success', async () => {
    const { gateway } = setup();
    const controller = new AbortController();
    controller.abort();
    const response = await gateway.fetch(
      new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(CHAT), signal: controller.signal }),
    );
    expect(response.status).toBe(499);
  });

  it('reports an engine that cannot list its models as a 500', async () => {
    const broken: Engine = { listModels: () => Promise.reject(new Error('no GPU')), chat: () => [][Symbol.iterator]() as never, embed: () => Promise.reject(new Error('x')) };
    const gateway = createGateway({ engine: broken });
    const response = await gateway.fetch(new Request(`${ORIGIN}/v1/models`));
    expect(response.status).toBe(500);
    expect((await openaiError(response)).message).toBe('no GPU');
  });

  it('serves /models in the OpenAI shape without a version header and the Anthropic shape with one', async () => {
    const { call } = setup();
    const openai = await (await call('GET', '/v1/models')).json();
    expect(Object.keys(openai).sort()).toEqual(['data', 'object']);
    const anthropic = await (await call('GET', '/v1/models?limit=1', { headers: { 'vendor-version': '2023-06-01' } })).json();
    expect(Object.keys(anthropic).sort()).toEqual(['data', 'first_id', 'has_more', 'last_id']);
    expect(anthropic).toMatchObject({ has_more: true, first_id: 'scripted-chat' });
  });
});

describe('requests that need no engine', () => {
  /** An engine that never answers, as the browser's link does while no tab hosts one. */
  const absent = (): Engine & { asked: number } => {
    const engine = {
      asked: 0,
      listModels: () => (engine.asked++, new Promise<never>(() => {})),
      embed: () => new Promise<never>(() => {}),
      chat: () => ({ next: () => new Promise<never>(() => {}) }) as unknown as AsyncGenerator<never>,
    };
    return engine;
  };
  /** Settles within `ms`, or fails the test saying it waited (for the engine). */
  const within = <T>(work: Promise<T>, ms = 1000) => Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms))]);

  it('stored responses and conversations are answered without asking the engine', async () => {
    const engine = absent();
    const gateway = createGateway({ engine, baseUrl: '/v1' });
    const call = (method: string, path: string, body?: unknown) =>
      within(gateway.fetch(new Request(`${ORIGIN}${path}`, { method, headers: JSON_TYPE, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })));
    const created = await call('POST', '/v1/conversations', { items: [{ type: 'message', role: 'user', content: 'Hello.' }] });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    expect((await call('GET', `/v1/conversations/${id}`)).status).toBe(200);
    const items = (await (await call('GET', `/v1/conversations/${id}/items`)).json()) as { data: unknown[] };
    expect(items.data).toHaveLength(1);
    const missing = await call('GET', '/v1/responses/resp_none');
    expect(missing.status).toBe(404);
    expect((await openaiError(missing)).message).toBe("Response with id 'resp_none' not found.");
    expect((await call('DELETE', `/v1/conversations/${id}`)).status).toBe(200);
    expect(engine.asked).toBe(0);
  });

  it('a model the gateway knows beside the engine is served without asking it; an unknown one asks', async () => {
    const { startScriptedUpstream } = await import('../../test/support/scripted-upstream.ts');
    const upstream = await startScriptedUpstream();
    try {
      const engine = absent();
      const remote = { id: 'team-chat', kind: 'chat', engine: 'remote', contextWindow: 0, upstream: { baseURL: upstream.url, model: 'scripted-model' } } as const;
      const gateway = createGateway({ engine, baseUrl: '/v1', knownModels: () => [remote] });
      const answer = await within(
        gateway.fetch(new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ model: 'team-chat', messages: [{ role: 'user', content: 'Hi.' }] }) })),
        5000,
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-inpage-llm-served-by')).toBe('team-chat');
      expect(((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Hello there');
      expect(engine.asked).toBe(0);
      // A model it does not know is the engine's to name: that waits, as before.
      const local = gateway.fetch(new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hi.' }] }) }));
      await expect(within(local, 200)).rejects.toThrow('still waiting');
      expect(engine.asked).toBe(1);
    } finally {
      await upstream.close();
    }
  });

  it("follows a known model's fallback only to a model of its kind (one named before it could be checked)", async () => {
    const { startScriptedUpstream } = await import('../../test/support/scripted-upstream.ts');
    const gone = await startScriptedUpstream();
    await gone.close();
    const remote = (fallback: string) => ({ id: 'team-chat', kind: 'chat', engine: 'remote', contextWindow: 0, fallback, upstream: { baseURL: gone.url, model: 'scripted-model' } }) as const;
    const ask = (fallback: string) =>
      createGateway({ engine: new ScriptedEngine({ answerTokens: 2 }), baseUrl: '/v1', knownModels: () => [remote(fallback)] }).fetch(
        new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ model: 'team-chat', messages: [{ role: 'user', content: 'Hi.' }] }) }),
      );
    const served = await ask('scripted-chat');
    expect(served.status).toBe(200);
    expect(served.headers.get('x-inpage-llm-fallback-from')).toBe('team-chat');
    const refused = await ask('scripted-embed');
    expect(refused.headers.get('x-inpage-llm-served-by')).toBeNull();
    expect((await openaiError(refused)).code).toBe('upstream_unreachable');
  });
});
