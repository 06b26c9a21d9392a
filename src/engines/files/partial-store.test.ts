import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { deleteGroups, groupsForModel, listCachedModels, partialBytesOf, PARTIAL_CACHES } from './model-cache.ts';
import { clearFinishedParts, createCachePartialStore, isPartKey, partKey } from './partial-store.ts';

let storage: MemoryCacheStorage;
beforeEach(() => {
  storage = new MemoryCacheStorage();
  vi.stubGlobal('caches', storage);
});
afterEach(() => vi.unstubAllGlobals());

const URL_ = 'https://huggingface.co/onnx-community/Qwen2.5-0.5B-Instruct/resolve/main/onnx/model_q4.onnx';
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe('createCachePartialStore', () => {
  it('keeps chunks in order under one validator, and reads them back after a new store is made (a reload)', async () => {
    const store = createCachePartialStore('transformers');
    await store.append(URL_, bytes(3, 1), '"v1"', 10);
    await store.append(URL_, bytes(4, 2), '"v1"', 10);
    const kept = await createCachePartialStore('transformers').read(URL_);
    expect(kept).toEqual({ validator: '"v1"', total: 10, chunks: [bytes(3, 1), bytes(4, 2)] });
  });

  it('starts over under a new validator, keeps only whole chunks before a missing one, and clears every part', async () => {
    const store = createCachePartialStore('webllm');
    await store.append(URL_, bytes(3, 1), '"v1"', 10);
    await store.append(URL_, bytes(5, 9), '"v2"', 10);
    expect((await store.read(URL_))!.chunks).toEqual([bytes(5, 9)]);
    await store.append(URL_, bytes(2, 8), '"v2"', 10);
    await (await caches.open(PARTIAL_CACHES.webllm)).delete(partKey(URL_, 0));
    expect((await store.read(URL_))!.chunks).toEqual([]);
    await store.clear(URL_);
    expect(await (await caches.open(PARTIAL_CACHES.webllm)).keys()).toEqual([]);
    expect(await store.read(URL_)).toBeUndefined();
  });
});

describe('clearing a finished download, whatever form its URL came in', () => {
  // Cache Storage keys a relative URL by the context's own: the store is handed `/models/…`
  // (a same-origin model) and lists `http://app.test/models/…` back.
  beforeEach(() => vi.stubGlobal('location', new URL('http://app.test/inpage-llm/engine-worker.js')));

  it.each([
    ['a same-origin path', '/models/tiny-chat/onnx/model.onnx'],
    ['a path relative to the worker', 'models/tiny-chat/onnx/model.onnx'],
    ['an absolute URL', URL_],
    ['a mirror URL with a query', 'https://mirror.test/m/resolve/main/onnx/model.onnx?download=true'],
    ['a web-llm shard', 'https://huggingface.co/mlc-ai/Qwen3-0.6B-q4f16_1-MLC/resolve/main/params_shard_3.bin'],
  ])('leaves no part of %s behind', async (_form, url) => {
    const store = createCachePartialStore('transformers');
    await store.append(url, bytes(3, 1), '"v1"', 10);
    await store.append(url, bytes(4, 2), '"v1"', 10);
    const other = '/models/other/onnx/model.onnx';
    await store.append(other, bytes(2, 3), '"o"', 10);
    const cache = await caches.open(PARTIAL_CACHES.transformers);
    expect((await cache.keys()).length).toBe(5);
    await store.clear(url);
    // Only the other file's chunk and manifest are left, and nothing of this one is read back.
    expect((await cache.keys()).map((r) => r.url).sort()).toEqual([partKey('http://app.test/models/other/onnx/model.onnx', 0), partKey('http://app.test/models/other/onnx/model.onnx', 'manifest')]);
    expect(await store.read(url)).toBeUndefined();
    expect((await store.read(other))!.chunks).toEqual([bytes(2, 3)]);
  });

  it('sweeps the parts of files that are whole in the engine\'s cache (left behind by an earlier version), and only those', async () => {
    const whole = 'http://app.test/models/tiny-chat/onnx/model.onnx';
    const unfinished = 'http://app.test/models/tiny-chat/onnx/model.onnx_data';
    // Parts as an earlier version left them: its manifest cleared, its chunks not.
    const partial = await caches.open(PARTIAL_CACHES.transformers);
    for (const n of [0, 1, 2]) await partial.put(partKey(whole, n), new Response(bytes(5, n)));
    await createCachePartialStore('transformers').append(unfinished, bytes(6, 1), '"d"', 100);
    await storage.store('transformers-cache', whole, bytes(15, 7));
    const lib = 'https://raw.githubusercontent.com/mlc-ai/libs/v0_2_86/base/Qwen3-0.6B-q4f16_1-ctx4k_cs1k-webgpu.wasm';
    await createCachePartialStore('webllm').append(lib, bytes(8, 1), '"w"', 16);
    await storage.store('webllm/wasm', lib, bytes(16, 1));

    const before = groupsForModel(await listCachedModels(), { id: 'tiny-chat', engine: 'transformers' });
    expect(partialBytesOf(before)).toBeGreaterThan(15 + 6);
    expect(await clearFinishedParts('transformers')).toBe(3);
    expect(await clearFinishedParts('webllm')).toBe(2);
    // The unfinished file keeps its parts (it resumes from them); the finished ones count once.
    const after = groupsForModel(await listCachedModels(), { id: 'tiny-chat', engine: 'transformers' });
    expect((await partial.keys()).map((r) => r.url).sort()).toEqual([partKey(unfinished, 0), partKey(unfinished, 'manifest')]);
    expect(after[0]!.bytes - after[0]!.partialBytes).toBe(15);
    expect(partialBytesOf(groupsForModel(await listCachedModels(), { id: 'Qwen3-0.6B', engine: 'webllm' }))).toBe(0);
    // Nothing to do: nothing goes, and a store without a partial cache is not created.
    expect(await clearFinishedParts('transformers')).toBe(0);
    await caches.delete(PARTIAL_CACHES.webllm);
    expect(await clearFinishedParts('webllm')).toBe(0);
    expect(await caches.has(PARTIAL_CACHES.webllm)).toBe(false);
  });
});

describe('partial downloads in the storage figures', () => {
  it('count in their model\'s group, apart as partialBytes, and go with its Delete', async () => {
    await storage.store('transformers-cache', 'https://huggingface.co/onnx-community/Qwen2.5-0.5B-Instruct/resolve/main/config.json', '{"a":1}');
    await createCachePartialStore('transformers').append(URL_, bytes(1000, 1), '"v1"', 5000);
    const lib = 'https://raw.githubusercontent.com/mlc-ai/libs/v0_2_86/base/Qwen2.5-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm';
    await createCachePartialStore('webllm').append(lib, bytes(200, 1), '"w"', 900);
    const groups = await listCachedModels();
    const mine = groupsForModel(groups, { id: 'Qwen2.5-0.5B-Instruct-onnx', engine: 'transformers' });
    expect(mine).toHaveLength(1);
    expect(partialBytesOf(mine)).toBeGreaterThan(1000);
    expect(mine[0]!.bytes - mine[0]!.partialBytes).toBe(7);
    // A library's partial groups with the library, as the library itself would.
    expect(partialBytesOf(groupsForModel(groups, { id: 'Qwen2.5-0.5B-Instruct', engine: 'webllm' }))).toBeGreaterThan(200);
    expect(isPartKey(mine[0]!.entries.find((e) => e.cache === PARTIAL_CACHES.transformers)!.url)).toBe(true);
    await deleteGroups(mine);
    expect(await createCachePartialStore('transformers').read(URL_)).toBeUndefined();
  });
});
