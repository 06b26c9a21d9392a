/** The Node entry: the catalog's transformers.js models (and an app's own) behind the gateway, for real. */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGateway, createNodeEngine, writeTinyModels } from './index.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-node-'));
  await writeTinyModels(dir);
});

describe('createNodeEngine', () => {
  it('answers through the gateway and the official client, with an own model from a folder', async () => {
    const engine = createNodeEngine({ localModelPath: dir, models: [{ engine: 'transformers', id: 'my-embed', kind: 'embedding', source: join(dir, 'tiny-embed') }] });
    const gateway = createGateway({ engine, baseUrl: 'http://local.test/v1' });
    const client = new OpenAI({ baseURL: 'http://local.test/v1', apiKey: 'local', fetch: (input, init) => gateway.fetch(new Request(input, init)) });
    const models = (await client.models.list()).data.map((m) => m.id);
    expect(models).toEqual(expect.arrayContaining(['tiny-chat', 'tiny-embed', 'my-embed']));
    const [own, catalog] = await Promise.all(['my-embed', 'tiny-embed'].map((model) => client.embeddings.create({ model, input: 'the cat sleeps' })));
    expect(own!.data[0]!.embedding).toEqual(catalog!.data[0]!.embedding);
    const chat = await client.chat.completions.create({ model: 'tiny-chat', max_tokens: 4, messages: [{ role: 'user', content: 'hello' }] });
    expect(chat.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('lists the tiny models only where the models folder holds them, and says downloaded from the files there', async () => {
    const partial = await mkdtemp(join(tmpdir(), 'inpage-node-partial-'));
    try {
      await cp(join(dir, 'tiny-chat'), join(partial, 'tiny-chat'), { recursive: true });
      const engine = createNodeEngine({ localModelPath: partial });
      const ids = (await engine.listModels()).map((model) => model.id);
      expect(ids).toContain('tiny-chat');
      expect(ids).not.toContain('tiny-embed');
      const downloaded = async () => (await engine.modelStates()).find((state) => state.id === 'tiny-chat')?.downloaded;
      expect(await downloaded()).toBe(true);
      // Its weights gone: no longer on disk, though it was listed at the start.
      await rm(join(partial, 'tiny-chat', 'onnx'), { recursive: true });
      expect(await downloaded()).toBe(false);
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  });

  it('refuses a web-llm entry, which needs a browser', () => {
    expect(() => createNodeEngine({ models: [{ engine: 'webllm', id: 'w', modelUrl: 'https://x/', modelLib: 'https://x/l.wasm' }] })).toThrow(/"w" runs on web-llm/);
  });
});
