import { describe, expect, it } from 'vitest';
import type { ModelInfo, ModelLocalState } from '../../core/engine.ts';
import { toOpenAIModel, toOpenAIModelList } from './models.ts';

const CHAT: ModelInfo = { id: 'chat-m', kind: 'chat', engine: 'webllm', created: 1_763_000_000, contextWindow: 4096, maxOutputTokens: 1024 };
const EMBED: ModelInfo = { id: 'embed-m', kind: 'embedding', engine: 'transformers', contextWindow: 512, dimensions: 384, supportsDimensions: true };

describe('toOpenAIModel', () => {
  it('has the fields openai-node reads, plus local details', () => {
    expect(toOpenAIModel(CHAT)).toEqual({
      id: 'chat-m',
      object: 'model',
      created: 1_763_000_000,
      owned_by: 'local',
      kind: 'chat',
      engine: 'webllm',
      context_window: 4096,
      max_output_tokens: 1024,
    });
  });

  it('uses created 0 when unknown and describes embedding dimensions', () => {
    const model = toOpenAIModel(EMBED);
    expect(model.created).toBe(0);
    expect(Number.isInteger(model.created)).toBe(true);
    expect(model).toMatchObject({ dimensions: 384, supports_dimensions: true });
    expect(model).not.toHaveProperty('max_output_tokens');
  });

  it('says supports_dimensions false when the model does not declare it', () => {
    expect(toOpenAIModel({ ...EMBED, supportsDimensions: undefined })).toMatchObject({ supports_dimensions: false });
  });

  it('names the family, size, featured flag and thinking a model picker shows, where known', () => {
    expect(toOpenAIModel({ ...CHAT, family: 'Qwen3', size: '0.6B', featured: true })).toMatchObject({ family: 'Qwen3', size: '0.6B', featured: true });
    expect(toOpenAIModel(CHAT)).not.toHaveProperty('family');
    expect(toOpenAIModel(CHAT)).not.toHaveProperty('featured');
    expect(toOpenAIModel({ ...CHAT, reasoning: { open: '<think>', close: '</think>', switch: 'enable_thinking' } })).toMatchObject({ reasoning: { open: '<think>', close: '</think>', can_turn_off: true } });
    expect(toOpenAIModel(CHAT)).not.toHaveProperty('reasoning');
  });

  it('omits embedding fields for chat models', () => {
    expect(toOpenAIModel(CHAT)).not.toHaveProperty('dimensions');
  });
});

describe('toOpenAIModelList', () => {
  it('is a list of model objects in order', () => {
    const list = toOpenAIModelList([CHAT, EMBED]);
    expect(Object.keys(list).sort()).toEqual(['data', 'object']);
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id)).toEqual(['chat-m', 'embed-m']);
    expect(list.data.every((m) => m.object === 'model' && m.owned_by === 'local')).toBe(true);
  });

  it('is an empty list when there are no models', () => {
    expect(toOpenAIModelList([])).toEqual({ object: 'list', data: [] });
  });
});

describe('local state', () => {
  const LOADED: ModelLocalState = { id: 'chat-m', state: 'loaded', downloaded: true, bytesOnDisk: 123, runnable: true, backend: 'webgpu', requires: ['webgpu'] };

  it("says a web-llm model's variant, its GPU memory, whether it suits low-memory devices and its download size", () => {
    const state: ModelLocalState = { ...LOADED, runnable: false, reason: 'no shader-f16', variant: 'X-q4f16_1-MLC', vramRequiredMB: 1234.5, lowResource: false, downloadBytes: 99 };
    expect(toOpenAIModel(CHAT, state).local).toMatchObject({ runnable: false, reason: 'no shader-f16', variant: 'X-q4f16_1-MLC', vram_required_MB: 1234.5, low_resource_required: false, download_size_bytes: 99 });
    expect(toOpenAIModel(CHAT, LOADED).local).not.toHaveProperty('vram_required_MB');
  });

  it('adds the state on this device as one nested local object, keeping every OpenAI field as it was', () => {
    const model = toOpenAIModel(CHAT, LOADED);
    expect(model).toEqual({ ...toOpenAIModel(CHAT), local: { state: 'loaded', downloaded: true, size_bytes: 123, runnable: true, backend: 'webgpu', requires: ['webgpu'] } });
  });

  it('gives each listed model its own state, and none to a model the engine did not report', () => {
    const list = toOpenAIModelList([CHAT, EMBED], new Map([['chat-m', LOADED]]));
    expect(list.data[0]).toHaveProperty('local.state', 'loaded');
    expect(list.data[1]).not.toHaveProperty('local');
  });
});
