/**
 * Model files that are not what their URL names. The test server is the app's own (vite preview):
 * like many single-page-app hosts, it answers an unknown path with index.html and a 200, which is
 * exactly what a model file fetched from a wrong or missing location gets.
 */
import type { CDPSession, Page } from '@playwright/test';
import { engineWorker, expect, startRuntime, test } from './fixtures.ts';
import { serveModel, type ModelServer } from './model-server.ts';

test('an HTML page served where a model file belongs is a clear 503 naming the URL, and the engine keeps serving', async ({ page }) => {
  // The "hub" is this origin's /hub/, which has no files: every model URL there gets index.html.
  await startRuntime(page, { transformersRemoteHost: '/hub/' });
  const answer = await page.evaluate(async () => {
    const response = await fetch('/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'all-MiniLM-L6-v2', input: 'hello' }) });
    return { status: response.status, body: await response.json() };
  });
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('model_unavailable');
  expect(answer.body.error.message).toMatch(/\/hub\/Xenova\/all-MiniLM-L6-v2\/resolve\/main\/[\w./]+ with an HTML page \(text\/html\), not the model file/);
  const status = await page.evaluate(() => window.inference.status());
  expect(status!.find((s) => s.model === 'all-MiniLM-L6-v2')).toMatchObject({ state: 'failed' });
  // Nothing of the page was kept as a model file.
  const cached = await page.evaluate(async () => (await caches.has('transformers-cache')) ? (await (await caches.open('transformers-cache')).keys()).map((r) => r.url).filter((u) => u.includes('/hub/')) : []);
  expect(cached).toEqual([]);
  // The bundled models still answer.
  const ok = await page.evaluate(async () => (await fetch('/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tiny-embed', input: 'hello' }) })).status);
  expect(ok).toBe(200);
});

/**
 * The faults of a real model host, from a server of the test's own (model-server.ts): the tiny
 * embedding model as an app's model `faulty-embed` under a hub layout on another origin, whose
 * files the catalog entry names with their sizes and SRI hashes.
 */
/** The origin's usage once it stops growing (the service worker caches the app shell after start). */
async function settledUsage(cdp: CDPSession, origin: string): Promise<number> {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const { usage } = await cdp.send('Storage.getUsageAndQuota', { origin });
    if (usage === last) return usage;
    last = usage;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return last;
}

test.describe('a model host that misbehaves', () => {
  let server: ModelServer;
  test.beforeEach(async () => {
    server = await serveModel();
  });
  test.afterEach(async () => server.close());

  const start = (page: Page, files = true) =>
    startRuntime(page, {
      transformersRemoteHost: server.url,
      models: [{ engine: 'transformers', id: 'faulty-embed', kind: 'embedding', source: server.repo, contextWindow: 128, dimensions: 32, ...(files ? { files: server.files } : {}) }],
    });
  const embed = (page: Page) =>
    page.evaluate(async () => {
      const started = performance.now();
      const response = await fetch('/v1/embeddings', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'faulty-embed', input: 'hello' }) });
      return { status: response.status, body: await response.json(), ms: performance.now() - started, retry: response.headers.get('x-should-retry') };
    });
  const cachedFiles = (page: Page) =>
    page.evaluate(async () => ((await caches.has('transformers-cache')) ? (await (await caches.open('transformers-cache')).keys()).map((r) => new URL(r.url).pathname).filter((p) => p.includes('/faulty-embed/')) : []));
  const weights = 'onnx/model.onnx';
  /** A failed load answers within this (the tiny model's files are small; no fault may hang a call). */
  const FAIL_WITHIN_MS = 10_000;

  test('a file with one byte flipped is refused naming the URL and both hashes, never cached; a cached copy that no longer matches is evicted and fetched again', async ({ page }) => {
    await start(page);
    server.fault(weights, 'flip');
    const flipped = await embed(page);
    expect(flipped.status).toBe(503);
    expect(flipped.ms).toBeLessThan(FAIL_WITHIN_MS);
    expect(flipped.body.error.code).toBe('model_unavailable');
    expect(flipped.body.error.message).toContain(`${server.url}${server.repo}/resolve/main/${weights} is not the file the catalog names: its hash is sha256-`);
    expect(flipped.body.error.message).toContain(`the catalog says ${server.files[weights]!.integrity}`);
    expect(await cachedFiles(page)).not.toContain(`/${server.repo}/resolve/main/${weights}`);

    server.fault(weights, undefined);
    const served = await embed(page);
    expect(served.status).toBe(200);
    expect(served.body.data[0].embedding).toHaveLength(32);
    expect(await cachedFiles(page)).toContain(`/${server.repo}/resolve/main/${weights}`);

    // The stored copy goes bad. First, something other than the engine writes it back with one
    // byte changed (same length, without the engine's stamp that it was checked): it is hashed,
    // found wrong, evicted and fetched again. Then it is cut short with the stamp kept (a partial
    // write): its size gives it away. Each time the vectors are the right file's.
    const spoil = (how: 'flip' | 'truncate') =>
      page.evaluate(
        async ({ path, how }) => {
          const cache = await caches.open('transformers-cache');
          const key = (await cache.keys()).find((r) => new URL(r.url).pathname === path)!;
          const stored = (await cache.match(key))!;
          const bytes = new Uint8Array(await stored.arrayBuffer());
          const headers = new Headers(stored.headers);
          if (how === 'flip') {
            bytes[bytes.length >> 1]! ^= 0x01;
            headers.delete('x-inpage-llm-checked');
          }
          await cache.put(key, new Response(how === 'flip' ? bytes : bytes.subarray(0, bytes.length >> 1), { headers }));
        },
        { path: `/${server.repo}/resolve/main/${weights}`, how },
      );
    for (const how of ['flip', 'truncate'] as const) {
      await spoil(how);
      await page.evaluate(() => window.inference.restartWorker());
      const fetchedBefore = server.requests.filter((r) => r === weights).length;
      const again = await embed(page);
      expect(again.status).toBe(200);
      expect(again.body.data[0].embedding).toEqual(served.body.data[0].embedding);
      expect(server.requests.filter((r) => r === weights).length).toBe(fetchedBefore + 1);
    }
  });

  test('a download cut off midway is a 503 naming the file and how far it got; the next load fetches only what is missing, and progress says which files came from the cache', async ({ page }) => {
    await start(page);
    server.fault(weights, 'cut');
    const cut = await embed(page);
    expect(cut.status).toBe(503);
    expect(cut.ms).toBeLessThan(FAIL_WITHIN_MS);
    expect(cut.body.error.message).toMatch(new RegExp(`download of ${server.url}${server.repo}/resolve/main/${weights} was cut off after \\d+ of ${server.files[weights]!.bytes} bytes`));
    const kept = await cachedFiles(page);
    expect(kept).toContain(`/${server.repo}/resolve/main/config.json`);
    expect(kept).not.toContain(`/${server.repo}/resolve/main/${weights}`);

    server.fault(weights, undefined);
    const before = server.requests.length;
    await page.evaluate(() => (window.log.progress = []));
    const resumed = await embed(page);
    expect(resumed.status).toBe(200);
    // Only the weights travel again: the files already verified and cached are read back.
    expect(server.requests.slice(before)).toEqual([weights]);
    const progress = await page.evaluate(() => window.log.progress.filter((p) => p.status === 'progress'));
    const fetched = new Set(progress.filter((p) => !p.cached).map((p) => p.file));
    expect([...fetched]).toEqual([weights]);
    expect(progress.filter((p) => p.cached).map((p) => p.file)).toContain('config.json');
    expect(Math.max(...progress.filter((p) => p.file === weights).map((p) => p.total ?? 0))).toBe(server.files[weights]!.bytes);
    // The download asked for persistent storage, and the answer is reported.
    const storage = await page.evaluate(() => window.inference.storage());
    expect(typeof storage.persisted).toBe('boolean');
    expect(storage.persisted).toBe(await page.evaluate(() => navigator.storage.persisted()));
  });

  test('a download that would not fit in storage is refused before it starts (507: how much is needed, how much is free); it is served once there is room', async ({ page }) => {
    await start(page);
    const origin = new URL(page.url()).origin;
    const cdp = await page.context().newCDPSession(page);
    const total = Object.values(server.files).reduce((sum, f) => sum + f.bytes, 0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: (await settledUsage(cdp, origin)) + Math.floor(total / 4) });
    // This Chromium tells pages and workers a quota of their usage plus 10 GiB whatever the real
    // limit (against fingerprinting), so the engine worker's estimate is made to tell the limit
    // the browser enforces, as browsers that report it do.
    const { usage, quota } = await cdp.send('Storage.getUsageAndQuota', { origin });
    const worker = await engineWorker(page);
    await worker.evaluate(([usage, quota]) => Object.assign(navigator.storage, { estimate: async () => ({ usage, quota }) }), [usage, quota]);
    const refused = await embed(page);
    expect(refused.status).toBe(507);
    expect(refused.ms).toBeLessThan(FAIL_WITHIN_MS);
    expect(refused.retry).toBe('false');
    expect(refused.body.error).toMatchObject({ code: 'insufficient_storage', type: 'server_error' });
    expect(refused.body.error.message).toMatch(/Not enough browser storage to download the model "faulty-embed": it needs \d+(\.\d)? KiB, and \d+(\.\d)? (KiB|bytes) is free/);
    // Refused before the first byte: the weights were never requested.
    expect(server.requests).not.toContain(weights);
    expect(await cachedFiles(page)).toEqual([]);

    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await worker.evaluate(() => delete (navigator.storage as { estimate?: unknown }).estimate);
    expect((await embed(page)).status).toBe(200);
  });

  test('the quota running out while a file is stored is reported the same way, and leaves no entry a later load would trust', async ({ page }) => {
    await start(page, false);
    const origin = new URL(page.url()).origin;
    const cdp = await page.context().newCDPSession(page);
    const size = server.files[weights]!.bytes;
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: (await settledUsage(cdp, origin)) + 4 * size });
    server.fault(weights, 'hold');
    const answer = embed(page);
    await expect.poll(() => server.requests.includes(weights)).toBe(true);
    // Room was there when the download began, and the files read before it are stored (their
    // writes can lag their downloads on a busy machine); something else of the app's takes the room
    // meanwhile, so the weights are the file whose storing fails.
    const readBefore = () => [...new Set(server.requests)].filter((path) => path !== weights && path in server.files).map((path) => `/${server.repo}/resolve/main/${path}`);
    await expect.poll(async () => {
      const kept = await cachedFiles(page);
      return readBefore().filter((path) => !kept.includes(path));
    }).toEqual([]);
    const { usage, quota } = await cdp.send('Storage.getUsageAndQuota', { origin });
    await page.evaluate(async (bytes) => {
      const filler = await caches.open('app-data');
      if (bytes > 0) await filler.put('/app-data/blob', new Response(new Uint8Array(bytes)));
    }, quota - usage - Math.floor(size / 2));
    server.release();
    const full = await answer;
    expect(full.status).toBe(507);
    expect(full.ms).toBeLessThan(FAIL_WITHIN_MS);
    expect(full.body.error.code).toBe('insufficient_storage');
    expect(full.body.error.message).toContain(`Not enough browser storage to download the model "faulty-embed": storing ${server.url}${server.repo}/resolve/main/${weights} (118.6 KiB) failed, the browser's storage quota is used up.`);
    expect(await cachedFiles(page)).not.toContain(`/${server.repo}/resolve/main/${weights}`);

    server.fault(weights, undefined);
    await page.evaluate(() => caches.delete('app-data'));
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    expect((await embed(page)).status).toBe(200);
  });
});
