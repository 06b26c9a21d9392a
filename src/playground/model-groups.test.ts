import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../test/support/memory-cache-storage.ts';
import { listCachedModels } from '../engines/files/model-cache.ts';
import { cachedFilesOf, describeChoice, groupModels, needsOf, optionLabel } from './model-groups.ts';
import type { ApiModel } from './model-list.ts';

const model = (id: string, over: Partial<ApiModel> = {}): ApiModel => ({ id, kind: 'chat', engine: 'webllm', supportsDimensions: false, ...over });
const F16_LOCAL = { state: 'available', downloaded: false, sizeBytes: 0, runnable: false, requires: ['webgpu', 'shader-f16'], reason: 'lacks the shader-f16 feature', vramRequiredMB: 1400, lowResource: true } as const;

describe('groupModels', () => {
  it('puts the featured and default models first, then one group per family smallest first, then the others by engine', () => {
    const models = [
      model('tiny-chat', { engine: 'transformers' }),
      model('Qwen3-8B-q4f16_1-MLC', { family: 'Qwen3', size: '8B' }),
      model('Qwen3-0.6B-q4f16_1-MLC', { family: 'Qwen3', size: '0.6B' }),
      model('Qwen3-0.6B', { family: 'Qwen3', size: '0.6B', featured: true }),
      model('SmolLM2-360M-Instruct-q4f16_1-MLC', { family: 'SmolLM2', size: '360M' }),
      model('gemma-4-E2B-it-q4f16_1-MLC', { family: 'gemma-4', size: 'E2B' }),
      model('Llama-3.2-1B-Instruct-q4f16_1-MLC', { family: 'Llama-3.2', size: '1B' }),
      model('phi-2-q4f16_1-MLC', { family: 'phi-2' }),
      model('Qwen2.5-0.5B-Instruct-onnx', { engine: 'transformers' }),
    ];
    expect(groupModels(models, ['tiny-chat']).map((g) => [g.label, g.models.map((m) => m.id)])).toEqual([
      ['Featured', ['tiny-chat', 'Qwen3-0.6B']],
      ['gemma-4', ['gemma-4-E2B-it-q4f16_1-MLC']],
      ['Llama-3.2', ['Llama-3.2-1B-Instruct-q4f16_1-MLC']],
      ['phi-2', ['phi-2-q4f16_1-MLC']],
      ['Qwen3', ['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3-8B-q4f16_1-MLC']],
      ['SmolLM2', ['SmolLM2-360M-Instruct-q4f16_1-MLC']],
      ['transformers.js (WebGPU or WASM)', ['Qwen2.5-0.5B-Instruct-onnx']],
    ]);
  });
});

describe('what a model needs, and whether it runs here', () => {
  it('says the features, GPU memory, download size, phone fitness and thinking, and why it cannot run', () => {
    const thinker = model('Qwen3-0.6B-q4f16_1-MLC', { thinks: true, local: { ...F16_LOCAL, downloadBytes: 500_000_000 } });
    expect(needsOf(thinker)).toBe('WebGPU + shader-f16 · 1.47 GB GPU memory · 500 MB download · fits phones · thinks first');
    expect(optionLabel(thinker)).toBe('Qwen3-0.6B-q4f16_1-MLC — cannot run here');
    expect(describeChoice(thinker)).toBe('Needs WebGPU + shader-f16 · 1.47 GB GPU memory · 500 MB download · fits phones · thinks first. Cannot run here: lacks the shader-f16 feature');
    const runs = model('tiny-chat', { engine: 'transformers', local: { state: 'loaded', downloaded: true, sizeBytes: 1, runnable: true, requires: [] } });
    expect(optionLabel(runs)).toBe('tiny-chat');
    expect(describeChoice(runs)).toBe('Runs here');
    expect(describeChoice(model('x'))).toBe('');
  });
});

describe('cachedFilesOf', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("gives a model the files of the source its state names, though its folder is named apart from its id; the rest are other files", async () => {
    const storage = new MemoryCacheStorage();
    vi.stubGlobal('caches', storage);
    await storage.store('transformers-cache', 'http://localhost/models/some-folder/config.json', new Uint8Array(100));
    await storage.store('transformers-cache', 'http://localhost/models/some-folder/onnx/model.onnx', new Uint8Array(5000));
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/onnx/model.onnx', new Uint8Array(300));
    await storage.store('transformers-cache', 'http://localhost/models/left-over/onnx/model.onnx', new Uint8Array(70));
    const local = (source?: string) => ({ state: 'available', downloaded: true, sizeBytes: 1, runnable: true, requires: [], ...(source ? { source } : {}) }) as const;
    const models = [model('my-model', { engine: 'transformers', local: local('/models/some-folder') }), model('tiny-chat', { engine: 'transformers', local: local('tiny-chat') })];

    const files = cachedFilesOf(models, await listCachedModels());
    expect(files.byModel.get('my-model')!.map((g) => [g.label, g.bytes])).toEqual([['models/some-folder', 5100]]);
    expect(files.byModel.get('tiny-chat')!.map((g) => g.label)).toEqual(['models/tiny-chat']);
    expect(files.others.map((g) => g.label)).toEqual(['models/left-over']);
    // No state read yet (or an engine that names no source): by its id, as before.
    expect(cachedFilesOf([model('tiny-chat', { engine: 'transformers' })], await listCachedModels()).byModel.get('tiny-chat')!.map((g) => g.label)).toEqual(['models/tiny-chat']);
  });
});
