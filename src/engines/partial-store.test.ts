import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../test/support/memory-cache-storage.ts';
import { deleteGroups, groupsForModel, listCachedModels, partialBytesOf, PARTIAL_CACHES } from './model-cache.ts';
import { createCachePartialStore, isPartKey, partKey } from './partial-store.ts';

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
