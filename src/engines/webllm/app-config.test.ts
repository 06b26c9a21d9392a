import { modelVersion, prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../core/engine.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { buildAppConfig, pickVariant } from './app-config.ts';

const QWEN: WebLLMModelSpec = {
  info: { id: 'qwen2.5-0.5b', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f16: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC', f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};
const ARCTIC: WebLLMModelSpec = {
  info: { id: 'arctic-s', kind: 'embedding', engine: 'webllm', contextWindow: 512, dimensions: 384 },
  variants: { f32: 'snowflake-arctic-embed-s-q0f32-MLC-b4' },
};

describe('buildAppConfig', () => {
  it('copies both variants from the installed prebuiltAppConfig, libraries at its modelVersion', () => {
    const config = buildAppConfig([QWEN]);
    expect(config.model_list.map((r) => r.model_id)).toEqual(['Qwen2.5-0.5B-Instruct-q4f16_1-MLC', 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC']);
    for (const record of config.model_list) {
      const prebuilt = prebuiltAppConfig.model_list.find((r) => r.model_id === record.model_id)!;
      expect(record).toEqual(prebuilt);
      expect(record).not.toBe(prebuilt);
      expect(record.model_lib).toContain(`/${modelVersion}/`);
      expect(record.model).toBe(`https://huggingface.co/mlc-ai/${record.model_id}`);
      expect(record.vram_required_MB).toBeGreaterThan(0);
      expect(record.overrides?.context_window_size).toBe(4096);
    }
    expect(config.model_list[0]!.model_lib).toMatch(/q4f16_1.*\.wasm$/);
    expect(config.model_list[1]!.model_lib).toMatch(/q4f32_1.*\.wasm$/);
  });

  it('keeps the embedding model type, which decides the pipeline web-llm builds', () => {
    const [record] = buildAppConfig([ARCTIC]).model_list;
    expect(record!.model_type).toBe(1); // ModelType.embedding
  });

  it('rewrites model and library URLs for self-hosting, with the resolve/main/ web-llm would append', () => {
    const config = buildAppConfig([QWEN], { selfHost: { modelBase: 'https://cdn.example/models/', libBase: '/libs' } });
    const [f16, f32] = config.model_list;
    expect(f32!.model).toBe('https://cdn.example/models/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/');
    expect(f32!.model_lib).toBe('/libs/Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm');
    expect(f16!.model_lib).toBe('/libs/Qwen2-0.5B-Instruct-q4f16_1_cs1k-webgpu.wasm');
    // The installed package's entry is left alone.
    expect(prebuiltAppConfig.model_list.find((r) => r.model_id === f32!.model_id)!.model).toBe('https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
  });

  it('lists a model_id shared by two catalog entries once and passes cacheBackend on', () => {
    const twin: WebLLMModelSpec = { ...QWEN, info: { ...QWEN.info, id: 'twin' } };
    const config = buildAppConfig([QWEN, twin], { cacheBackend: 'indexeddb' });
    expect(config.model_list).toHaveLength(2);
    expect(config.cacheBackend).toBe('indexeddb');
  });

  it('rejects an unknown model_id at build time, naming it and the catalog entry', () => {
    const bad: WebLLMModelSpec = { ...QWEN, variants: { f32: 'No-Such-Model-q4f32_1-MLC' } };
    expect(() => buildAppConfig([bad])).toThrow(/Unknown web-llm model_id "No-Such-Model-q4f32_1-MLC" \(catalog model "qwen2.5-0.5b"\)/);
  });

  it('rejects a chat entry that names an embedding record, and more context than web-llm allocates', () => {
    const wrongKind: WebLLMModelSpec = { info: { ...ARCTIC.info, kind: 'chat' } as ModelInfo, variants: ARCTIC.variants };
    expect(() => buildAppConfig([wrongKind])).toThrow(/is a chat model, but web-llm's "snowflake-arctic-embed-s-q0f32-MLC-b4" is an embedding model/);
    const tooLong: WebLLMModelSpec = { ...QWEN, info: { ...QWEN.info, contextWindow: 32_768 } };
    expect(() => buildAppConfig([tooLong])).toThrow(/advertises a 32768-token context, but web-llm runs .* with 4096/);
  });
});

describe('pickVariant', () => {
  it('uses the f16 build only where the GPU has shader-f16', () => {
    expect(pickVariant(QWEN, true)).toBe('Qwen2.5-0.5B-Instruct-q4f16_1-MLC');
    expect(pickVariant(QWEN, false)).toBe('Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
    expect(pickVariant(ARCTIC, true)).toBe('snowflake-arctic-embed-s-q0f32-MLC-b4');
  });
});
