import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { bytesOf, deleteGroups, groupLabel, groupsForModel, listCachedModels } from './model-cache.ts';

let storage: MemoryCacheStorage;
beforeEach(() => {
  storage = new MemoryCacheStorage();
  vi.stubGlobal('caches', storage);
});
afterEach(() => vi.unstubAllGlobals());

const HUB = 'https://huggingface.co';

describe('groupLabel', () => {
  it('names a hub file by its repository, a bundled file by its models/ folder, a web-llm library by its file', () => {
    expect(groupLabel(`${HUB}/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model.onnx`, 'transformers-cache')).toBe('Xenova/all-MiniLM-L6-v2');
    expect(groupLabel('http://localhost:4173/models/tiny-chat/onnx/model.onnx', 'transformers-cache')).toBe('models/tiny-chat');
    // However deep under models/, and wherever an app keeps its folders: the weights' onnx/ joins its config.
    expect(groupLabel('http://localhost:4173/inpage-llm/models/team/story-model/onnx/model_q4.onnx', 'transformers-cache')).toBe('models/team/story-model');
    expect(groupLabel('http://localhost:4173/inpage-llm/models/team/story-model/config.json', 'transformers-cache')).toBe('models/team/story-model');
    expect(groupLabel('http://localhost:4173/weights/x/onnx/model.onnx', 'transformers-cache')).toBe('weights/x');
    expect(groupLabel('http://localhost:4173/weights/x/tokenizer.json', 'transformers-cache')).toBe('weights/x');
    expect(groupLabel('https://raw.githubusercontent.com/mlc-ai/libs/v0_2_86/base/SmolLM2-360M-Instruct-q4f16_1_cs1k-webgpu.wasm', 'webllm/wasm')).toBe(
      'SmolLM2-360M-Instruct-q4f16_1_cs1k-webgpu.wasm',
    );
  });
});

describe('listCachedModels', () => {
  it('is empty where there is no Cache Storage', async () => {
    vi.stubGlobal('caches', undefined);
    expect(await listCachedModels()).toEqual([]);
  });

  it('groups files per repository and engine, counting bytes from Content-Length or the body', async () => {
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/config.json', '{"a":1}');
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/onnx/model.onnx', new Uint8Array(1000), { length: false });
    await storage.store('webllm/model', `${HUB}/mlc-ai/SmolLM2-360M-Instruct-q4f32_1-MLC/resolve/main/params_shard_0.bin`, new Uint8Array(300));
    await storage.store('inpage-llm-shell', 'http://localhost/index.html', '<!doctype html>');

    const groups = await listCachedModels();
    expect(groups.map((g) => [g.engine, g.label, g.bytes, g.entries.length])).toEqual([
      ['webllm', 'mlc-ai/SmolLM2-360M-Instruct-q4f32_1-MLC', 300, 1],
      ['transformers', 'models/tiny-chat', 1007, 2],
    ]);
    expect((await listCachedModels('transformers')).map((g) => g.label)).toEqual(['models/tiny-chat']);
  });
});

describe('groupsForModel', () => {
  it('matches transformers repos ending in the id (or the id plus a suffix) and web-llm variants of the id', async () => {
    await storage.store('transformers-cache', `${HUB}/onnx-community/Qwen2.5-0.5B-Instruct/resolve/main/config.json`, 'x');
    await storage.store('webllm/model', `${HUB}/mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC/resolve/main/params_shard_0.bin`, 'yy');
    await storage.store('webllm/model', `${HUB}/mlc-ai/Qwen2.5-1.5B-Instruct-q4f16_1-MLC/resolve/main/params_shard_0.bin`, 'zzz');
    const groups = await listCachedModels();
    expect(groupsForModel(groups, { id: 'Qwen2.5-0.5B-Instruct-onnx', engine: 'transformers' }).map((g) => g.label)).toEqual(['onnx-community/Qwen2.5-0.5B-Instruct']);
    const webllm = groupsForModel(groups, { id: 'Qwen2.5-0.5B-Instruct', engine: 'webllm' });
    expect(webllm.map((g) => g.label)).toEqual(['mlc-ai/Qwen2.5-0.5B-Instruct-q4f16_1-MLC']);
    expect(bytesOf(webllm)).toBe(2);
  });

  it('matches a transformers model by its source, nested or named apart from its id', async () => {
    await storage.store('transformers-cache', 'http://localhost/models/team/story-model/config.json', 'ab');
    await storage.store('transformers-cache', 'http://localhost/models/team/story-model/onnx/model.onnx', 'abcd');
    await storage.store('transformers-cache', 'http://localhost/models/team/other/onnx/model.onnx', 'abcdefgh');
    const groups = await listCachedModels();
    const mine = groupsForModel(groups, { id: 'stories', engine: 'transformers', source: 'team/story-model' });
    expect(mine.map((g) => [g.label, g.bytes])).toEqual([['models/team/story-model', 6]]);
    expect(groupsForModel(groups, { id: 'stories', engine: 'transformers' })).toEqual([]);
  });
});

describe('deleteGroups', () => {
  it('deletes exactly the files of the given groups', async () => {
    await storage.store('transformers-cache', 'http://localhost/models/tiny-chat/config.json', 'a');
    await storage.store('transformers-cache', 'http://localhost/models/tiny-embed/config.json', 'b');
    const groups = await listCachedModels();
    await deleteGroups(groupsForModel(groups, { id: 'tiny-chat', engine: 'transformers' }));
    expect((await listCachedModels()).map((g) => g.label)).toEqual(['models/tiny-embed']);
  });
});
