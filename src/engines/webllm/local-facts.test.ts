// What the web-llm adapter reports of its models on this device, without loading web-llm: the
// GPU probe decides runnable and the variant; Cache Storage (an in-memory double here) the files.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { webllmModels } from '../catalog/catalog.ts';
import type { GpuInfo } from './gpu.ts';
import { createWebLLMAdapter } from './webllm-adapter.ts';

const HUB = 'https://huggingface.co/mlc-ai';
let storage: MemoryCacheStorage;
beforeEach(() => {
  storage = new MemoryCacheStorage();
  vi.stubGlobal('caches', storage);
});
afterEach(() => vi.unstubAllGlobals());

const factsWith = (gpu: GpuInfo | null) => createWebLLMAdapter({ models: webllmModels, gpu: async () => gpu }).localFacts!();

/** Stores a variant's weights as web-llm caches them (its tensor-cache.json and the shards it lists, and its config); returns the bytes stored. */
async function storeWeights(variant: string, shards: number, { skip }: { skip?: number } = {}): Promise<number> {
  const base = `${HUB}/${variant}/resolve/main/`;
  const records = Array.from({ length: shards }, (_, i) => ({ dataPath: `params_shard_${i}.bin` }));
  const index = JSON.stringify({ records });
  await storage.store('webllm/model', `${base}tensor-cache.json`, index);
  let bytes = index.length;
  for (const [i, record] of records.entries()) {
    if (i === skip) continue;
    await storage.store('webllm/model', base + record.dataPath, new Uint8Array(1000));
    bytes += 1000;
  }
  await storage.store('webllm/config', `${base}mlc-chat-config.json`, '{}');
  return bytes + 2;
}

describe('web-llm local facts', () => {
  it('without WebGPU: not runnable, requiring webgpu, with the reason', async () => {
    const facts = await factsWith(null);
    expect(facts.get('SmolLM2-360M-Instruct')).toEqual({
      downloaded: false,
      bytesOnDisk: 0,
      runnable: false,
      reason: expect.stringContaining('WebGPU'),
      requires: ['webgpu'],
      variant: 'SmolLM2-360M-Instruct-q4f32_1-MLC',
      vramRequiredMB: expect.any(Number),
      lowResource: true,
    });
  });

  it('needs shader-f16 only for the f16 variant a GPU with it would load; runs without it too', async () => {
    expect((await factsWith({ hasShaderF16: true })).get('Qwen2.5-0.5B-Instruct')).toMatchObject({ runnable: true, backend: 'webgpu', requires: ['webgpu', 'shader-f16'] });
    expect((await factsWith({ hasShaderF16: false })).get('Qwen2.5-0.5B-Instruct')).toMatchObject({ runnable: true, backend: 'webgpu', requires: ['webgpu'] });
  });

  it('is downloaded when every shard of the variant it would load is cached, as web-llm decides', async () => {
    const bytes = await storeWeights('SmolLM2-360M-Instruct-q4f32_1-MLC', 3);
    const facts = await factsWith({ hasShaderF16: false });
    expect(facts.get('SmolLM2-360M-Instruct')).toMatchObject({ downloaded: true, bytesOnDisk: bytes });
    // The other variant is not what this GPU would load.
    expect((await factsWith({ hasShaderF16: true })).get('SmolLM2-360M-Instruct')).toMatchObject({ downloaded: false });
    expect(facts.get('Llama-3.2-1B-Instruct')).toMatchObject({ downloaded: false, bytesOnDisk: 0 });
  });

  it('is not downloaded while a shard is missing (an interrupted download), though its bytes count', async () => {
    const bytes = await storeWeights('Llama-3.2-1B-Instruct-q4f32_1-MLC', 3, { skip: 1 });
    const facts = await factsWith({ hasShaderF16: false });
    expect(facts.get('Llama-3.2-1B-Instruct')).toMatchObject({ downloaded: false, bytesOnDisk: bytes });
  });
});

describe('web-llm local facts for the whole list', () => {
  it("names each model's variant, its GPU memory and, once its index is stored, its download size", async () => {
    const records = Array.from({ length: 2 }, (_, i) => ({ dataPath: `params_shard_${i}.bin`, nbytes: 1_000_000 + i }));
    const base = `${HUB}/Qwen3-0.6B-q4f32_1-MLC/resolve/main/`;
    await storage.store('webllm/model', `${base}tensor-cache.json`, JSON.stringify({ records }));
    const facts = await factsWith({ hasShaderF16: false });
    expect(facts.get('Qwen3-0.6B-q4f32_1-MLC')).toMatchObject({ variant: 'Qwen3-0.6B-q4f32_1-MLC', vramRequiredMB: expect.any(Number), downloadBytes: 2_000_001, downloaded: false });
    expect(facts.get('Qwen3-0.6B-q4f16_1-MLC')).not.toHaveProperty('downloadBytes');
    expect(facts.get('Qwen2.5-0.5B-Instruct')).toMatchObject({ variant: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' });
    expect((await factsWith({ hasShaderF16: true })).get('Qwen2.5-0.5B-Instruct')).toMatchObject({ variant: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC' });
  });

  it('walks Cache Storage once for every model, and reads a shared weight index once', async () => {
    await storeWeights('Llama-3.1-8B-Instruct-q4f32_1-MLC', 3);
    const opened: string[] = [];
    const open = storage.open.bind(storage);
    storage.open = async (name: string) => {
      opened.push(name);
      return open(name);
    };
    const keys = vi.spyOn(storage, 'keys');
    const started = performance.now();
    const facts = await factsWith({ hasShaderF16: false });
    const took = performance.now() - started;
    expect(facts.size).toBeGreaterThan(160);
    expect(keys).toHaveBeenCalledTimes(1);
    // One open per cache to walk it, and one more to read the index that two ids share (-1k or not).
    expect(opened.filter((name) => name === 'webllm/model')).toHaveLength(2);
    expect(facts.get('Llama-3.1-8B-Instruct-q4f32_1-MLC')).toMatchObject({ downloaded: true });
    expect(facts.get('Llama-3.1-8B-Instruct-q4f32_1-MLC-1k')).toMatchObject({ downloaded: true });
    expect(took).toBeLessThan(1000);
  });
});
