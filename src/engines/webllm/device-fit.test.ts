// Which web-llm models a device can run, on DOUBLES of the WebGPU adapter (no GPU here; SwiftShader
// is checked in the browser, e2e/webllm-models.spec.ts): the records are the installed package's.
import { prebuiltAppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { TestDoubleMLCEngine } from '../../../test/support/webllm-double.ts';
import { webllmModels } from '../catalog/catalog.ts';
import { createModelHost } from '../hosting/model-host.ts';
import { fitOf, requirementsOf } from './device-fit.ts';
import type { GpuInfo } from './gpu.ts';
import { createWebLLMAdapter } from './webllm-adapter.ts';

const record = (id: string): ModelRecord => prebuiltAppConfig.model_list.find((r) => r.model_id === id)!;
/** A desktop GPU's adapter: every limit web-llm asks for, shader-f16, 16 GB reported. */
const DESKTOP: GpuInfo = {
  hasShaderF16: true,
  features: ['shader-f16', 'subgroups'],
  limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 31, maxComputeWorkgroupStorageSize: 32_768, maxStorageBuffersPerShaderStage: 10 },
  deviceMemoryGB: 8,
};
/** SwiftShader's and many integrated GPUs' adapter: no shader-f16. */
const NO_F16: GpuInfo = { ...DESKTOP, hasShaderF16: false, features: [] };
/** WebGPU's default limits: 128 MiB bindings (web-llm then asks for no more), 256 MiB buffers. */
const DEFAULT_LIMITS: GpuInfo = { ...DESKTOP, limits: { maxBufferSize: 2 ** 28, maxStorageBufferBindingSize: 2 ** 27, maxComputeWorkgroupStorageSize: 16_384, maxStorageBuffersPerShaderStage: 8 } };
const PHONE: GpuInfo = { ...DESKTOP, deviceMemoryGB: 4 };

describe('fitOf', () => {
  it('runs everything the desktop adapter offers', () => {
    for (const r of prebuiltAppConfig.model_list) expect(fitOf(r, DESKTOP), r.model_id).toEqual({ runnable: true });
  });

  it('without an adapter, runs nothing and says WebGPU is missing', () => {
    expect(fitOf(record('Qwen3-0.6B-q4f32_1-MLC'), null)).toEqual({ runnable: false, reason: expect.stringMatching(/WebGPU is not available/) });
  });

  it('without shader-f16, refuses the f16 builds (named or not in required_features) and runs the f32 ones', () => {
    // Qwen3-0.6B-q4f16_1 does not list shader-f16 in its record, but its shaders are f16 ones.
    expect(record('Qwen3-0.6B-q4f16_1-MLC').required_features).toBeUndefined();
    for (const id of ['Qwen3-0.6B-q4f16_1-MLC', 'gemma-4-E2B-it-q4f16_1-MLC', 'Llama-3.1-70B-Instruct-q3f16_1-MLC']) {
      expect(fitOf(record(id), NO_F16)).toEqual({ runnable: false, reason: expect.stringContaining('lacks the shader-f16 feature') });
      expect(requirementsOf(record(id))).toEqual(['webgpu', 'shader-f16']);
    }
    expect(fitOf(record('Qwen3-0.6B-q4f32_1-MLC'), NO_F16)).toEqual({ runnable: true });
    expect(requirementsOf(record('Qwen3-0.6B-q4f32_1-MLC'))).toEqual(['webgpu']);
  });

  it("with limits below web-llm's runtime's, runs nothing and names the limit", () => {
    expect(fitOf(record('SmolLM2-360M-Instruct-q4f32_1-MLC'), DEFAULT_LIMITS)).toEqual({ runnable: false, reason: expect.stringContaining("maxComputeWorkgroupStorageSize is 16 KiB, below the 32 KiB web-llm needs") });
  });

  it('with 128 MiB bindings, refuses a model that binds more (gemma-4: 192 MiB) and runs the others', () => {
    const small: GpuInfo = { ...DESKTOP, limits: { ...DESKTOP.limits, maxStorageBufferBindingSize: 2 ** 29 } };
    expect(fitOf(record('gemma-4-E2B-it-q4f32_1-MLC'), small)).toEqual({ runnable: false, reason: expect.stringContaining('binds 192 MiB buffers, more than the 128 MiB') });
    expect(fitOf(record('Qwen3-0.6B-q4f32_1-MLC'), small)).toEqual({ runnable: true });
  });

  it('on a device reporting 4 GB, offers only what web-llm marks fit for low-memory devices', () => {
    expect(record('Llama-3.1-8B-Instruct-q4f16_1-MLC').low_resource_required).toBe(false);
    expect(fitOf(record('Llama-3.1-8B-Instruct-q4f16_1-MLC'), PHONE)).toEqual({ runnable: false, reason: expect.stringMatching(/reports 4 GB .* not mark .* fit for low-memory devices/) });
    // Its 1k-context twin is marked fit, and needs less than the 4 GB.
    expect(fitOf(record('Llama-3.2-1B-Instruct-q4f16_1-MLC'), PHONE)).toEqual({ runnable: true });
    expect(fitOf(record('Llama-3.1-8B-Instruct-q4f16_1-MLC-1k'), PHONE)).toEqual({ runnable: false, reason: expect.stringContaining('more than the 4 GB') });
  });
});

describe('a model this device cannot run', () => {
  function host(gpu: GpuInfo | null) {
    const engines: TestDoubleMLCEngine[] = [];
    const adapter = createWebLLMAdapter({
      models: webllmModels,
      gpu: async () => gpu,
      createEngine: (options) => {
        const engine = new TestDoubleMLCEngine(options);
        engines.push(engine);
        return engine;
      },
    });
    return { host: createModelHost({ adapters: [adapter] }), engines };
  }
  afterEach(() => vi.unstubAllGlobals());

  it('is listed as not runnable with the reason, and its request fails with that reason before web-llm is asked for anything', async () => {
    const { host: h, engines } = host(NO_F16);
    const states = new Map((await h.modelStates()).map((s) => [s.id, s]));
    expect(states.get('Qwen3-0.6B-q4f16_1-MLC')).toMatchObject({ runnable: false, reason: expect.stringContaining('shader-f16'), requires: ['webgpu', 'shader-f16'] });
    expect(states.get('Qwen3-0.6B-q4f32_1-MLC')).toMatchObject({ runnable: true, requires: ['webgpu'] });
    // The short id picks the variant this GPU runs.
    expect(states.get('Qwen3-0.6B')).toMatchObject({ runnable: true, variant: 'Qwen3-0.6B-q4f32_1-MLC' });
    const error = await h.load('Qwen3-0.6B-q4f16_1-MLC').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_unavailable', message: expect.stringMatching(/"Qwen3-0.6B-q4f16_1-MLC" cannot run on this device: .*shader-f16/) });
    expect(engines).toHaveLength(0);
    await h.load('Qwen3-0.6B');
    expect(engines.map((e) => e.reloads)).toEqual([['Qwen3-0.6B-q4f32_1-MLC']]);
  });
});

describe('the refusal comes before any download', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('fetches nothing for a model this GPU cannot run, while a runnable one starts fetching its files', async () => {
    // With Cache Storage (a double here) the product fetches the files itself before web-llm loads.
    vi.stubGlobal('caches', new MemoryCacheStorage());
    const fetch = vi.fn(async () => new Response('not here', { status: 404 }));
    vi.stubGlobal('fetch', fetch);
    const adapter = createWebLLMAdapter({ models: webllmModels, gpu: async () => NO_F16, createEngine: (options) => new TestDoubleMLCEngine(options) });
    expect(await adapter.load('Qwen3-0.6B-q4f16_1-MLC').catch((e: unknown) => e)).toMatchObject({ code: 'model_unavailable', message: expect.stringContaining('cannot run on this device') });
    expect(fetch).not.toHaveBeenCalled();
    expect(await adapter.load('Qwen3-0.6B-q4f32_1-MLC').catch((e: unknown) => e)).toMatchObject({ code: 'model_unavailable', message: expect.stringContaining('could not be downloaded') });
    expect(fetch).toHaveBeenCalled();
  });
});
