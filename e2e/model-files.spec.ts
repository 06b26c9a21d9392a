/**
 * Model files that are not what their URL names. The test server is the app's own (vite preview):
 * like many single-page-app hosts, it answers an unknown path with index.html and a 200, which is
 * exactly what a model file fetched from a wrong or missing location gets.
 */
import { expect, startRuntime, test } from './fixtures.ts';

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
