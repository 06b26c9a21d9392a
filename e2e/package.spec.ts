/**
 * The package as apps get it: `npm pack`, then installed from the tarball into fresh folders in
 * /tmp, built the way each kind of app builds, served by a plain static server and driven in
 * Chromium. Nothing here imports this repository's sources: each app knows only `inpage-llm`.
 *
 * - The notes example (examples/notes: vite, the vite plugin, the official openai client).
 * - A plain page with no bundler: `npx inpage-llm init` output and a `<script type="module">`.
 * - An app whose own service worker caches its shell and imports ours.
 * - A stale copied service worker: reported with the command that fixes it, and still serving.
 * - publint and @arethetypeswrong on the tarball; its size.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { chatAndEmbed, emptyAppWithPackage, installApp, packedTarball, sh } from './packed-package.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

test.describe.configure({ mode: 'serial', timeout: 600_000 });

const ROOT = resolve(import.meta.dirname, '..');
const servers: StaticServer[] = [];
test.afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(root: string): Promise<string> {
  const server = await serveStatic(root);
  servers.push(server);
  return server.url;
}

function logErrors(page: Page): string[] {
  const warnings: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'warning') warnings.push(msg.text());
    const text = `${msg.text()} (${msg.location().url})`;
    if (msg.type() === 'error' && !/favicon|ERR_INTERNET_DISCONNECTED|net::ERR_FAILED/.test(text)) console.log(`[page error] ${text}`);
  });
  return warnings;
}

test('the packed tarball passes publint and @arethetypeswrong, ships no model weights and one onnxruntime wasm', async () => {
  const { tarball, bytes } = await packedTarball();
  console.log(`packed tarball: ${tarball} (${(bytes / 1e6).toFixed(2)} MB)`);
  const publint = await sh('npx', ['publint', 'run', tarball, '--strict'], ROOT);
  expect(publint).toContain('All good!');
  // ESM only by design: node10 and require() resolution are not offered. attw exits non-zero on a
  // problem in the resolutions it checks; each entry must also resolve, with types, in both.
  const attw = await sh('npx', ['attw', tarball, '--profile', 'esm-only', '--format', 'ascii'], ROOT);
  const checked = attw.split('\n').filter((line) => /^(node16 \(from ESM\)|bundler):/.test(line));
  expect(checked.length).toBeGreaterThanOrEqual(2 * 7);
  for (const line of checked) expect(line).toMatch(/🟢|\(wildcard\)/u);
  const listing = await sh('tar', ['-tzf', tarball], ROOT);
  expect(listing).not.toMatch(/\.(onnx|bin|safetensors)$/m);
  // The engine's wasm, so that a browser app installs no onnxruntime (docs/decisions/small-browser-install.md).
  expect(listing.match(/^.*\.wasm$/gm)).toEqual(['package/dist/browser/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm']);
  expect(listing).toMatch(/package\/dist\/browser\/inpage-llm-sw\.js$/m);
  expect(bytes).toBeLessThan(11e6);
});

let notes: Promise<string> | undefined;
/** The notes example with the tarball installed, once for the tests that use it. */
const notesApp = () => (notes ??= packedTarball().then(({ tarball }) => installApp('examples/notes', tarball)));

const NOTES = ['the cat sleeps in the warm house', 'paris is the capital of france', 'we eat apple and banana fruit for food', 'the river runs to the sea under the moon'];
const QUERY = 'where does the cat sleep';

test('the notes example, built with vite from the tarball: controlled, chat streams through openai, search ranks as in Node, and all of it works offline after a reload', async ({ page, context }) => {
  const app = await notesApp();
  await sh('npx', ['vite', 'build'], app);
  const url = await serve(join(app, 'dist'));

  // The ranking the same tiny model gives in Node (the package's Node entry, onnxruntime-node),
  // once the app installs what the Node entry needs.
  await writeFile(join(app, 'rank.mjs'), RANK_SCRIPT);
  await sh('npm', ['install', '--no-save', '@huggingface/transformers@4.3.1', '--prefer-offline', '--no-audit', '--no-fund'], app);
  const nodeScores = JSON.parse(await sh('node', ['rank.mjs'], app)) as number[];
  const expectedFirst = NOTES[nodeScores.indexOf(Math.max(...nodeScores))];
  expect(expectedFirst).toBe(NOTES[0]);

  logErrors(page);
  await page.goto(url);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(`${url}/inpage-llm-sw.js?base=%2Fv1`);

  for (const note of NOTES) {
    await page.fill('#note', note);
    await page.click('#add button');
    await expect(page.locator('#notes li')).toHaveCount(NOTES.indexOf(note) + 1);
  }
  const search = async () => {
    await page.fill('#query', QUERY);
    await page.click('#search button');
    await expect(page.locator('#results li')).toHaveCount(NOTES.length);
    return page.locator('#results li').first().textContent();
  };
  expect(await search()).toContain(expectedFirst);
  const browserTop = Number(await page.locator('#results li .score').first().textContent());
  expect(browserTop).toBeCloseTo(Math.max(...nodeScores), 3);

  const ask = async () => {
    await page.fill('#question', 'where does the cat sleep');
    await page.click('#ask button');
    await expect(page.locator('#answer[data-done="true"]')).toBeAttached();
    return page.locator('#answer').textContent();
  };
  // The chunks arrive one by one: the answer grows while the stream is open.
  const lengths: number[] = [];
  const watcher = page.evaluate(
    () =>
      new Promise<number[]>((done) => {
        const seen: number[] = [];
        const answer = document.querySelector('#answer')!;
        new MutationObserver(() => {
          seen.push(answer.textContent!.length);
          if ((answer as HTMLElement).dataset.done) done(seen);
        }).observe(answer, { childList: true, characterData: true, subtree: true, attributes: true });
      }),
  );
  expect((await ask())?.length).toBeGreaterThan(0);
  lengths.push(...(await watcher));
  expect(new Set(lengths).size).toBeGreaterThan(2);

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await expect(page.locator('#notes li')).toHaveCount(NOTES.length);
  expect(await search()).toContain(expectedFirst);
  expect((await ask())?.length).toBeGreaterThan(0);
  await context.setOffline(false);
});

test('the vite plugin serves the files in dev: the notes example runs on `vite` dev server', async ({ page }) => {
  const app = await notesApp();
  const port = await freePort();
  const dev = spawn('npx', ['vite', '--port', String(port), '--strictPort'], { cwd: app, stdio: 'pipe', detached: true });
  try {
    const url = `http://localhost:${port}`;
    await expect.poll(() => fetch(url).then((r) => r.status, () => 0), { timeout: 60_000 }).toBe(200);
    for (const [path, type] of [['/inpage-llm-sw.js', 'text/javascript'], ['/inpage-llm/engine-worker.js', 'text/javascript'], ['/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm', 'application/wasm'], ['/inpage-llm/models/tiny-embed/config.json', 'application/json']] as const) {
      const response = await fetch(url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toContain(type);
    }
    logErrors(page);
    await page.goto(url);
    await expect(page.locator('body[data-ready="true"]')).toBeAttached();
    await page.fill('#note', NOTES[0]!);
    await page.click('#add button');
    await expect(page.locator('#notes li')).toHaveCount(1);
  } finally {
    process.kill(-dev.pid!, 'SIGTERM');
  }
});

/** A port nothing listens on now (the OS picks it), for a server started by another process. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const RANK_SCRIPT = `
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeEngine, writeTinyModels } from 'inpage-llm/node';
const dir = await mkdtemp(join(tmpdir(), 'tiny-'));
await writeTinyModels(dir);
const engine = createNodeEngine({ localModelPath: dir });
const notes = ${JSON.stringify(NOTES)};
const { embeddings } = await engine.embed({ model: 'tiny-embed', input: [...notes, ${JSON.stringify(QUERY)}] }, { signal: new AbortController().signal });
const query = embeddings[notes.length];
console.log(JSON.stringify(notes.map((_, i) => embeddings[i].reduce((sum, v, j) => sum + v * query[j], 0))));
`;

/** A page with no bundler: the module `init` copies, loaded by a script tag. */
const PLAIN_PAGE = `<!doctype html>
<title>plain</title>
<script type="module">
  import { startInference } from '/inpage-llm/client.js';
  window.inference = await startInference(window.START_OPTIONS ?? {});
  document.body.dataset.ready = 'true';
</script>`;


test('a plain page with no bundler: `npx inpage-llm init public --models` and a module script tag', async ({ page }) => {
  const { tarball } = await packedTarball();
  const app = await emptyAppWithPackage(tarball);
  const out = await sh('npx', ['inpage-llm', 'init', 'public', '--models'], app);
  expect(out).toMatch(/wrote \d+ files/);
  await writeFile(join(app, 'public', 'index.html'), PLAIN_PAGE);
  const url = await serve(join(app, 'public'));

  logErrors(page);
  await page.goto(url);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const result = await chatAndEmbed(page);
  expect(result).toMatchObject({ chat: 200, embed: 200, json: true });
  expect(result.content.length).toBeGreaterThan(0);
  expect(result.dims).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { inference: { serviceWorker: { upToDate: boolean } } }).inference.serviceWorker.upToDate)).toBe(true);
});

/** An app's own classic service worker: caches its shell, and pulls ours in with one line. */
const APP_SW = `
importScripts('/inpage-llm/handle-inference.js');
const SHELL = 'app-shell-v1';
self.addEventListener('install', (event) => event.waitUntil(caches.open(SHELL).then((c) => c.addAll(['/', '/app-data.json'])).then(() => self.skipWaiting())));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname.startsWith('/v1/')) return;
  event.respondWith(caches.match(event.request, { ignoreSearch: true }).then((hit) => hit ?? fetch(event.request)));
});
`;

test("an app with its own service worker: its shell caching and our endpoints both work, offline too", async ({ page, context }) => {
  const { tarball } = await packedTarball();
  const app = await emptyAppWithPackage(tarball);
  await sh('npx', ['inpage-llm', 'init', 'public', '--models'], app);
  await writeFile(join(app, 'public', 'app-sw.js'), APP_SW);
  await writeFile(join(app, 'public', 'app-data.json'), JSON.stringify({ shell: 'from the app' }));
  await writeFile(join(app, 'public', 'index.html'), PLAIN_PAGE.replace('<script type="module">', `<script>window.START_OPTIONS = { serviceWorkerUrl: '/app-sw.js', serviceWorkerType: 'classic' };</script>\n<script type="module">`));
  const url = await serve(join(app, 'public'));

  logErrors(page);
  await page.goto(url);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/app-sw\.js\?base=/);
  expect(await chatAndEmbed(page)).toMatchObject({ chat: 200, embed: 200 });

  await context.setOffline(true);
  // The app's cache answers its own files...
  expect(await page.evaluate(async () => (await (await fetch('/app-data.json')).json()).shell)).toBe('from the app');
  // ...and the API still answers (the page's own requests, and those through the service worker).
  expect(await chatAndEmbed(page)).toMatchObject({ chat: 200, embed: 200 });
  const viaWorker = await page.evaluate(async () => {
    const frame = document.createElement('iframe');
    frame.src = '/app-data.json';
    document.body.append(frame);
    await new Promise((r) => frame.addEventListener('load', r, { once: true }));
    return (await frame.contentWindow!.fetch('/v1/models')).status;
  });
  expect(viaWorker).toBe(200);
  await context.setOffline(false);
});

test('a stale copied service worker is reported with the command that fixes it, and still serves', async ({ page }) => {
  const { tarball } = await packedTarball();
  const app = await emptyAppWithPackage(tarball);
  await sh('npx', ['inpage-llm', 'init', 'public', '--models'], app);
  const { version } = JSON.parse(await readFile(join(app, 'node_modules', 'inpage-llm', 'package.json'), 'utf8')) as { version: string };
  // An older copy: the same protocol, an older version (as after `npm update` without `init`).
  const sw = join(app, 'public', 'inpage-llm-sw.js');
  const script = await readFile(sw, 'utf8');
  expect(script).toContain(JSON.stringify(version).slice(1, -1));
  const stale = script.replaceAll(`"${version}"`, '"0.0.1"').replaceAll(`\`${version}\``, '`0.0.1`');
  expect(stale).not.toContain(version);
  await writeFile(sw, stale);
  await writeFile(join(app, 'public', 'index.html'), PLAIN_PAGE);
  const url = await serve(join(app, 'public'));

  const warnings = logErrors(page);
  await page.goto(url);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const info = await page.evaluate(() => (window as unknown as { inference: { serviceWorker: { version: string; upToDate: boolean; warning?: string } } }).inference.serviceWorker);
  expect(info).toMatchObject({ version: '0.0.1', upToDate: false });
  expect(info.warning).toContain('npx inpage-llm init');
  expect(warnings.some((w) => w.includes('0.0.1') && w.includes('npx inpage-llm init'))).toBe(true);
  expect(await chatAndEmbed(page)).toMatchObject({ chat: 200, embed: 200 });
});
