/**
 * An app with a service worker of its own, offline: installed from the packed tarball (`init`
 * output, a page with no bundler, a hand-written classic worker), loaded once online, then the
 * server is stopped and the page reloaded. Without a copy of our runtime files such an app failed
 * there (`/inpage-llm/client.js`, then the onnxruntime wasm); with `inpageLLM.precacheRuntime()` at
 * install and `inpageLLM.handleRuntime(event)` in its fetch listener, the app's own cache and our
 * endpoints both answer.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { chatAndEmbed, emptyAppWithPackage, packedTarball, sh } from './packed-package.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

test.describe.configure({ timeout: 600_000 });

const RUNTIME_CACHE = 'app-inpage-runtime';

/** The app's worker: its shell cache-first, ours answered first and kept for offline use. */
const APP_SW = `
importScripts('/inpage-llm/handle-inference.js');
const SHELL = 'app-shell-v1';
self.addEventListener('install', (event) => event.waitUntil(Promise.all([
  caches.open(SHELL).then((cache) => cache.addAll(['/', '/app-data.json'])),
  inpageLLM.precacheRuntime('${RUNTIME_CACHE}'),
]).then(() => self.skipWaiting())));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (inpageLLM.handleRuntime(event, '${RUNTIME_CACHE}')) return;
  if (new URL(event.request.url).pathname.startsWith('/v1/')) return;
  event.respondWith(caches.open(SHELL).then((cache) => cache.match(event.request, { ignoreSearch: true })).then((hit) => hit ?? fetch(event.request)));
});
`;

const PAGE = `<!doctype html>
<title>own worker</title>
<script type="module">
  import { startInference } from '/inpage-llm/client.js';
  window.inference = await startInference({ serviceWorkerUrl: '/app-sw.js', serviceWorkerType: 'classic' });
  document.body.dataset.ready = 'true';
</script>`;


let server: StaticServer | undefined;
test.afterAll(async () => server?.close());

test("an app's own service worker keeps its cache and our endpoints after an offline reload, the server stopped", async ({ page }) => {
  const { tarball } = await packedTarball();
  const app = await emptyAppWithPackage(tarball);
  await sh('npx', ['inpage-llm', 'init', 'public', '--models'], app);
  await writeFile(join(app, 'public', 'app-sw.js'), APP_SW);
  await writeFile(join(app, 'public', 'app-data.json'), JSON.stringify({ shell: 'from the app' }));
  await writeFile(join(app, 'public', 'index.html'), PAGE);
  server = await serveStatic(join(app, 'public'));

  const failed: string[] = [];
  page.on('requestfailed', (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log(`[page error] ${msg.text()} (${msg.location().url})`);
  });

  await page.goto(server.url);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/app-sw\.js\?base=/);
  expect(await chatAndEmbed(page)).toMatchObject({ chat: 200, embed: 200 });
  // The worker installed only once the runtime was copied: the wasm under the URL the engine asks for.
  const kept = await page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname + new URL(r.url).search), RUNTIME_CACHE);
  expect(kept).toEqual(expect.arrayContaining(['/inpage-llm/client.js', '/inpage-llm/engine-worker.js', expect.stringMatching(/^\/inpage-llm\/ort-wasm-simd-threaded\.asyncify\.wasm\?v=\d/)]));
  expect(kept.some((path) => path.includes('/models/'))).toBe(false);

  await server.close();
  server = undefined;
  // Nothing answers now but the worker's caches.
  expect(await page.evaluate(() => fetch('/not-cached.txt').then((r) => r.status, () => 'network error'))).toBe('network error');

  failed.length = 0;
  await page.reload();
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(async () => (await (await fetch('/app-data.json')).json()).shell)).toBe('from the app');
  const offline = await chatAndEmbed(page);
  expect(offline).toMatchObject({ chat: 200, embed: 200 });
  expect(offline.content.length).toBeGreaterThan(0);
  expect(offline.dims).toBeGreaterThan(0);
  // Every runtime file came from a copy: none failed on the way.
  expect(failed.filter((line) => line.includes('/inpage-llm/'))).toEqual([]);
});
