/**
 * Who may reach `serveGateway` over real HTTP on 127.0.0.1 (tiny models, onnxruntime-node): which
 * web pages (CORS, by `Origin`) and which host names (`Host`, the DNS rebinding guard), by default
 * without a key, widened by the options, and with a key.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, rawRequest } from '../../test/support/raw-http.ts';
import { createNodeEngine, serveGateway, writeTinyModels, type GatewayServer } from './index.ts';

const EVIL = 'https://evil.example';
// The same body serves both flavours' endpoints.
const chat = JSON.stringify({ model: 'tiny-chat', max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] });

let dir: string;
let open: GatewayServer;
let widened: GatewayServer;
let anyone: GatewayServer;
let keyed: GatewayServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-access-'));
  await writeTinyModels(dir);
  const engine = createNodeEngine({ localModelPath: dir });
  [open, widened, anyone, keyed] = await Promise.all([
    serveGateway({ engine, port: 0 }),
    serveGateway({ engine, port: 0, corsOrigins: [EVIL], allowedHosts: ['evil.example', '.lan'] }),
    serveGateway({ engine, port: 0, corsOrigins: ['*'], allowedHosts: ['*'] }),
    serveGateway({ engine, port: 0, apiKeys: ['sk-right'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([open, widened, anyone, keyed].map((server) => server?.close()));
  await rm(dir, { recursive: true, force: true });
});

const post = (server: GatewayServer, path: string, body: string, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const preflight = (server: GatewayServer, origin: string, extra: Record<string, string> = {}) =>
  fetch(`${server.url}/chat/completions`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization', ...extra } });

/**
 * A GET of /v1/models naming `host` in its Host header (fetch will not forge one). The client keeps
 * its side open, as browsers and SDKs do: Node takes a client's half-close as the client gone and
 * drops the answer if it is not written yet (how a closed tab stops its generation).
 */
const withHost = (server: GatewayServer, host: string, headers: string[] = []) =>
  rawExchange(server.url, rawRequest(['GET /v1/models HTTP/1.1', `Host: ${host}`, ...headers, 'Connection: close']), { keepOpen: true });

describe('CORS: which pages may call the server', () => {
  it('refuses a page of another site without a key, in each flavour, and its preflight', async () => {
    const openai = await post(open, '/chat/completions', chat, { origin: EVIL });
    expect(openai.status).toBe(403);
    expect(openai.headers.get('access-control-allow-origin')).toBeNull();
    expect(await openai.json()).toEqual({
      error: { message: expect.stringContaining(`--cors-origin ${EVIL}`), type: 'invalid_request_error', param: null, code: 'permission_denied' },
    });
    const anthropic = await post(open, '/messages', chat, { origin: EVIL, 'anthropic-version': '2023-06-01' });
    expect(anthropic.status).toBe(403);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'permission_error' }, request_id: anthropic.headers.get('request-id') });

    const asked = await preflight(open, EVIL);
    expect(asked.status).toBe(403);
    expect(asked.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets pages on this machine in, naming their origin, and a caller that sends none', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://app.localhost']) {
      const answer = await post(open, '/chat/completions', chat, { origin });
      expect(answer.status, origin).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
      expect(answer.headers.get('vary')).toBe('origin');
      expect((await answer.json()).object).toBe('chat.completion');
      const asked = await preflight(open, origin);
      expect(asked.status).toBe(204);
      expect(asked.headers.get('access-control-allow-origin')).toBe(origin);
    }
    // An SDK in Node or Python sends no Origin: it is no page, and nothing is allowed to it.
    const sdk = await post(open, '/chat/completions', chat, {});
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a listed origin in with corsOrigins, every page with *', async () => {
    const listed = await post(widened, '/chat/completions', chat, { origin: EVIL });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(EVIL);
    expect((await listed.json()).choices[0].message.role).toBe('assistant');
    expect((await post(widened, '/chat/completions', chat, { origin: 'https://other.example' })).status).toBe(403);

    const any = await post(anyone, '/chat/completions', chat, { origin: EVIL });
    expect(any.status).toBe(200);
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('grants Chromium’s private network access to an allowed page, and to no other', async () => {
    const ask = { 'access-control-request-private-network': 'true' };
    expect((await preflight(widened, EVIL, ask)).headers.get('access-control-allow-private-network')).toBe('true');
    const refused = await preflight(open, EVIL, ask);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-private-network')).toBeNull();
  });

  it('keeps every page allowed when a key guards the server', async () => {
    const answer = await post(keyed, '/chat/completions', chat, { origin: EVIL, authorization: 'Bearer sk-right' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    const keyless = await post(keyed, '/chat/completions', chat, { origin: EVIL });
    expect(keyless.status).toBe(401);
    expect(keyless.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('Host: which names the server answers (DNS rebinding)', () => {
  it('refuses a name that is not this machine’s without a key, saying how to allow it', async () => {
    const { port } = new URL(open.url);
    const rebound = await withHost(open, `evil.example:${port}`, [`Origin: http://evil.example:${port}`]);
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toEqual({
      error: { message: expect.stringContaining('--allowed-host evil.example'), type: 'invalid_request_error', param: null, code: 'permission_denied' },
    });
    // A rebound page is same-origin with the server: the Host check is what stops it, not CORS.
    expect(rebound.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers IP addresses and localhost names', async () => {
    const { port } = new URL(open.url);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `192.168.1.5:${port}`, 'app.localhost']) {
      const answer = await withHost(open, host);
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body).object).toBe('list');
    }
  });

  it('answers listed names with allowedHosts, any with *, and any when a key guards the server', async () => {
    expect((await withHost(widened, 'evil.example')).status).toBe(200);
    expect((await withHost(widened, 'gpu.lan:8080')).status).toBe(200);
    expect((await withHost(widened, 'other.example')).status).toBe(403);
    expect((await withHost(anyone, 'other.example')).status).toBe(200);
    expect((await withHost(keyed, 'other.example', ['Authorization: Bearer sk-right'])).status).toBe(200);
  });
});
