/** The Node entry: the catalog's transformers.js models (and an app's own) behind the gateway, for real. */
import { mkdtemp } from 'node:fs/promises';
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

  it('refuses a web-llm entry, which needs a browser', () => {
    expect(() => createNodeEngine({ models: [{ engine: 'webllm', id: 'w', modelUrl: 'https://x/', modelLib: 'https://x/l.wasm' }] })).toThrow(/"w" runs on web-llm/);
  });
});
