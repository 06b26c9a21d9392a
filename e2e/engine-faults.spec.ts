/**
 * The engine worker's own faults, injected for real: its GPU device destroyed under it (what a
 * device loss looks like to the engines), and the worker closing mid-request as a crash would end
 * it. Each ends the calls it hits with a clear 503 (or a stream's error event) within a bounded
 * time, the engine is rebuilt, and the next request is served. WebGPU runs on SwiftShader here:
 * slow enough that a stream is surely still running when the fault lands.
 */
import type { Page } from '@playwright/test';
import { engineWorker, expect, startRuntime, test } from './fixtures.ts';

const chatBody = (content: string, max_tokens: number, stream = false) => JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content }], max_tokens, stream });

/** How long a fault may take to reach the caller. */
const BOUND_MS = 5000;

/** Starts a stream in the page and resolves once its first bytes arrived; `finishStream` reads the rest. */
const startStream = (page: Page, body: string) =>
  page.evaluate(async (body) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    Object.assign(window, { stream: { reader, text: first } });
    return response.status;
  }, body);
const finishStream = (page: Page) =>
  page.evaluate(async () => {
    const { reader, text: first } = (window as unknown as { stream: { reader: ReadableStreamDefaultReader<Uint8Array>; text: string } }).stream;
    const started = performance.now();
    const decoder = new TextDecoder();
    let text = first;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    return { text, ms: performance.now() - started };
  });
const lastEvent = (text: string) => JSON.parse(text.trim().split('\n\n').at(-1)!.slice('data: '.length));
const models = (page: Page) => page.evaluate(async () => (await (await fetch('/v1/models')).json()).data as { id: string; local?: { last_exit?: { reason: string; message: string } } }[]);

test('a GPU device lost mid-stream ends the stream with a device_lost error event at once; the engine is rebuilt, the next request is served, and the models API says what happened', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu' });
  const worker = await engineWorker(page);
  // The test keeps a handle on every device the engines ask for, to destroy them as a loss would.
  await worker.evaluate(() => {
    const devices: GPUDevice[] = [];
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, ...args: Parameters<GPUAdapter['requestDevice']>) {
      const device = await requestDevice.apply(this, args);
      devices.push(device);
      return device;
    };
    Object.assign(self, { devices });
  });
  expect(await startStream(page, chatBody('Stream for a while', 250, true))).toBe(200);
  expect(await worker.evaluate(() => (self as unknown as { devices: GPUDevice[] }).devices.length)).toBeGreaterThan(0);
  void worker.evaluate(() => (self as unknown as { devices: GPUDevice[] }).devices.forEach((d) => d.destroy())).catch(() => {});
  const { text, ms } = await finishStream(page);
  const error = lastEvent(text).error;
  expect(error.code).toBe('device_lost');
  expect(error.type).toBe('service_unavailable_error');
  expect(error.message).toMatch(/^The GPU device was lost \(destroyed.*\), as happens under GPU memory pressure or a driver reset\. The engine is being rebuilt: retry the request\.$/);
  expect(text).not.toContain('[DONE]');
  expect(ms).toBeLessThan(BOUND_MS);
  console.log(`GPU device destroyed mid-stream: the stream's device_lost error event came ${Math.round(ms)} ms later`);

  // A fresh worker with a fresh device answers (once the host has replaced it, as a client
  // retrying after the error's retry-after finds); the host saw why its worker ended.
  await expect.poll(() => page.evaluate(() => window.log.engineExits.length)).toBe(1);
  const next = await page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Again', 3));
  expect(next.completion_tokens).toBe(3);
  expect(await page.evaluate(() => window.log.engineExits.map((e) => e?.reason))).toEqual(['device_lost']);
  const chat = (await models(page)).find((m) => m.id === 'tiny-chat')!;
  expect(chat.local?.last_exit).toMatchObject({ reason: 'device_lost', message: expect.stringContaining('The GPU device was lost') });
});

test('a GPU device lost while the model loads fails that request with a 503 device_lost, retryable; the rebuilt engine serves the retry', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu' });
  const worker = await engineWorker(page);
  // The device is lost as soon as the engine gets it: during the model's load.
  await worker.evaluate(() => {
    const requestDevice = GPUAdapter.prototype.requestDevice;
    GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, ...args: Parameters<GPUAdapter['requestDevice']>) {
      const device = await requestDevice.apply(this, args);
      setTimeout(() => device.destroy(), 0);
      return device;
    };
  });
  const first = await page.evaluate(async (body) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, retry: response.headers.get('x-should-retry'), after: response.headers.get('retry-after'), body: await response.json() };
  }, chatBody('Hi', 2));
  expect(first.status).toBe(503);
  expect(first.body.error.code).toBe('device_lost');
  expect(first.retry).toBe('true');
  expect(first.after).toBe('1');
  // As the SDKs do: wait what retry-after says, then retry.
  await page.waitForTimeout(Number(first.after) * 1000);
  const retried = await page.evaluate(async (body) => (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status, chatBody('Hi', 2));
  expect(retried).toBe(200);
});

test('an engine worker that dies mid-stream (as in a crash) ends the stream and the calls queued behind it with 503s within seconds, through the service worker; the next request is served', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu', inPage: false });
  const worker = await engineWorker(page);
  expect(await startStream(page, chatBody('Stream for a while', 250, true))).toBe(200);
  // Two more calls for the same model wait behind the stream.
  await page.evaluate((body) => {
    const queued = [0, 1].map(async () => {
      const started = performance.now();
      const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, code: (await response.json()).error?.code as string | undefined, ms: performance.now() - started };
    });
    Object.assign(window, { queued: Promise.all(queued) });
  }, chatBody('Queued', 4));
  await page.waitForTimeout(300);
  const killedAt = Date.now();
  void worker.evaluate(() => setTimeout(() => self.close(), 0)).catch(() => {});
  const { text } = await finishStream(page);
  expect(Date.now() - killedAt).toBeLessThan(BOUND_MS);
  expect(lastEvent(text).error.code).toBe('engine_unavailable');
  expect(text).not.toContain('[DONE]');
  const streamEnded = Date.now() - killedAt;
  const queued = await page.evaluate(() => (window as unknown as { queued: Promise<{ status: number; code?: string }[]> }).queued);
  expect(Date.now() - killedAt).toBeLessThan(BOUND_MS);
  console.log(`engine worker closed mid-stream: stream ended after ${streamEnded} ms, queued calls answered ${JSON.stringify(queued.map((q) => q.status))} within ${Date.now() - killedAt} ms`);
  // Each queued call is either failed with a 503 or served by the rebuilt engine: never dropped.
  for (const call of queued) expect(call.status === 200 || (call.status === 503 && call.code === 'engine_unavailable')).toBe(true);

  const next = await page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Again', 3));
  expect(next.completion_tokens).toBe(3);
  expect(await page.evaluate(() => window.log.engineExits.map((e) => e?.reason))).toEqual(['crashed']);
  const chat = (await models(page)).find((m) => m.id === 'tiny-chat')!;
  expect(chat.local?.last_exit?.reason).toBe('crashed');
});

test('a service worker stopped mid-stream ends the stream it carried at once (the body errors, as the browser cuts it); the next request through it is served', async ({ page, context }) => {
  await startRuntime(page, { device: 'webgpu', inPage: false });
  expect(await startStream(page, chatBody('Stream for a while', 250, true))).toBe(200);
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  const stoppedAt = Date.now();
  await cdp.send('ServiceWorker.stopAllWorkers');
  const cut = await finishStream(page).then(
    () => 'finished',
    (error: Error) => error.message,
  );
  const ms = Date.now() - stoppedAt;
  expect(cut).toMatch(/TypeError: network error/);
  expect(ms).toBeLessThan(BOUND_MS);
  console.log(`service worker stopped mid-stream: the stream's body failed ${ms} ms later`);
  const next = await page.evaluate(async (body) => (await (await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()).usage, chatBody('Again', 3));
  expect(next.completion_tokens).toBe(3);
});
