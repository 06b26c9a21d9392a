/**
 * Every core for the CPU engine: a page made cross-origin isolated by the opt-in
 * (`startInference({ crossOriginIsolation: true })`: the product's service worker adds COOP/COEP
 * to the app's own pages, the first visit reloading once) has SharedArrayBuffer, loads, answers,
 * and runs onnxruntime-web on more than one thread where the machine has the cores; without it,
 * the engine runs on one thread and `GET /models` says why.
 */
import { expect, test, type Page } from '@playwright/test';
import { SDK_PAGE, startRuntime } from './fixtures.ts';

interface Local {
  backend?: string;
  cpu?: { runtime: string; threads: number; reason: string };
}

async function cpuOf(page: Page): Promise<Local> {
  return page.evaluate(async () => ((await (await fetch('/v1/models/tiny-chat')).json()) as { local: Local }).local);
}

async function answers(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const res = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }) });
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    return body.choices[0]!.message.content;
  });
}

test('without the opt-in the page is not isolated, and the engine runs on one thread and says why', async ({ page }) => {
  await startRuntime(page, { device: 'wasm' });
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  expect((await answers(page)).trim().split(/\s+/).length).toBeGreaterThan(0);
  const local = await cpuOf(page);
  expect(local.backend).toBe('wasm');
  expect(local.cpu).toMatchObject({ runtime: expect.stringMatching(/^onnxruntime-web/), threads: 1, reason: expect.stringMatching(/not cross-origin isolated/) });
});

test('with crossOriginIsolation the first visit reloads once, then the page is isolated, answers, and uses the cores', async ({ page }) => {
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
  await page.goto(SDK_PAGE);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  const start = () => window.harness.startInference({ crossOriginIsolation: true, engine: { device: 'wasm' } }).then(() => true);
  // The call reloads the page once the service worker controls it: it never resolves in this document.
  await Promise.all([page.waitForEvent('load'), page.evaluate(() => void window.harness.startInference({ crossOriginIsolation: true, engine: { device: 'wasm' } }))]);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(() => ({ isolated: crossOriginIsolated, sab: typeof SharedArrayBuffer }))).toEqual({ isolated: true, sab: 'function' });
  // Isolated now: the same call resolves without another reload.
  expect(await page.evaluate(start)).toBe(true);
  expect((await answers(page)).trim().length).toBeGreaterThan(0);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const local = await cpuOf(page);
  expect(local.cpu).toMatchObject({ runtime: expect.stringMatching(/^onnxruntime-web/), threads: Math.min(cores, 4), reason: expect.stringMatching(/cross-origin isolated/) });
  if (cores > 1) expect(local.cpu!.threads).toBeGreaterThan(1);
  // The threads are real: onnxruntime's pthreads are workers the engine worker started (the
  // browser's own list of targets, which holds nested workers too).
  const cdp = await page.context().browser()!.newBrowserCDPSession();
  const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; url: string; title: string }[] };
  const pthreads = targetInfos.filter((t) => t.type === 'worker' && t.title === 'em-pthread');
  await cdp.detach();
  if (cores > 1) expect(pthreads.length).toBeGreaterThanOrEqual(local.cpu!.threads - 1);
  // Started from onnxruntime's own glue, never as a second copy of the whole engine worker.
  expect(pthreads.filter((t) => t.url.includes('engine-worker'))).toEqual([]);
  expect(navigations.length).toBe(2);
});

test('the playground says which CPU engine runs, on how many threads, and why', async ({ page }) => {
  await page.goto('/?device=wasm');
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const backend = page.locator('#fig-backend');
  await expect(backend).toContainText('CPU engine: onnxruntime-web');
  await expect(backend).toContainText('one thread: the page is not cross-origin isolated');
  await expect(backend).toHaveAttribute('data-cpu-threads', '1');
});
