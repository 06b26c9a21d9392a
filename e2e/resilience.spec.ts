/**
 * One engine per origin, and what happens when its parts go away: a second tab shares the engine,
 * the host tab closes, the service worker is stopped, the engine worker is replaced mid-stream.
 */
import { expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';

const chatBody = (content: string, max_tokens: number, stream = false) =>
  JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content }], max_tokens, stream });

for (const inPage of [true, false]) {
  test(`two tabs share one engine, and the other tab takes over when the host closes (${inPage ? 'each page on its own link' : 'through the service worker'})`, async ({ context }) => {
    const host = await context.newPage();
    await startRuntime(host, { device: 'webgpu', inPage });
    const guest = await context.newPage();
    await startRuntime(guest, { device: 'webgpu', inPage });
    expect(await host.evaluate(() => window.inference.isHost)).toBe(true);
    expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);

    // Both tabs are answered; the model was loaded once, in the host's worker.
    for (const page of [host, guest]) {
      const usage = await page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Hi', 4));
      expect(usage.completion_tokens).toBe(4);
    }
    const status = await host.evaluate(() => window.inference.status());
    expect(status!.find((s) => s.model === 'tiny-chat')).toMatchObject({ state: 'loaded', loads: 1 });

    // A request in flight when the host tab closes fails with a clear 503, then the guest hosts.
    const inFlight = guest.evaluate(async (body) => {
      const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, body: await response.json() };
    }, chatBody('A longer answer please', 200));
    await guest.waitForTimeout(150);
    await host.close({ runBeforeUnload: true });
    // On SwiftShader the 40-token answer takes well over a second: it is still running when the host goes.
    const failed = await inFlight;
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('engine_unavailable');
    await expect.poll(() => guest.evaluate(() => window.inference.isHost)).toBe(true);
    const after = await guest.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Hi again', 3));
    expect(after.completion_tokens).toBe(3);
  });
}

test('a stopped service worker comes back and reconnects to the engine on the next request', async ({ page, context }) => {
  await startRuntime(page, { inPage: false });
  const ask = () => page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Hello', 2));
  expect((await ask()).completion_tokens).toBe(2);
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  expect((await ask()).completion_tokens).toBe(2);
});

test('replacing the engine worker mid-stream ends the stream with an error event; the next request is served', async ({ page }) => {
  // WebGPU on SwiftShader is slow enough that the stream is surely still running at the restart.
  await startRuntime(page, { device: 'webgpu' });
  const result = await page.evaluate(async (body) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    await window.inference.restartWorker();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    return text;
  }, chatBody('Stream for a while', 200, true));
  const last = result.trim().split('\n\n').at(-1)!;
  expect(JSON.parse(last.slice('data: '.length)).error.code).toBe('engine_unavailable');
  expect(result).not.toContain('[DONE]');
  const next = await page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Again', 2));
  expect(next.completion_tokens).toBe(2);
});

test('requests outside the base URL pass through untouched', async ({ runtimePage: page, request }) => {
  const path = '/inpage-llm/models/tiny-chat/tokenizer.json';
  const direct = await request.get(path);
  const responsePromise = page.waitForResponse((r) => r.url().endsWith(path));
  const viaPage = await page.evaluate(async (p) => {
    const response = await fetch(p);
    return { status: response.status, type: response.headers.get('content-type'), bytes: Array.from(new Uint8Array(await response.arrayBuffer())) };
  }, path);
  expect((await responsePromise).fromServiceWorker()).toBe(false);
  expect(viaPage.status).toBe(direct.status());
  expect(viaPage.type).toBe(direct.headers()['content-type']);
  expect(Buffer.from(viaPage.bytes).equals(await direct.body())).toBe(true);
  const missing = await page.evaluate(async () => (await fetch('/not-the-api/x', { method: 'POST', body: 'x' })).status);
  expect(missing).toBe((await request.post('/not-the-api/x', { data: 'x' })).status());
});

test('a virtual cross-origin base URL is answered by the service worker', async ({ page }) => {
  await startRuntime(page, { baseUrl: 'https://llm.local/v1', inPage: false });
  const models = await page.evaluate(async () => {
    const { OpenAI } = window.harness;
    const oa = new OpenAI({ apiKey: 'k', baseURL: 'https://llm.local/v1', dangerouslyAllowBrowser: true, maxRetries: 0 });
    return (await oa.models.list()).data.map((m) => m.id);
  });
  expect(models).toContain('tiny-chat');
  // The same-origin /v1 is not the API now: it passes through to the server (an HTML fallback page).
  const sameOrigin = page.waitForResponse((r) => r.url().endsWith('/v1/models'));
  expect(await page.evaluate(async () => (await fetch('/v1/models')).headers.get('content-type'))).toMatch(/text\/html/);
  expect((await sameOrigin).fromServiceWorker()).toBe(false);
});

test('an updated service worker takes over without breaking a stream in flight', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu', inPage: false });
  const result = await page.evaluate(async (body) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const before = navigator.serviceWorker.controller!.scriptURL;
    // A new service worker script (as after a deploy) installs, activates and claims the page.
    const changed = new Promise<void>((resolve) => navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }));
    await navigator.serviceWorker.register('/inpage-llm-sw.js?base=%2Fv1&rev=2', { type: 'module' });
    await changed;
    let chunksAfterUpdate = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
      chunksAfterUpdate++;
    }
    const after = navigator.serviceWorker.controller!.scriptURL;
    const next = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body.replace('"stream":true', '"stream":false') });
    return { text, before, after, chunksAfterUpdate, next: await next.json() };
  }, chatBody('Keep streaming through the update', 40, true));
  expect(result.after).not.toBe(result.before);
  // The update landed while the answer was still streaming.
  expect(result.chunksAfterUpdate).toBeGreaterThan(5);
  expect(result.text.trim().endsWith('data: [DONE]')).toBe(true);
  expect(result.text).not.toContain('"error"');
  expect(result.next.usage.completion_tokens).toBe(40);
});

test('a page answering its own requests does not depend on the service worker: its stream survives the worker being stopped', async ({ context }) => {
  const page = await context.newPage();
  await startRuntime(page, { engine: 'slow', tokenMs: 400 });
  // The control: a page without startInference, which only the service worker answers.
  const plain = await context.newPage();
  await plain.goto(SDK_PAGE);
  await expect(plain.locator('body[data-ready="true"]')).toBeAttached();
  const stream = (p: typeof page, model: string) =>
    p.evaluate(async (body) => {
      let text = '';
      try {
        const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          text += value;
          document.body.dataset.streaming = 'true';
        }
        return { text, error: null };
      } catch (error) {
        return { text, error: String(error) };
      }
    }, JSON.stringify({ model, messages: [{ role: 'user', content: 'Go' }], max_tokens: 10, stream: true }));
  const own = stream(page, 'slow-a');
  const relayed = stream(plain, 'slow-b');
  await expect(page.locator('body[data-streaming="true"]')).toBeAttached();
  await expect(plain.locator('body[data-streaming="true"]')).toBeAttached();
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  const [ownResult, relayedResult] = await Promise.all([own, relayed]);
  expect(ownResult.error).toBeNull();
  expect(ownResult.text.trim().endsWith('data: [DONE]')).toBe(true);
  // The service worker's own stream died with it: the stop really happened mid-stream.
  expect(relayedResult.error).toMatch(/TypeError/);
  expect(relayedResult.text).not.toContain('[DONE]');
});

test('a hosting tab that vanishes without a word (as in a crash) is noticed by a tab answering its own requests: its stream ends with a clear error within seconds, and it takes over', async ({ context }) => {
  const host = await context.newPage();
  await startRuntime(host, { engine: 'slow', tokenMs: 400 });
  const guest = await context.newPage();
  await startRuntime(guest, { engine: 'slow', tokenMs: 400 });
  expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);
  const streamed = guest.evaluate(async (body) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let cutAt = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      const tokens = text.split('"content":"t').length - 1;
      document.body.dataset.tokens = String(tokens);
      // Kept once reached: the count moves on every 400 ms, and the assertion below retries only
      // every second at its slowest, so it could miss the one moment the count is 5.
      if (tokens >= 5) document.body.dataset.fiveTokens = 'seen';
      if (value.includes('"error"')) cutAt = performance.now();
    }
    return { text, cutAt };
  }, JSON.stringify({ model: 'slow-a', messages: [{ role: 'user', content: 'Go' }], max_tokens: 30, stream: true }));
  // Seconds into the stream (past the watchdog's first ticks), the guest's link is still up.
  await expect(guest.locator('body[data-five-tokens="seen"]')).toBeAttached();
  // A crashed renderer sends nothing: drop the host's HOST_GONE, so only the released host lock
  // can tell the guest (a real renderer crash takes same-site tabs in its process with it here).
  await host.evaluate(() => {
    const controller = navigator.serviceWorker.controller!;
    controller.postMessage = () => {};
  });
  const closedAt = await guest.evaluate(() => performance.now());
  await host.close();
  const { text, cutAt } = await streamed;
  expect(text).toContain('"code":"engine_unavailable"');
  expect(text).not.toContain('[DONE]');
  expect(cutAt).toBeGreaterThan(closedAt);
  expect(cutAt - closedAt).toBeLessThan(5000);
  await expect.poll(() => guest.evaluate(() => window.inference.isHost)).toBe(true);
  const after = await guest.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, JSON.stringify({ model: 'slow-a', messages: [{ role: 'user', content: 'Again' }], max_tokens: 2 }));
  expect(after.completion_tokens).toBe(2);
});
