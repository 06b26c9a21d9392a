/**
 * API keys in the browser. With keys configured, no caller reaches the engine without one: a fetch
 * answered by the service worker or in the page gets a 401 in its flavour's shape; a tab that does
 * not host the engine cannot, by posting control messages to the service worker, replace its
 * engine link, lower its keys, cut its calls or get a link of its own without a key; and no key
 * shows in a console message (pages, service worker, engine worker) or in an error body.
 */
import type { BrowserContext, ConsoleMessage, Page } from '@playwright/test';
import { expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';

const KEY = 'sk-inpage-e2e-key-7f3a91';
const WRONG = 'sk-wrong-e2e-key-0000-9b1c';

interface Call {
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

interface Reply {
  readonly status: number;
  readonly shouldRetry: string | null;
  readonly body: string;
  /** A fetch that failed or hung (30 s) instead of answering. */
  readonly error?: string;
}

const prompt = [{ role: 'user', content: 'Say something' }];
const chat = (headers: Record<string, string> = {}): Call => ({
  path: '/v1/chat/completions',
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: { model: 'tiny-chat', messages: prompt, max_tokens: 6, temperature: 0 },
});
const messages = (headers: Record<string, string> = {}): Call => ({
  path: '/v1/messages',
  method: 'POST',
  headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
  body: { model: 'tiny-chat', max_tokens: 6, messages: prompt },
});
const models = (headers: Record<string, string> = {}): Call => ({ path: '/v1/models', method: 'GET', headers });

const OPENAI_MISSING = {
  error: {
    message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
};
const OPENAI_WRONG = { error: { message: 'Incorrect API key provided: sk-***9b1c.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
const anthropicError = (message: string) => ({ type: 'error', error: { type: 'authentication_error', message }, request_id: expect.stringMatching(/^req_/) });
const ANTHROPIC_MISSING = anthropicError('x-api-key header is required (or send the key as Authorization: Bearer <key>).');
const ANTHROPIC_WRONG = anthropicError('invalid x-api-key');

/** Every refused call, in both flavours, and the body it must get. */
const REFUSED: [string, Call, unknown][] = [
  ['openai, no key', chat(), OPENAI_MISSING],
  ['openai, a wrong key', chat({ authorization: `Bearer ${WRONG}` }), OPENAI_WRONG],
  ['openai, the key in x-api-key (OpenAI routes read only Bearer)', chat({ 'x-api-key': KEY }), OPENAI_MISSING],
  ['openai /models, no key', models(), OPENAI_MISSING],
  ['anthropic, no key', messages(), ANTHROPIC_MISSING],
  ['anthropic, a wrong x-api-key', messages({ 'x-api-key': WRONG }), ANTHROPIC_WRONG],
  ['anthropic, a wrong Bearer key', messages({ authorization: `Bearer ${WRONG}` }), ANTHROPIC_WRONG],
  ['anthropic /models, no key', models({ 'anthropic-version': '2023-06-01' }), ANTHROPIC_MISSING],
];

/** Sends one call from the page with plain fetch. */
function send(page: Page, call: Call): Promise<Reply> {
  return page.evaluate(async ({ path, method, headers, body }) => {
    try {
      const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
      return { status: response.status, shouldRetry: response.headers.get('x-should-retry'), body: await response.text() };
    } catch (error) {
      return { status: 0, shouldRetry: null, body: '', error: String(error) };
    }
  }, call);
}

/** A tab of the app that never calls startInference: the service worker answers its fetches. */
async function plainTab(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  await page.goto(SDK_PAGE);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  return page;
}

/**
 * Every console message of the context's pages, their workers and the service worker, and every
 * uncaught error, as text.
 */
function watchConsole(context: BrowserContext): string[] {
  const seen: string[] = [];
  const record = (where: string) => (message: ConsoleMessage) => void seen.push(`${where}: ${message.text()}`);
  context.on('console', record('page'));
  context.on('weberror', (error) => void seen.push(`error: ${error.error().message}\n${error.error().stack ?? ''}`));
  context.on('serviceworker', (worker) => worker.on('console', record('service worker')));
  context.on('page', (page) => page.on('worker', (worker) => worker.on('console', record(`worker ${worker.url()}`))));
  return seen;
}

/** Asks the service worker for its state, after every message this tab posted before. */
function hello(page: Page): Promise<{ linked: boolean } | null> {
  return page.evaluate(() => {
    const { port1, port2 } = new MessageChannel();
    const reply = new Promise<{ linked: boolean } | null>((resolve) => {
      port1.onmessage = (event) => resolve({ linked: event.data.linked });
      setTimeout(() => resolve(null), 10_000);
    });
    navigator.serviceWorker.controller!.postMessage({ type: 'HELLO', port: port2 }, [port2]);
    return reply;
  });
}

function expectNoKey(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(WRONG);
  }
}

test('with keys, a call without the key or with a wrong one gets a 401 in its flavour, through the service worker and in the page; the key is answered', async ({ context }) => {
  const seen = watchConsole(context);
  const host = await context.newPage();
  await startRuntime(host, { apiKeys: [KEY] });
  const other = await plainTab(context);
  const fromServiceWorker = new Map<Page, boolean[]>([
    [host, []],
    [other, []],
  ]);
  for (const [page, list] of fromServiceWorker) {
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/')) list.push(response.fromServiceWorker());
    });
  }
  const bodies: string[] = [];
  // The host answers its own calls in the page; the plain tab's go through the service worker.
  for (const page of [host, other]) {
    for (const [what, call, expected] of REFUSED) {
      const reply = await send(page, call);
      bodies.push(reply.body);
      expect(reply.status, what).toBe(401);
      // The SDKs must not retry what cannot succeed on retry.
      expect(reply.shouldRetry, what).toBe('false');
      expect(JSON.parse(reply.body), what).toEqual(expected);
    }
    const openai = await send(page, chat({ authorization: `Bearer ${KEY}` }));
    expect(openai.status).toBe(200);
    expect(JSON.parse(openai.body)).toMatchObject({ object: 'chat.completion', model: 'tiny-chat', usage: { completion_tokens: 6 } });
    const anthropic = await send(page, messages({ 'x-api-key': KEY }));
    expect(anthropic.status).toBe(200);
    expect(JSON.parse(anthropic.body)).toMatchObject({ type: 'message', model: 'tiny-chat', usage: { output_tokens: 6 } });
    const bearer = await send(page, messages({ authorization: `Bearer ${KEY}` }));
    expect(JSON.parse(bearer.body).content).toEqual(JSON.parse(anthropic.body).content);
  }
  expect(fromServiceWorker.get(host)).toEqual([]);
  expect(fromServiceWorker.get(other)).toEqual(new Array(REFUSED.length + 3).fill(true));

  // The watcher hears every context a key could be logged in: pages, service worker, engine worker.
  await other.evaluate(() => console.log('probe: page'));
  await context.serviceWorkers()[0]!.evaluate(() => console.log('probe: service worker'));
  const engineWorker = host.workers().find((worker) => worker.url().includes('engine-worker'));
  expect(engineWorker, host.workers().map((w) => w.url()).join(', ')).toBeDefined();
  await engineWorker!.evaluate(() => console.log('probe: engine worker'));
  await expect.poll(() => ['page', 'service worker', 'engine worker'].filter((where) => seen.some((s) => s.endsWith(`probe: ${where}`)))).toEqual(['page', 'service worker', 'engine worker']);
  // Chromium logs each 401 fetch in the console: messages about the refused calls were there to leak.
  expect(seen.some((s) => s.includes('401'))).toBe(true);
  expectNoKey([...seen, ...bodies]);
});

test('a tab that does not host cannot replace the service worker’s engine link or lower its keys, nor get a link of its own without a key', async ({ context }) => {
  const seen = watchConsole(context);
  const host = await context.newPage();
  await startRuntime(host, { apiKeys: [KEY] });
  const caller = await plainTab(context);
  const before = await send(caller, chat({ authorization: `Bearer ${KEY}` }));
  expect(before.status).toBe(200);

  // The forger offers a port of its own, with no keys, as the host would; and listens on it.
  const forger = await plainTab(context);
  await forger.evaluate(() => {
    const heard: unknown[] = [];
    const ports: unknown[] = [];
    Object.assign(window, { heard, ports });
    for (const apiKeys of [[], undefined]) {
      const { port1, port2 } = new MessageChannel();
      port1.onmessage = (event) => heard.push(event.data);
      navigator.serviceWorker.controller!.postMessage({ type: 'ENGINE_PORT', port: port2, ...(apiKeys ? { apiKeys } : {}), build: 'forged' }, [port2]);
    }
    // Any link the service worker passes to this tab.
    navigator.serviceWorker.addEventListener('message', (event) => {
      if (event.data?.type === 'ENGINE_PORT') ports.push(event.data.type);
    });
    navigator.serviceWorker.startMessages();
  });
  // Both offers have been handled once the service worker answers a later message; it kept its link.
  expect(await hello(forger)).toEqual({ linked: true });

  const keyless = await send(caller, chat());
  expect(keyless.status).toBe(401);
  expect(JSON.parse(keyless.body)).toEqual(OPENAI_MISSING);
  const after = await send(caller, chat({ authorization: `Bearer ${KEY}` }));
  expect(after.error).toBeUndefined();
  expect(after.status).toBe(200);
  // The same greedy answer as before: the host's engine answered, not whatever holds the forged port.
  expect(JSON.parse(after.body).choices).toEqual(JSON.parse(before.body).choices);
  expect(await hello(forger)).toEqual({ linked: true });
  expect(await forger.evaluate(() => (window as unknown as { heard: unknown[] }).heard)).toEqual([]);

  // A link of its own reaches the engine past every key check: none without a key.
  const portsAfter = async (request: Record<string, unknown>) => {
    await forger.evaluate((message) => navigator.serviceWorker.controller!.postMessage(message), request);
    // The host answers a request passed on within milliseconds; a refused one gets nothing.
    await forger.waitForTimeout(2000);
    return forger.evaluate(() => (window as unknown as { ports: unknown[] }).ports.length);
  };
  expect(await portsAfter({ type: 'PAGE_PORT_REQUEST' })).toBe(0);
  expect(await portsAfter({ type: 'PAGE_PORT_REQUEST', apiKey: WRONG })).toBe(0);
  expect(await portsAfter({ type: 'PAGE_PORT_REQUEST', apiKey: KEY })).toBe(1);
  expectNoKey([...seen, keyless.body]);
});

test('a HOST_GONE from a tab that does not host cuts no call: a stream in flight through the service worker runs to its end', async ({ context }) => {
  const seen = watchConsole(context);
  const host = await context.newPage();
  // The slow engine (a test double) keeps the stream running while the forgery lands.
  await startRuntime(host, { engine: 'slow', tokenMs: 200, apiKeys: [KEY] });
  const caller = await plainTab(context);
  const forger = await plainTab(context);
  const streamed = caller.evaluate(async (key) => {
    const told: string[] = [];
    navigator.serviceWorker.addEventListener('message', (event) => told.push(event.data?.type));
    navigator.serviceWorker.startMessages();
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'slow-a', messages: [{ role: 'user', content: 'Go' }], max_tokens: 15, stream: true }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      (window as unknown as { streamed: string }).streamed = text;
      document.body.dataset.tokens = String(text.split('"content":"t').length - 1);
    }
    return { status: response.status, text, told };
  }, KEY);
  // Two tokens in (chunks may arrive merged, so the text is polled rather than a count awaited).
  await expect.poll(() => caller.evaluate(() => (window as unknown as { streamed?: string }).streamed ?? '')).toContain('"content":"t1');
  await forger.evaluate(() => navigator.serviceWorker.controller!.postMessage({ type: 'HOST_GONE' }));
  expect(await hello(forger)).toEqual({ linked: true });
  // Still mid-stream when the forgery was handled: it had something to cut.
  expect(Number(await caller.evaluate(() => document.body.dataset.tokens))).toBeLessThan(15);
  const { status, text, told } = await streamed;
  expect(status).toBe(200);
  expect(text).not.toContain('"error"');
  expect(text.split('"content":"t').length - 1).toBe(15);
  expect(text.trim().endsWith('data: [DONE]')).toBe(true);
  // The forgery was not passed on to the other tabs either.
  expect(told).not.toContain('HOST_GONE');
  expect(await host.evaluate(() => window.inference.isHost)).toBe(true);
  expectNoKey(seen);
});

test('when the host closes, the tab that takes over hosts with the keys, and is the one trusted from then on', async ({ context }) => {
  const seen = watchConsole(context);
  const host = await context.newPage();
  await startRuntime(host, { apiKeys: [KEY], inPage: false });
  const guest = await context.newPage();
  await startRuntime(guest, { apiKeys: [KEY], inPage: false });
  expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);
  await host.close({ runBeforeUnload: true });
  await expect.poll(() => guest.evaluate(() => window.inference.isHost)).toBe(true);

  const forger = await plainTab(context);
  await forger.evaluate(() => {
    const { port2 } = new MessageChannel();
    navigator.serviceWorker.controller!.postMessage({ type: 'ENGINE_PORT', port: port2, apiKeys: [], build: 'forged' }, [port2]);
  });
  expect(await hello(forger)).toEqual({ linked: true });
  const keyless = await send(guest, chat());
  expect(keyless.status).toBe(401);
  expect(JSON.parse(keyless.body)).toEqual(OPENAI_MISSING);
  const keyed = await send(forger, chat({ authorization: `Bearer ${KEY}` }));
  expect(keyed.error).toBeUndefined();
  expect(JSON.parse(keyed.body)).toMatchObject({ model: 'tiny-chat', usage: { completion_tokens: 6 } });
  expectNoKey([...seen, keyless.body]);
});

test('a tab that does not host, started with the keys, answers its own calls in the page: 401 without the key, answered with it', async ({ context }) => {
  const seen = watchConsole(context);
  const host = await context.newPage();
  await startRuntime(host, { apiKeys: [KEY] });
  const guest = await context.newPage();
  await startRuntime(guest, { apiKeys: [KEY] });
  expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);
  const network: string[] = [];
  guest.on('response', (response) => void network.push(response.url()));
  const keyless = await send(guest, messages());
  expect(keyless.status).toBe(401);
  expect(JSON.parse(keyless.body)).toEqual(ANTHROPIC_MISSING);
  // Its link to the host's engine is passed on only because it showed the service worker its key.
  const keyed = await send(guest, messages({ 'x-api-key': KEY }));
  expect(keyed.error).toBeUndefined();
  expect(keyed.status).toBe(200);
  expect(JSON.parse(keyed.body)).toMatchObject({ type: 'message', usage: { output_tokens: 6 } });
  expect(network.filter((url) => new URL(url).pathname.startsWith('/v1/'))).toEqual([]);
  expectNoKey([...seen, keyless.body]);
});
