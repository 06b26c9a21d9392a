/**
 * Remote models behind the same base URL: the catalog names a server (here the project's own Node
 * server on the tiny models, on another origin, with a key of its own), and the service worker
 * forwards requests for it there, translating when the caller's flavour is not one the server is
 * configured to speak. A local model that cannot run here (no WebGPU asked for, and its WASM
 * runtime file missing) falls back to the remote one, and the answer says so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { createNodeEngine, serveGateway, writeTinyModels, type GatewayServer } from '../src/node/index.ts';
import { startScriptedUpstream } from '../test/support/scripted-upstream.ts';
import { expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';

const UPSTREAM_KEY = 'sk-upstream-only-in-the-config';

let dir: string;
let upstream: GatewayServer;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-remote-'));
  await writeTinyModels(dir);
  // The upstream wants its own key: the page's requests carry none, so only the config can give it.
  upstream = await serveGateway({ engine: createNodeEngine({ localModelPath: dir }), port: 0, apiKeys: [UPSTREAM_KEY] });
});
test.afterAll(async () => {
  await upstream?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const remoteModels = () =>
  [
    { engine: 'remote', id: 'team-chat', upstream: { baseURL: upstream.url, model: 'tiny-chat', apiKey: UPSTREAM_KEY } },
    // Configured as Anthropic-only, so OpenAI callers are translated on the way.
    { engine: 'remote', id: 'team-anthropic', upstream: { baseURL: upstream.url, model: 'tiny-chat', apiKey: UPSTREAM_KEY, speaks: ['anthropic'] } },
    { engine: 'remote', id: 'team-embed', kind: 'embedding', upstream: { baseURL: upstream.url, model: 'tiny-embed', apiKey: UPSTREAM_KEY } },
  ] as const;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A POST from the page, through its service worker, read whole (streams included). */
function post(page: Page, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return page.evaluate(
    async ({ path, body, headers }) => {
      const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    },
    { path, body, headers },
  );
}

const ANTHROPIC = { 'anthropic-version': '2023-06-01' };
const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, max_tokens: 6, temperature: 0, messages: [{ role: 'user', content: 'Say hi.' }], ...extra });
const sseData = (text: string) => text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));

test('a local tiny model and remote ones on another server all answer through the service worker, in both flavours', async ({ page }) => {
  await startRuntime(page, { inPage: false, models: [...remoteModels()] });
  // The page really is going through its service worker, not an in-page shim.
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  const local = await post(page, '/v1/chat/completions', chat('tiny-chat'));
  expect(local.status).toBe(200);
  expect(local.headers['x-inpage-llm-served-by']).toBe('tiny-chat');
  expect(local.headers['x-inpage-llm-upstream']).toBeUndefined();

  const remote = await post(page, '/v1/chat/completions', chat('team-chat'));
  expect(remote.status).toBe(200);
  expect(remote.headers['x-inpage-llm-served-by']).toBe('team-chat');
  expect(remote.headers['x-inpage-llm-upstream']).toBe(upstream.url);
  const completion = JSON.parse(remote.body) as { object: string; choices: { message: { content: string }; finish_reason: string }[]; usage: { completion_tokens: number } };
  expect(completion.object).toBe('chat.completion');
  expect(completion.usage.completion_tokens).toBeGreaterThan(0);

  // OpenAI stream to an Anthropic-only upstream: translated chunk by chunk, usage last, then [DONE].
  const translated = await post(page, '/v1/chat/completions', chat('team-anthropic', { stream: true, stream_options: { include_usage: true } }));
  expect(translated.status).toBe(200);
  expect(translated.headers['content-type']).toMatch(/^text\/event-stream/);
  const data = sseData(translated.body);
  expect(data.at(-1)).toBe('[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as { object: string; choices: { finish_reason: string | null }[]; usage?: { prompt_tokens: number } });
  expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
  expect(chunks.filter((c) => c.choices[0]?.finish_reason).length).toBe(1);
  expect(chunks.at(-1)!.usage!.prompt_tokens).toBeGreaterThan(0);

  // Anthropic stream to an OpenAI-speaking upstream: Anthropic's events, in order.
  const messages = await post(page, '/v1/messages', chat('team-chat', { stream: true }), ANTHROPIC);
  expect(messages.status).toBe(200);
  const events = messages.body.split('\n').filter((line) => line.startsWith('event: ')).map((line) => line.slice(7));
  expect(events[0]).toBe('message_start');
  expect(events.at(-1)).toBe('message_stop');
  expect(events).toContain('message_delta');

  const embedded = await post(page, '/v1/embeddings', { model: 'team-embed', input: ['the cat sleeps'], encoding_format: 'float' });
  expect(embedded.status).toBe(200);
  expect((JSON.parse(embedded.body) as { data: { embedding: number[] }[] }).data[0]!.embedding).toHaveLength(32);

  // The listing says where each model runs, and never shows the upstream's key.
  const listing = await page.evaluate(async () => (await fetch('/v1/models')).text());
  expect(listing).not.toContain(UPSTREAM_KEY);
  const byId = new Map((JSON.parse(listing) as { data: { id: string; engine: string; remote?: { available: boolean; upstreams: { url: string; state: string }[] } }[] }).data.map((m) => [m.id, m]));
  expect(byId.get('team-chat')).toMatchObject({ engine: 'remote', remote: { available: true, upstreams: [{ url: upstream.url, state: 'up' }] } });
  expect(byId.get('tiny-chat')!.remote).toBeUndefined();
});

test('a local model that cannot run here falls back to the remote one, and the answer says which served it', async ({ page }) => {
  await startRuntime(page, {
    inPage: false,
    device: 'wasm',
    // No WebGPU asked for, and no WASM runtime to be had: the local model cannot load.
    wasmUrl: '/inpage-llm/no-such-runtime.wasm',
    models: [...remoteModels(), { engine: 'transformers', id: 'local-chat', kind: 'chat', source: '/inpage-llm/models/tiny-chat', fallback: 'team-chat' }],
  });
  const answer = await post(page, '/v1/chat/completions', chat('local-chat'));
  expect(answer.status).toBe(200);
  expect(answer.headers['x-inpage-llm-served-by']).toBe('team-chat');
  expect(answer.headers['x-inpage-llm-fallback-from']).toBe('local-chat');
  expect(answer.headers['x-inpage-llm-fallback-reason']).toBe('model_unavailable');
  expect(answer.headers['x-inpage-llm-upstream']).toBe(upstream.url);

  // Anthropic flavour too, streamed.
  const streamed = await post(page, '/v1/messages', chat('local-chat', { stream: true }), ANTHROPIC);
  expect(streamed.status).toBe(200);
  expect(streamed.headers['x-inpage-llm-served-by']).toBe('team-chat');
  expect(streamed.body).toContain('event: message_stop');

  // Without a fallback the same failure is a clear 503 with the reason.
  const alone = await post(page, '/v1/chat/completions', chat('tiny-chat'));
  expect(alone.status).toBe(503);
  expect(alone.headers['x-inpage-llm-served-by']).toBeUndefined();
  expect(JSON.parse(alone.body)).toMatchObject({ error: { type: 'service_unavailable_error', code: 'model_unavailable' } });
});

test('a change of keys in the service worker changes who is let in, not what it knows of its remote servers', async ({ context }) => {
  // A scripted upstream (test/support): a real server cannot be made to stream this slowly on demand.
  const scripted = await startScriptedUpstream({ cors: true });
  try {
    const [OLD, NEW] = ['sk-old-key-aaaa-0001', 'sk-new-key-bbbb-0002'];
    scripted.reply = () => ({ chunks: Array.from({ length: 60 }, (_, i) => ` w${i}`), chunkDelayMs: 150 });
    const models = [{ engine: 'remote', id: 'slow-far', upstream: { baseURL: scripted.url, model: 'scripted-model' } }] as const;
    const host = await context.newPage();
    await startRuntime(host, { inPage: false, apiKeys: [OLD, NEW], models: [...models] });
    const guest = await context.newPage();
    await startRuntime(guest, { inPage: false, apiKeys: [NEW], models: [...models] });

    // A stream from the guest through the service worker, read on in the background.
    const began = await guest.evaluate(async (key) => {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'slow-far', stream: true, messages: [{ role: 'user', content: 'Go.' }] }),
      });
      Object.assign(window, { streamed: response.text() });
      return response.status;
    }, NEW);
    expect(began).toBe(200);

    // The host leaves; the guest takes over and offers its own keys: the old one is turned away.
    await host.close();
    const statusWith = (key: string) => guest.evaluate(async (k) => (await fetch('/v1/models', { headers: { authorization: `Bearer ${k}` } })).status, key);
    await expect.poll(() => statusWith(OLD), { timeout: 15_000 }).toBe(401);

    // The same gateway, and its pool: the stream begun under the old keys is counted in flight.
    const upstreams = await guest.evaluate(async (key) => {
      const listing = (await (await fetch('/v1/models', { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string; remote?: { upstreams: { in_flight: number; state: string }[] } }[] };
      return listing.data.find((m) => m.id === 'slow-far')?.remote?.upstreams;
    }, NEW);
    expect(upstreams).toEqual([expect.objectContaining({ state: 'up', in_flight: 1 })]);
    // And it runs to its end.
    const text = await guest.evaluate(() => (window as unknown as { streamed: Promise<string> }).streamed);
    expect(text).toContain(' w59');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  } finally {
    await scripted.close();
  }
});

test('with no tab hosting the engine, the service worker answers from its stores and for remote models at once', async ({ context }) => {
  const host = await context.newPage();
  await startRuntime(host, { inPage: false, models: [...remoteModels()] });
  const made = await post(host, '/v1/responses', { model: 'tiny-chat', input: 'Say hi.', max_output_tokens: 16 });
  expect(made.status).toBe(200);
  const responseId = (JSON.parse(made.body) as { id: string }).id;
  const thread = await post(host, '/v1/conversations', { items: [{ type: 'message', role: 'user', content: 'Hello.' }] });
  expect(thread.status).toBe(200);
  const conversationId = (JSON.parse(thread.body) as { id: string }).id;
  // The host tells the service worker its remote models after its port (kept for the worker's restarts).
  await expect.poll(() => host.evaluate(async () => (await (await caches.open('inpage-llm-config')).match('/__inpage-llm/remote-models'))?.text())).toContain('team-chat');

  // A page of the app that runs no engine of its own (as a frame or a worker would), then the host leaves.
  const other = await context.newPage();
  await other.goto(SDK_PAGE);
  expect(await other.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await host.close();

  const timed = (path: string, init: { method?: string; body?: unknown } = {}) =>
    other.evaluate(
      async ({ path, method, body }) => {
        const began = performance.now();
        const response = await fetch(path, { method: method ?? 'GET', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        const text = await response.text();
        return { status: response.status, ms: performance.now() - began, body: text, servedBy: response.headers.get('x-inpage-llm-served-by') };
      },
      { path, ...init },
    );
  const stored = await timed(`/v1/responses/${responseId}`);
  expect(stored.status).toBe(200);
  expect(JSON.parse(stored.body)).toMatchObject({ id: responseId, object: 'response', model: 'tiny-chat' });
  const items = await timed(`/v1/conversations/${conversationId}/items`);
  expect(items.status).toBe(200);
  expect((JSON.parse(items.body) as { data: unknown[] }).data).toHaveLength(1);
  const conversation = await timed(`/v1/conversations/${conversationId}`);
  expect(conversation.status).toBe(200);
  // Waiting for an engine would take 15 s before a 503: these are answered from IndexedDB.
  for (const answer of [stored, items, conversation]) expect(answer.ms).toBeLessThan(1000);

  const remote = await timed('/v1/chat/completions', { method: 'POST', body: chat('team-chat') });
  expect(remote.status).toBe(200);
  expect(remote.servedBy).toBe('team-chat');
  expect(remote.ms).toBeLessThan(10_000);
  // A local model still needs the engine: with none hosted it is the clear 503 it was.
  const local = await timed('/v1/chat/completions', { method: 'POST', body: chat('tiny-chat') });
  expect(local.status).toBe(503);
  expect(JSON.parse(local.body)).toMatchObject({ error: { code: 'engine_unavailable' } });
});
