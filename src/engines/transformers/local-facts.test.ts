// What the transformers.js adapter reports of its models on this device: files from Cache
// Storage (an in-memory double here: Node has none), backend from the device it would pick.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { transformersModels } from '../catalog/catalog.ts';
import { createTransformersAdapter } from './transformers-engine.ts';

const adapter = (device: 'auto' | 'cpu' | 'wasm' | 'webgpu') => createTransformersAdapter({ models: transformersModels, localModelPath: '/models/', allowRemoteModels: true, device });
const HUB = 'https://huggingface.co';

afterEach(() => vi.unstubAllGlobals());

describe('transformers.js local facts', () => {
  it('in Node (no Cache Storage): bundled models are on disk, hub models are not; the backend is the CPU', async () => {
    const facts = await adapter('auto').localFacts!();
    // A chat model also says what its prefix cache holds (nothing yet); Node runs native, so no `cpu`.
    const emptyCache = { entries: 0, bytes: 0, maxBytes: expect.any(Number) };
    expect(facts.get('tiny-chat')).toEqual({ downloaded: true, bytesOnDisk: 0, prefixCache: emptyCache, runnable: true, backend: 'cpu', backendReason: 'auto: Node runs onnxruntime on the CPU', requires: [] });
    expect(facts.get('all-MiniLM-L6-v2')).toMatchObject({ downloaded: false, bytesOnDisk: 0, runnable: true });
    expect([...facts.keys()]).toEqual(transformersModels.map((m) => m.info.id));
  });

  it('in a browser: a model is downloaded once its weights are cached, and its cached bytes are counted', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/config.json', new Uint8Array(100));
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/onnx/model.onnx', new Uint8Array(5000));
    // Config fetched, weights not yet: an interrupted first load.
    await storage.store('transformers-cache', `${HUB}/Xenova/all-MiniLM-L6-v2/resolve/main/config.json`, new Uint8Array(40));

    const facts = await adapter('wasm').localFacts!();
    expect(facts.get('tiny-chat')).toEqual({ downloaded: true, bytesOnDisk: 5100, prefixCache: { entries: 0, bytes: 0, maxBytes: expect.any(Number) }, runnable: true, backend: 'wasm', backendReason: 'set to wasm', requires: [], source: 'tiny-chat' });
    expect(facts.get('all-MiniLM-L6-v2')).toMatchObject({ downloaded: false, bytesOnDisk: 40 });
    // Bundled, but not cached: it would be fetched from the app, so it does not load offline.
    expect(facts.get('tiny-embed')).toMatchObject({ downloaded: false, bytesOnDisk: 0 });
  });

  it('in a browser: an app model in a nested folder, named apart from its id, is downloaded once its weights are cached', async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    await storage.store('transformers-cache', 'http://localhost/inpage-llm/models/team/story-model/config.json', new Uint8Array(100));
    await storage.store('transformers-cache', 'http://localhost/inpage-llm/models/team/story-model/onnx/model_q4.onnx', new Uint8Array(5000));
    const spec = { info: { id: 'stories', kind: 'chat' as const, engine: 'transformers' as const, displayName: 'Stories', contextWindow: 512 }, source: 'team/story-model' };
    const facts = await createTransformersAdapter({ models: [spec], localModelPath: '/inpage-llm/models/', device: 'wasm' }).localFacts!();
    // Its source is said, so the page finds (and deletes) its files by it too.
    expect(facts.get('stories')).toMatchObject({ downloaded: true, bytesOnDisk: 5100, source: 'team/story-model' });
  });

  it('set to WebGPU where there is no adapter: cannot run, and says why', async () => {
    const facts = await adapter('webgpu').localFacts!();
    expect(facts.get('tiny-chat')).toMatchObject({ runnable: false, requires: ['webgpu'], reason: expect.stringContaining('no WebGPU adapter') });
    expect(facts.get('tiny-chat')).not.toHaveProperty('backend');
  });

  it('set to WebGPU with an adapter: runs on WebGPU, which it requires', async () => {
    vi.stubGlobal('navigator', { gpu: { requestAdapter: async () => ({ features: new Set<string>() }) } });
    const facts = await adapter('webgpu').localFacts!();
    expect(facts.get('tiny-embed')).toMatchObject({ runnable: true, backend: 'webgpu', requires: ['webgpu'] });
  });

  it('on auto in a browser: WebGPU on a hardware adapter, WASM on a software one or none, each with its reason', async () => {
    // Not Node: the browser's rule applies.
    vi.stubGlobal('process', undefined);
    const adapterWith = (info: object) => ({ gpu: { requestAdapter: async () => ({ features: new Set<string>(), info }) } });
    vi.stubGlobal('navigator', adapterWith({ vendor: 'google', architecture: 'swiftshader', description: 'SwiftShader Device (Subzero)' }));
    expect((await adapter('auto').localFacts!()).get('tiny-embed')).toMatchObject({
      runnable: true,
      backend: 'wasm',
      backendReason: 'auto: the WebGPU adapter (SwiftShader Device (Subzero)) is a software one, slower than WASM',
    });
    vi.stubGlobal('navigator', adapterWith({ vendor: 'apple', architecture: 'metal-3', isFallbackAdapter: true }));
    expect((await adapter('auto').localFacts!()).get('tiny-embed')).toMatchObject({ backend: 'wasm' });
    vi.stubGlobal('navigator', adapterWith({ vendor: 'nvidia', architecture: 'ampere', description: 'NVIDIA GeForce RTX 3060' }));
    expect((await adapter('auto').localFacts!()).get('tiny-embed')).toMatchObject({ backend: 'webgpu', backendReason: 'auto: hardware WebGPU adapter (NVIDIA GeForce RTX 3060)', requires: ['webgpu'] });
    vi.stubGlobal('navigator', {});
    expect((await adapter('auto').localFacts!()).get('tiny-embed')).toMatchObject({ backend: 'wasm', backendReason: 'auto: this browser has no WebGPU' });
  });
  it('in a browser on WASM: says which CPU engine runs, on how many threads, and why', async () => {
    // A worker's globals, as the engine worker has them (Node has neither).
    vi.stubGlobal('WorkerGlobalScope', class {});
    vi.stubGlobal('crossOriginIsolated', false);
    expect((await adapter('wasm').localFacts!()).get('tiny-chat')?.cpu).toEqual({ runtime: expect.stringMatching(/^onnxruntime-web/), threads: 1, reason: expect.stringMatching(/not cross-origin isolated/) });
    vi.stubGlobal('crossOriginIsolated', true);
    vi.stubGlobal('navigator', { hardwareConcurrency: 8 });
    const isolated = (await adapter('wasm').localFacts!()).get('tiny-chat')?.cpu;
    expect(isolated).toMatchObject({ threads: 4, reason: expect.stringMatching(/8 cores, at most 4/) });
    // Not on WebGPU: the CPU engine is not what runs it there.
    expect((await adapter('webgpu').localFacts!()).get('tiny-chat')?.cpu).toBeUndefined();
  });
});
