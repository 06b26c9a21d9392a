import { describe, expect, it } from 'vitest';
import type { ChatRequest, LocalFacts } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { ScriptedAdapter } from '../../../test/support/scripted-adapter.ts';
import { SCRIPTED_MODELS } from '../../../test/support/scripted-engine.ts';
import type { EngineAdapter } from './adapter.ts';
import { createModelHost } from './model-host.ts';

const chat = (model = 'scripted-chat', maxTokens = 4): ChatRequest => ({ model, messages: [{ role: 'user', content: 'hi' }], maxTokens, stop: [] });
const drain = async (it: AsyncIterable<unknown>) => {
  const out = [];
  for await (const e of it) out.push(e);
  return out;
};
const signal = () => new AbortController().signal;

describe('model host', () => {
  it('loads a model on first use, once', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter] });
    await drain(host.chat(chat(), { signal: signal() }));
    await drain(host.chat(chat(), { signal: signal() }));
    expect(adapter.loadLog).toEqual(['scripted-chat']);
    expect(host.status().find((s) => s.model === 'scripted-chat')).toMatchObject({ state: 'loaded', loads: 1 });
  });

  it('says it has taken a request once its turn came and its model loaded, before the engine reads the prompt', async () => {
    const adapter = new ScriptedAdapter();
    adapter.loadDelayMs = 50;
    const host = createModelHost({ adapters: [adapter] });
    const events = host.chat(chat(), { signal: signal() })[Symbol.asyncIterator]();
    expect((await events.next()).value).toEqual({ type: 'accepted' });
    expect(host.status().find((s) => s.model === 'scripted-chat')).toMatchObject({ state: 'loaded' });
    expect((await events.next()).value).toMatchObject({ type: 'start' });
    await events.return?.(undefined);
  });

  it('lets a request stop waiting for a load, which goes on: the model is loaded once, and the next request finds it', async () => {
    const adapter = new ScriptedAdapter();
    adapter.loadDelayMs = 300;
    const host = createModelHost({ adapters: [adapter] });
    const controller = new AbortController();
    const started = performance.now();
    const first = drain(host.chat(chat(), { signal: controller.signal })).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 30);
    expect(await first).toMatchObject({ code: 'aborted' });
    expect(performance.now() - started).toBeLessThan(250);
    // The model is free for the next request at once (the aborted one released it), and still loading.
    expect(host.status().find((s) => s.model === 'scripted-chat')).toMatchObject({ state: 'loading' });
    expect(await drain(host.chat(chat(), { signal: signal() }))).toHaveLength(7);
    expect(adapter.loadLog).toEqual(['scripted-chat']);
  });

  it('keeps at most maxLoaded models, unloading the least recently used (A, B, A)', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter], maxLoaded: 1 });
    await host.embed({ model: 'scripted-embed', input: ['a'] }, { signal: signal() });
    expect([...adapter.loaded]).toEqual(['scripted-embed']);
    await host.embed({ model: 'scripted-embed-fixed', input: ['a'] }, { signal: signal() });
    expect([...adapter.loaded]).toEqual(['scripted-embed-fixed']);
    await host.embed({ model: 'scripted-embed', input: ['a'] }, { signal: signal() });
    expect([...adapter.loaded]).toEqual(['scripted-embed']);
    expect(adapter.loadLog).toEqual(['scripted-embed', 'scripted-embed-fixed', 'scripted-embed']);
    expect(host.status().filter((s) => s.state === 'loaded').map((s) => s.model)).toEqual(['scripted-embed']);
  });

  it('with room for two, unloads the one used longest ago', async () => {
    const adapter = new ScriptedAdapter();
    const host = createModelHost({ adapters: [adapter], maxLoaded: 2 });
    for (const model of ['scripted-embed', 'scripted-embed-fixed', 'scripted-embed', 'scripted-chat']) {
      if (model === 'scripted-chat') await drain(host.chat(chat(), { signal: signal() }));
      else await host.embed({ model, input: ['a'] }, { signal: signal() });
    }
    expect([...adapter.loaded].sort()).toEqual(['scripted-chat', 'scripted-embed']);
  });

  it("leaves models that hold none of the app's memory out of maxLoaded", async () => {
    const adapter = new ScriptedAdapter();
    const browser = Object.assign(new ScriptedAdapter(), { holdsNoMemory: true, models: [{ id: 'browser-chat', kind: 'chat' as const, engine: 'browser', contextWindow: 512, maxOutputTokens: 64 }] });
    const host = createModelHost({ adapters: [adapter, browser], maxLoaded: 1 });
    await host.embed({ model: 'scripted-embed', input: ['a'] }, { signal: signal() });
    await host.load('browser-chat');
    expect([...adapter.loaded]).toEqual(['scripted-embed']);
    await host.embed({ model: 'scripted-embed-fixed', input: ['a'] }, { signal: signal() });
    expect([...adapter.loaded]).toEqual(['scripted-embed-fixed']);
    expect(host.status().filter((s) => s.state === 'loaded').map((s) => s.model).sort()).toEqual(['browser-chat', 'scripted-embed-fixed']);
  });

  it('runs one generation at a time per model, in arrival order', async () => {
    const adapter = new ScriptedAdapter({ tokenDelayMs: 2 });
    const host = createModelHost({ adapters: [adapter] });
    const order: string[] = [];
    const run = async (name: string) => {
      for await (const e of host.chat(chat('scripted-chat', 3), { signal: signal() })) if (e.type === 'token') order.push(name);
    };
    await Promise.all([run('a'), run('b')]);
    expect(order).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
  });

  it('refuses work beyond the queue bound with a 429 that says when to retry', async () => {
    const adapter = new ScriptedAdapter({ tokenDelayMs: 5 });
    const host = createModelHost({ adapters: [adapter], maxQueue: 1 });
    const first = drain(host.chat(chat('scripted-chat', 5), { signal: signal() }));
    const second = drain(host.chat(chat('scripted-chat', 1), { signal: signal() }));
    await new Promise((r) => setTimeout(r, 1));
    const third = await drain(host.chat(chat('scripted-chat', 1), { signal: signal() })).catch((e) => e);
    expect(third).toBeInstanceOf(GatewayError);
    expect(third).toMatchObject({ code: 'queue_full', retryAfter: 1 });
    await Promise.all([first, second]);
  });

  it('drops a waiting call whose client aborts', async () => {
    const adapter = new ScriptedAdapter({ tokenDelayMs: 5 });
    const host = createModelHost({ adapters: [adapter], maxQueue: 1 });
    const first = drain(host.chat(chat('scripted-chat', 4), { signal: signal() }));
    const controller = new AbortController();
    const waiting = drain(host.chat(chat(), { signal: controller.signal })).catch((e) => e);
    await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'aborted' });
    // The queue has room again.
    await expect(drain(host.chat(chat('scripted-chat', 1), { signal: signal() }))).resolves.toHaveLength(4);
    await first;
  });

  it('reports a model whose files cannot be fetched as model_unavailable, and can retry later', async () => {
    const adapter = new ScriptedAdapter();
    adapter.broken.add('scripted-chat');
    const host = createModelHost({ adapters: [adapter] });
    const error = await drain(host.chat(chat(), { signal: signal() })).catch((e) => e);
    expect(error).toMatchObject({ code: 'model_unavailable' });
    expect(host.status().find((s) => s.model === 'scripted-chat')).toMatchObject({ state: 'failed', error: expect.stringContaining('Could not fetch') });
    adapter.broken.clear();
    await expect(drain(host.chat(chat(), { signal: signal() }))).resolves.toHaveLength(7);
  });

  it('answers model_not_found for an id no adapter serves', async () => {
    const host = createModelHost({ adapters: [new ScriptedAdapter()] });
    await expect(host.embed({ model: 'nope', input: ['a'] }, { signal: signal() })).rejects.toMatchObject({ code: 'model_not_found' });
  });

  it('lists remote models with its own, without running them or reporting local states for them', async () => {
    const remote = { id: 'team-chat', kind: 'chat' as const, engine: 'remote', contextWindow: 4096, upstream: { baseURL: 'http://gpu1:8000/v1' } };
    const host = createModelHost({ adapters: [new ScriptedAdapter()], remoteModels: [remote] });
    expect((await host.listModels()).map((m) => m.id)).toEqual(['scripted-chat', 'scripted-embed', 'scripted-embed-fixed', 'team-chat']);
    expect((await host.modelStates()).map((s) => s.id)).not.toContain('team-chat');
    // Only a caller past the gateway gets here: the error says where such requests belong.
    await expect(drain(host.chat(chat('team-chat'), { signal: signal() }))).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/runs on another server.*npx inpage-llm init/) });
    expect(() => createModelHost({ adapters: [new ScriptedAdapter()], remoteModels: [{ ...remote, id: 'scripted-chat' }] })).toThrow(/'scripted-chat' is served by two adapters/);
  });
});

/** The scripted adapter, saying what an adapter says of its models' files and device support. */
class AdapterWithFacts extends ScriptedAdapter {
  facts = new Map<string, LocalFacts>([
    ['scripted-chat', { downloaded: true, bytesOnDisk: 1234, runnable: true, backend: 'wasm', requires: [] }],
    ['scripted-embed', { downloaded: false, bytesOnDisk: 0, runnable: false, reason: 'No GPU here.', requires: ['webgpu'] }],
  ]);
  async localFacts() {
    return this.facts;
  }
}

/** A second adapter serving one other model, whose facts cannot be read. */
const unreadable: EngineAdapter = {
  models: [{ id: 'other-chat', kind: 'chat', engine: 'other', contextWindow: 100 }],
  load: async () => {},
  unload: async () => {},
  chat: () => {
    throw new Error('not used');
  },
  embed: () => {
    throw new Error('not used');
  },
  localFacts: async () => {
    throw new Error('Cache Storage is unavailable.');
  },
};

describe('model host states', () => {
  it('combines its own state of each model with what the adapter says of files and device', async () => {
    const host = createModelHost({ adapters: [new AdapterWithFacts()] });
    await host.load('scripted-chat');
    const states = new Map((await host.modelStates()).map((s) => [s.id, s]));
    expect(states.get('scripted-chat')).toEqual({ id: 'scripted-chat', state: 'loaded', downloaded: true, bytesOnDisk: 1234, runnable: true, backend: 'wasm', requires: [] });
    expect(states.get('scripted-embed')).toEqual({
      id: 'scripted-embed',
      state: 'available',
      downloaded: false,
      bytesOnDisk: 0,
      runnable: false,
      reason: 'No GPU here.',
      requires: ['webgpu'],
    });
    expect([...states.keys()]).toEqual((await host.listModels()).map((m) => m.id));
  });

  it('reports loading while a load runs, then failed with the error, then loaded after a retry', async () => {
    const adapter = new AdapterWithFacts();
    adapter.loadDelayMs = 20;
    adapter.broken.add('scripted-chat');
    const host = createModelHost({ adapters: [adapter] });
    const state = async () => (await host.modelStates()).find((s) => s.id === 'scripted-chat')!;
    const loading = host.load('scripted-chat').catch((e: unknown) => e);
    expect((await state()).state).toBe('loading');
    expect(await loading).toMatchObject({ code: 'model_unavailable' });
    expect(await state()).toMatchObject({ state: 'failed', error: expect.stringContaining('Could not fetch') });
    adapter.broken.clear();
    await host.load('scripted-chat');
    expect(await state()).toMatchObject({ state: 'loaded' });
    expect(await state()).not.toHaveProperty('error');
  });

  it('reads the facts again on every call: they change as files are stored or deleted', async () => {
    const adapter = new AdapterWithFacts();
    const host = createModelHost({ adapters: [adapter] });
    expect((await host.modelStates()).find((s) => s.id === 'scripted-chat')?.bytesOnDisk).toBe(1234);
    adapter.facts.set('scripted-chat', { downloaded: false, bytesOnDisk: 0, runnable: true, backend: 'wasm', requires: [] });
    expect((await host.modelStates()).find((s) => s.id === 'scripted-chat')).toMatchObject({ downloaded: false, bytesOnDisk: 0 });
  });

  it('an adapter without facts, or whose facts fail, still lists its models: runnable, nothing stored', async () => {
    const host = createModelHost({ adapters: [new ScriptedAdapter(), unreadable] });
    const states = await host.modelStates();
    expect(states.map((s) => s.id)).toEqual([...new ScriptedAdapter().models.map((m) => m.id), 'other-chat']);
    for (const state of states) expect(state).toEqual({ id: state.id, state: 'available', downloaded: false, bytesOnDisk: 0, runnable: true, requires: [] });
  });
});

describe('model host: a list read at run time', () => {
  /** An adapter whose full list comes later, as web-llm's does (read from its script): one model at once, a second and a better-known first on reading. */
  class LazyAdapter extends ScriptedAdapter {
    override readonly models = [{ id: 'scripted-chat', kind: 'chat', engine: 'scripted', contextWindow: 64 }] as const;
    reads = 0;
    release!: () => void;
    readonly gate = new Promise<void>((resolve) => (this.release = resolve));
    override async listModels() {
      this.reads++;
      await this.gate;
      return SCRIPTED_MODELS;
    }
  }

  it('serves a model known at once without waiting for the list', async () => {
    const adapter = new LazyAdapter();
    const host = createModelHost({ adapters: [adapter] });
    expect(await drain(host.chat(chat(), { signal: signal() }))).toHaveLength(7);
    expect(adapter.reads).toBe(0);
  });

  it('reads the list once, for a model it lacks or the whole list, and lists what it read', async () => {
    const adapter = new LazyAdapter();
    const host = createModelHost({ adapters: [adapter] });
    const embedded = host.embed({ model: 'scripted-embed', input: ['a'] }, { signal: signal() });
    const listing = host.listModels();
    await new Promise((r) => setTimeout(r, 10));
    adapter.release();
    expect((await embedded).embeddings).toHaveLength(1);
    expect((await listing).map((m) => [m.id, m.contextWindow])).toEqual(SCRIPTED_MODELS.map((m) => [m.id, m.contextWindow]));
    expect((await host.modelStates()).map((s) => s.id).sort()).toEqual(SCRIPTED_MODELS.map((m) => m.id).sort());
    expect(adapter.reads).toBe(1);
    expect(await host.embed({ model: 'no-such', input: ['a'] }, { signal: signal() }).catch((e: unknown) => e)).toMatchObject({ code: 'model_not_found' });
  });

  it('keeps the models known at once when the list cannot be read', async () => {
    const adapter = new LazyAdapter();
    adapter.listModels = async () => {
      throw new Error('its script could not be fetched');
    };
    const host = createModelHost({ adapters: [adapter] });
    expect((await host.listModels()).map((m) => m.id)).toEqual(['scripted-chat']);
  });
});
