/**
 * An app's own models, added from `startInference({ engine: { models } })`: a transformers.js model
 * self-hosted on the app's origin (by path, and by same-origin URL) loads and answers like the
 * catalog model with the same files; a web-llm entry is listed; a mistaken entry is a clear 503
 * naming it, in the protocol's shape, for every call.
 */
import type { Page } from '@playwright/test';
import { expect, startRuntime, test } from './fixtures.ts';

async function postJson(page: Page, url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  return page.evaluate(
    async ({ url, body, headers }) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
    { url, body, headers },
  );
}

test('a self-hosted transformers.js model from the app origin answers like the catalog model with the same files; a web-llm entry is listed', async ({ page, baseURL }) => {
  await startRuntime(page, {
    models: [
      // The bundled tiny-embed files, served from the app's origin under another id.
      { engine: 'transformers', id: 'my-embedder', kind: 'embedding', source: '/inpage-llm/models/tiny-embed', dimensions: 32, displayName: 'My embedder' },
      { engine: 'transformers', id: 'my-embedder-by-url', kind: 'embedding', source: `${baseURL}/inpage-llm/models/tiny-embed/` },
      { engine: 'webllm', id: 'my-llm', modelUrl: '/mlc/my-llm/', modelLib: '/mlc/libs/my-llm-webgpu.wasm', contextWindow: 2048 },
    ],
  });
  const listed = await page.evaluate(async () => ((await (await fetch('/v1/models')).json()) as { data: { id: string; owned_by: string }[] }).data.map((m) => m.id));
  expect(listed).toEqual(expect.arrayContaining(['my-embedder', 'my-embedder-by-url', 'my-llm', 'tiny-embed']));

  const embed = (model: string) => postJson(page, '/v1/embeddings', { model, input: ['the cat sleeps in the warm house'] });
  const [catalog, own, byUrl] = await Promise.all([embed('tiny-embed'), embed('my-embedder'), embed('my-embedder-by-url')]);
  expect(catalog.status).toBe(200);
  expect(own.status).toBe(200);
  expect(byUrl.status).toBe(200);
  const vector = (r: typeof own) => (r.body as { data: { embedding: number[] }[] }).data[0]!.embedding;
  expect(vector(own)).toEqual(vector(catalog));
  expect(vector(byUrl)).toEqual(vector(catalog));
  expect((own.body as { model: string }).model).toBe('my-embedder');

  const llm = await page.evaluate(async () => (await (await fetch('/v1/models/my-llm')).json()) as { id: string; local?: { runnable: boolean } });
  expect(llm.id).toBe('my-llm');
});

test('a mistaken model entry fails every call with a 503 that names it, in each flavour', async ({ page }) => {
  await startRuntime(page, {
    models: [{ engine: 'transformers', id: 'elsewhere', kind: 'embedding', source: 'https://models.example.com/elsewhere' }],
  });
  const openai = await postJson(page, '/v1/embeddings', { model: 'tiny-embed', input: 'hi' });
  expect(openai.status).toBe(503);
  expect(JSON.stringify(openai.body)).toMatch(/engine\.models \\"elsewhere\\".*transformersRemoteHost/);
  const anthropic = await postJson(page, '/v1/messages', { model: 'tiny-chat', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-version': '2023-06-01' });
  expect(anthropic.status).toBe(503);
  expect(anthropic.body).toMatchObject({ type: 'error', error: { message: expect.stringContaining('"elsewhere"') } });
  const models = await page.evaluate(async () => (await fetch('/v1/models')).status);
  expect(models).toBe(503);
});
