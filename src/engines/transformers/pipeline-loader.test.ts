// A model whose files a server answers with an HTML page (vite's index.html for a missing
// /inpage-llm/models/... path) must fail with that reason, naming the URL, not with the hub's
// "Failed to fetch" that transformers.js reports after it tries the hub instead.
import { env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';

const APP = 'http://app.local/inpage-llm/models/';
const requested: string[] = [];
const realFetch = env.fetch;

beforeAll(() => {
  // As a browser has it: Cache Storage (so the product's fetch tells the load about its files).
  vi.stubGlobal('caches', new MemoryCacheStorage());
  env.fetch = (async (input: string | URL | Request) => {
    const url = input instanceof Request ? input.url : String(input);
    requested.push(url);
    if (url.startsWith(APP)) return new Response('<!doctype html><html><body>the app</body></html>', { headers: { 'content-type': 'text/html' } });
    throw new TypeError('Failed to fetch');
  }) as typeof env.fetch;
});
afterAll(() => {
  env.fetch = realFetch;
  vi.unstubAllGlobals();
});

describe('a model whose files answer with an HTML page', () => {
  it('fails with a 503 that names the URL and the HTML page, not "Failed to fetch"', async () => {
    // configure-env wraps the fetch it finds when it is first imported: the stub above.
    const { configureEnv } = await import('./configure-env.ts');
    const { createPipelineLoader } = await import('./pipeline-loader.ts');
    const loader = createPipelineLoader(async () => 'wasm', configureEnv({ localModelPath: APP, allowRemoteModels: true }));
    const failure = await loader.load('text-generation', { id: 'app-chat', source: 'app-chat' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'model_unavailable', status: 503 });
    expect((failure as Error).message).toContain(`Model "app-chat" could not be loaded: The server answered ${APP}app-chat/config.json with an HTML page`);
    expect((failure as Error).message).not.toContain('Failed to fetch');
    // transformers.js did try the hub after the app's folder: that failure is not the reason given.
    expect(requested.some((url) => url.startsWith('https://huggingface.co/'))).toBe(true);
  });
});
