// web-llm's own list, read from the installed package at run time. Loads go to web-llm's
// MLCEngine played by a TEST DOUBLE (test/support/webllm-double.ts): the real one needs WebGPU and
// model libraries, which cannot be had here; what is checked is the record each id resolves to.
import { modelVersion, prebuiltAppConfig, type AppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { TestDoubleMLCEngine } from '../../../test/support/webllm-double.ts';
import { webllmModels } from '../catalog/catalog.ts';
import { createModelHost } from '../hosting/model-host.ts';
import { describeWebLLMId } from './prebuilt-models.ts';
import { createWebLLMAdapter, type WebLLMAdapterOptions } from './webllm-adapter.ts';

const CHAT_OR_EMBEDDING = prebuiltAppConfig.model_list.filter((r) => r.model_type === undefined || r.model_type === 0 || r.model_type === 1);

function setup(options: Partial<WebLLMAdapterOptions> = {}) {
  const reloads = new Map<string, ModelRecord>();
  const adapter = createWebLLMAdapter({
    models: webllmModels,
    gpu: async () => ({ hasShaderF16: true }),
    createEngine: (engineOptions) => {
      const engine = new TestDoubleMLCEngine(engineOptions);
      const reload = engine.reload.bind(engine);
      engine.reload = async (id) => {
        reloads.set(id, engineOptions.appConfig.model_list.find((r) => r.model_id === id)!);
        return reload(id);
      };
      return engine;
    },
    ...options,
  });
  return { adapter, reloads };
}

describe("web-llm's own list", () => {
  it('lists every chat and embedding model of the installed package under its own id, with its kind and window', async () => {
    expect(CHAT_OR_EMBEDDING.length).toBeGreaterThan(150);
    const listed = new Map((await setup().adapter.listModels!()).map((m) => [m.id, m]));
    for (const record of CHAT_OR_EMBEDDING) {
      const info = listed.get(record.model_id);
      expect(info, record.model_id).toBeDefined();
      expect(info!.kind).toBe(record.model_type === 1 ? 'embedding' : 'chat');
      if (record.overrides?.context_window_size) expect(info!.contextWindow).toBe(record.overrides.context_window_size);
    }
    // Vision models take images, which this API does not pass to web-llm.
    expect(listed.has('Phi-3.5-vision-instruct-q4f16_1-MLC')).toBe(false);
    // The short ids stay, first, featured, with web-llm's own window.
    expect([...listed.keys()].slice(0, webllmModels.length)).toEqual(webllmModels.map((m) => m.info.id));
    expect(listed.get('Qwen2.5-0.5B-Instruct')).toMatchObject({ featured: true, contextWindow: 4096, family: 'Qwen2.5', size: '0.5B' });
  });

  it('loads each of them from its own model URL and a library built for the installed web-llm', { timeout: 60_000 }, async () => {
    const { adapter, reloads } = setup();
    const host = createModelHost({ adapters: [adapter], maxLoaded: 1 });
    for (const record of CHAT_OR_EMBEDDING) await host.load(record.model_id);
    for (const record of CHAT_OR_EMBEDDING) {
      const loaded = reloads.get(record.model_id);
      expect(loaded, record.model_id).toBeDefined();
      expect(loaded!.model).toBe(record.model);
      expect(loaded!.model_lib).toBe(record.model_lib);
      expect(loaded!.model_lib).toContain(`/web-llm-models/${modelVersion}/`);
    }
  });

  it('lets the short ids pick the f16 or the f32 variant for the device', async () => {
    for (const [hasShaderF16, variant] of [
      [true, 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC'],
      [false, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC'],
    ] as const) {
      const { adapter, reloads } = setup({ gpu: async () => ({ hasShaderF16 }) });
      await adapter.load('Qwen2.5-0.5B-Instruct');
      expect([...reloads.keys()]).toEqual([variant]);
    }
  });

  it("serves a newer web-llm's extra model with no change here (a double of its list)", async () => {
    const newer: AppConfig = {
      ...prebuiltAppConfig,
      model_list: [
        ...prebuiltAppConfig.model_list,
        { model: 'https://huggingface.co/mlc-ai/Qwen9-2B-q4f32_1-MLC', model_id: 'Qwen9-2B-q4f32_1-MLC', model_lib: 'https://example.test/v9/Qwen9-2B-q4f32_1-ctx8k_cs1k-webgpu.wasm', vram_required_MB: 1500, low_resource_required: true },
      ],
    };
    const { adapter, reloads } = setup({ prebuilt: newer });
    const host = createModelHost({ adapters: [adapter] });
    expect((await host.listModels()).find((m) => m.id === 'Qwen9-2B-q4f32_1-MLC')).toMatchObject({ kind: 'chat', engine: 'webllm', contextWindow: 8192, family: 'Qwen9', size: '2B' });
    await host.load('Qwen9-2B-q4f32_1-MLC');
    expect(reloads.get('Qwen9-2B-q4f32_1-MLC')?.model_lib).toBe('https://example.test/v9/Qwen9-2B-q4f32_1-ctx8k_cs1k-webgpu.wasm');
    expect((await setup().adapter.listModels!()).some((m) => m.id === 'Qwen9-2B-q4f32_1-MLC')).toBe(false);
  });

  it('serves only the catalog and the app\'s models when told not to list web-llm\'s', async () => {
    const { adapter } = setup({ prebuiltModels: false });
    expect(adapter.listModels).toBeUndefined();
    expect(await adapter.load('Qwen3-0.6B-q4f16_1-MLC').catch((e: unknown) => e)).toMatchObject({ code: 'model_not_found' });
  });
});

describe('describeWebLLMId', () => {
  it.each([
    ['Qwen3-0.6B-q4f16_1-MLC', 'Qwen3', '0.6B', 'q4f16_1', 'Qwen3 0.6B (q4f16_1)'],
    ['Llama-3.1-8B-Instruct-q4f32_1-MLC-1k', 'Llama-3.1', '8B', 'q4f32_1', 'Llama 3.1 8B Instruct (q4f32_1, 1k)'],
    ['gemma-4-E2B-it-q4f16_1-MLC', 'gemma-4', 'E2B', 'q4f16_1', 'gemma 4 E2B it (q4f16_1)'],
    ['gemma3-1b-it-q4f16_1-MLC', 'gemma3', '1B', 'q4f16_1', 'gemma3 1b it (q4f16_1)'],
    ['stablelm-2-zephyr-1_6b-q4f32_1-MLC', 'stablelm-2-zephyr', '1.6B', 'q4f32_1', 'stablelm 2 zephyr 1_6b (q4f32_1)'],
    ['SmolLM2-360M-Instruct-q0f16-MLC', 'SmolLM2', '360M', 'q0f16', 'SmolLM2 360M Instruct (q0f16)'],
    ['phi-2-q4f16_1-MLC', 'phi-2', undefined, 'q4f16_1', 'phi 2 (q4f16_1)'],
    ['snowflake-arctic-embed-s-q0f32-MLC-b4', 'snowflake-arctic-embed-s', undefined, 'q0f32', 'snowflake arctic embed s (q0f32, b4)'],
  ])('%s → %s %s', (id, family, size, quantization, displayName) => {
    expect(describeWebLLMId(id)).toEqual({ family, ...(size ? { size } : {}), quantization, displayName });
  });
});

describe('thinking models in the list', () => {
  it('marks Qwen3 (switchable) and the DeepSeek-R1 distills (always, opened by their template) as thinking, and no other', async () => {
    const listed = new Map((await setup().adapter.listModels!()).map((m) => [m.id, m]));
    expect(listed.get('Qwen3-0.6B')?.reasoning).toEqual({ open: '<think>', close: '</think>', switch: 'enable_thinking' });
    expect(listed.get('Qwen3-8B-q4f16_1-MLC')?.reasoning).toEqual({ open: '<think>', close: '</think>', switch: 'enable_thinking' });
    expect(listed.get('DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC')?.reasoning).toEqual({ open: '<think>', close: '</think>', startsInside: true });
    expect(listed.get('Qwen2.5-0.5B-Instruct')?.reasoning).toBeUndefined();
    expect(listed.get('Llama-3.1-8B-Instruct-q4f16_1-MLC')?.reasoning).toBeUndefined();
  });
});
