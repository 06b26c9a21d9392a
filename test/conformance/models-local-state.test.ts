/**
 * `GET /models` with each model's state on this device (`local`), through the official `openai`
 * and `@anthropic-ai/sdk` clients: both keep working unchanged with the extra object present, and
 * the raw answer carries it. Real transformers.js on the tiny models, directly and through the
 * worker RPC (the path every tab's requests take to the engine worker).
 */
import Anthropic from '@anthropic-ai/sdk';
import { wrap } from 'comlink';
import OpenAI from 'openai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { createModelHost, type ModelHost } from '../../src/engines/hosting/model-host.ts';
import { tinyModelSpecs } from '../../src/engines/catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import type { EngineHostApi } from '../../src/contracts/engine-host.ts';
import { linkEngine } from '../../src/rpc/engine-link.ts';
import { createHostService } from '../../src/rpc/expose-host.ts';
import { tinyModelDir } from '../support/engines.ts';
import { BASE, createHarness, TRANSPORTS, type Harness } from '../support/harness.ts';

interface WireLocal {
  state: string;
  downloaded: boolean;
  size_bytes: number;
  runnable: boolean;
  requires: string[];
  backend?: string;
  reason?: string;
  error?: string;
}
const localOf = (model: unknown) => (model as { local?: WireLocal }).local;
const ANTHROPIC_HEADERS = { 'anthropic-version': '2023-06-01' };

const ROUTES: { name: string; engine: (host: ModelHost) => Engine }[] = [
  { name: 'the model host', engine: (host) => host },
  {
    name: 'the model host through the worker RPC',
    engine: (host) => {
      const { port1, port2 } = new MessageChannel();
      createHostService(host).serve(port1);
      return linkEngine(wrap<EngineHostApi>(port2));
    },
  },
];

describe.each(ROUTES)('model states on $name', (route) => {
  let host: ModelHost;
  beforeAll(async () => {
    host = createModelHost({ adapters: [createTransformersAdapter({ models: tinyModelSpecs, localModelPath: await tinyModelDir(), device: 'cpu' })] });
    await host.load('tiny-chat');
  });

  describe.each(TRANSPORTS)('via %s', (transport) => {
    let h: Harness;
    const open = (options: Parameters<typeof createHarness>[1] = { engine: route.engine(host) }) => (h = createHarness(transport, options));
    afterEach(() => h.close());

    it('openai: list and retrieve work unchanged, and each model carries its local state', async () => {
      const oa = open().openai();
      const list = await oa.models.list();
      expect(list.data.map((m) => m.id)).toEqual(['tiny-chat', 'tiny-embed']);
      for (const m of list.data) expect(m).toMatchObject({ object: 'model', owned_by: 'local', created: expect.any(Number) });
      // On Node there is no Cache Storage: the bundled files are read from local disk, by the CPU backend.
      // The chat model's prefix cache holds nothing yet (no request has run), under the default bound.
      expect(localOf(list.data[0])).toEqual({ state: 'loaded', downloaded: true, size_bytes: 0, runnable: true, backend: 'cpu', backend_reason: 'set to cpu', requires: [], prefix_cache: { entries: 0, bytes: 0, max_bytes: 256 * 1024 * 1024 } });
      expect(localOf(list.data[1])).toMatchObject({ state: 'available', runnable: true, backend: 'cpu' });
      expect(localOf(list.data[1])).not.toHaveProperty('prefix_cache');

      const retrieved = await oa.models.retrieve('tiny-chat');
      expect(retrieved).toMatchObject({ id: 'tiny-chat', object: 'model', owned_by: 'local' });
      expect(localOf(retrieved)?.state).toBe('loaded');
      await expect(oa.models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);

      const raw = await (await h.fetch(`${BASE}/models/tiny-embed`)).json();
      expect(Object.keys(raw.local).sort()).toEqual(['backend', 'backend_reason', 'downloaded', 'requires', 'runnable', 'size_bytes', 'state']);
    });

    it('anthropic: list, auto-pagination and retrieve work unchanged, and each model carries its local state', async () => {
      const an = open().anthropic();
      const page = await an.models.list();
      expect(page.data.map((m) => m.id)).toEqual(['tiny-chat', 'tiny-embed']);
      for (const m of page.data) expect(m).toMatchObject({ type: 'model', display_name: expect.any(String), created_at: expect.any(String) });
      expect(page.data.map((m) => localOf(m)?.state)).toEqual(['loaded', 'available']);
      const all: string[] = [];
      for await (const m of an.models.list({ limit: 1 })) all.push(m.id);
      expect(all).toEqual(['tiny-chat', 'tiny-embed']);
      expect(localOf(await an.models.retrieve('tiny-chat'))?.state).toBe('loaded');
      await expect(an.models.retrieve('no-such-model')).rejects.toBeInstanceOf(Anthropic.NotFoundError);

      const raw = await (await h.fetch(`${BASE}/models`, { headers: ANTHROPIC_HEADERS })).json();
      expect(raw).toMatchObject({ has_more: false, first_id: 'tiny-chat', last_id: 'tiny-embed' });
      expect(raw.data[0].local).toEqual({ state: 'loaded', downloaded: true, size_bytes: 0, runnable: true, backend: 'cpu', backend_reason: 'set to cpu', requires: [], prefix_cache: { entries: 0, bytes: 0, max_bytes: 256 * 1024 * 1024 } });
    });

    it('a key limited to some models sees only their states', async () => {
      open({ engine: route.engine(host), apiKeys: [{ key: 'sk-embed-only', models: ['tiny-embed'] }] });
      const list = await h.openai({ apiKey: 'sk-embed-only' }).models.list();
      expect(list.data.map((m) => [m.id, localOf(m)?.state])).toEqual([['tiny-embed', 'available']]);
      const page = await h.anthropic({ apiKey: 'sk-embed-only' }).models.list();
      expect(page.data.map((m) => m.id)).toEqual(['tiny-embed']);
    });

    it('an engine that fails to read its states still lists its models, without the local object', async () => {
      const engine = route.engine(host);
      const failing: Engine = { listModels: () => engine.listModels(), chat: engine.chat.bind(engine), embed: engine.embed.bind(engine), modelStates: () => Promise.reject(new Error('no storage')) };
      open({ engine: failing });
      const list = await h.openai().models.list();
      expect(list.data.map((m) => m.id)).toEqual(['tiny-chat', 'tiny-embed']);
      expect(list.data.every((m) => localOf(m) === undefined)).toBe(true);
      const page = await h.anthropic().models.list();
      expect(page.data.map((m) => localOf(m))).toEqual([undefined, undefined]);
    });
  });
});
