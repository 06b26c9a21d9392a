import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it, vi } from 'vitest';
import { ScriptedAdapter } from '../../../test/support/scripted-adapter.ts';
import { SCRIPTED_MODELS } from '../../../test/support/scripted-engine.ts';
import { TestDoubleMLCEngine } from '../../../test/support/webllm-double.ts';
import type { ModelEntry } from '../../contracts/worker-config.ts';
import { createGateway } from '../../gateway/create-gateway.ts';
import { productCatalog, remoteModelsOf, withAppModels, withListedFallbacks } from './app-models.ts';
import { transformersModels, webllmModels } from './catalog.ts';
import { createModelHost } from '../hosting/model-host.ts';
import { buildAppConfig } from '../webllm/app-config.ts';
import { withPrebuiltModels } from '../webllm/prebuilt-models.ts';
import { createWebLLMAdapter } from '../webllm/webllm-adapter.ts';

const catalog = { transformers: transformersModels, webllm: webllmModels };
const ORIGIN = 'https://app.example';

describe('the app models', () => {
  it('adds transformers.js entries by repo id, path and same-origin URL, with their limits', () => {
    const result = withAppModels(
      catalog,
      [
        { engine: 'transformers', id: 'a', kind: 'chat', source: 'HuggingFaceTB/SmolLM2-135M-Instruct', dtype: 'q4', contextWindow: 1024 },
        { engine: 'transformers', id: 'b', kind: 'embedding', source: '/models/b/', dimensions: 384, pooling: 'cls', normalize: false },
        { engine: 'transformers', id: 'c', kind: 'embedding', source: `${ORIGIN}/self/c/` },
      ],
      ORIGIN,
    );
    const byId = new Map(result.transformers.map((spec) => [spec.info.id, spec]));
    expect(byId.get('a')).toEqual({ info: { id: 'a', kind: 'chat', engine: 'transformers', contextWindow: 1024, maxOutputTokens: 1024 }, source: 'HuggingFaceTB/SmolLM2-135M-Instruct', dtype: 'q4' });
    expect(byId.get('b')).toMatchObject({ info: { dimensions: 384, contextWindow: 512 }, source: '/models/b', pooling: 'cls', normalize: false });
    expect(byId.get('c')!.source).toBe('/self/c');
    expect(result.transformers.length).toBe(transformersModels.length + 3);
    expect(result.webllm).toEqual(webllmModels);
  });

  it('replaces a catalog model that has the same id', () => {
    const result = withAppModels(catalog, [{ engine: 'transformers', id: 'all-MiniLM-L6-v2', kind: 'embedding', source: '/mirror/minilm' }], ORIGIN);
    const entries = result.transformers.filter((spec) => spec.info.id === 'all-MiniLM-L6-v2');
    expect(entries).toHaveLength(1);
    expect(entries[0]!.source).toBe('/mirror/minilm');
  });

  it('turns a web-llm entry into a record of its own that web-llm loads from the given folder and library', () => {
    const result = withAppModels(catalog, [{ engine: 'webllm', id: 'mine', modelUrl: 'https://cdn.example/mine/', modelLib: 'https://cdn.example/libs/mine.wasm', shaderF16: true, contextWindow: 2048 }]);
    const spec = result.webllm.find((s) => s.info.id === 'mine')!;
    expect(spec.info).toMatchObject({ kind: 'chat', engine: 'webllm', contextWindow: 2048, maxOutputTokens: 2048 });
    const config = buildAppConfig([spec]);
    expect(config.model_list).toEqual([
      { model_id: 'mine', model: 'https://cdn.example/mine/', model_lib: 'https://cdn.example/libs/mine.wasm', required_features: ['shader-f16'], overrides: { context_window_size: 2048 } },
    ]);
  });

  it.each([
    [{ engine: 'transformers', id: '', kind: 'chat', source: 'x/y' }, /needs an `id`/],
    [{ engine: 'transformers', id: 'x', kind: 'vision', source: 'x/y' }, /"x": kind must be "chat" or "embedding"/],
    [{ engine: 'transformers', id: 'x', kind: 'chat' }, /"x": source must name/],
    [{ engine: 'transformers', id: 'x', kind: 'chat', source: 'https://other.example/m' }, /"x".*not from https:\/\/other\.example.*transformersRemoteHost/],
    [{ engine: 'webllm', id: 'x', modelUrl: '/m/' }, /"x": modelLib must be a URL/],
    [{ engine: 'onnx', id: 'x' }, /"x": engine must be "transformers", "webllm" or "remote"/],
    [{ engine: 'remote', id: 'x', upstream: {} }, /"x": upstream.baseURL must be the server's API URL/],
    [{ engine: 'remote', id: 'x', upstream: { baseURL: 'ftp://h/v1' } }, /"x": upstream.baseURL must be http\(s\) URLs/],
    [{ engine: 'remote', id: 'x', upstream: { baseURL: 'http://h/v1', speaks: ['grpc'] } }, /"x": upstream.speaks lists/],
    [{ engine: 'remote', id: 'x', upstream: { baseURL: 'http://admin:hunter2@h/v1' } }, /"x": upstream.baseURL must be the API's URL alone, without credentials/],
    [{ engine: 'remote', id: 'x', upstream: { baseURL: 'https://h/v1?key=secret' } }, /"x": upstream.baseURL must be the API's URL alone/],
    [{ engine: 'remote', id: 'x', kind: 'embedding', upstream: { baseURL: 'http://h/v1', speaks: ['anthropic'] } }, /"x": an embedding model needs an upstream that speaks the OpenAI API/],
  ])('names the mistake in %j', (entry, message) => {
    expect(() => withAppModels(catalog, [entry as unknown as ModelEntry], ORIGIN)).toThrow(message);
  });

  it('lists remote entries as models of the remote engine, with their upstream and fallbacks', () => {
    const result = withAppModels(
      catalog,
      [
        { engine: 'remote', id: 'team', upstream: { baseURL: ['http://a:8000/v1', 'http://b:8000/v1'], model: 'Qwen/Qwen2.5-7B-Instruct', apiKey: 'k' }, fallback: 'tiny-chat' },
        { engine: 'remote', id: 'vec', kind: 'embedding', dimensions: 768, upstream: { baseURL: 'http://o:11434/v1' } },
      ],
      ORIGIN,
      { 'Qwen2.5-0.5B-Instruct': 'team' },
    );
    expect(result.remote).toEqual([
      {
        id: 'team',
        kind: 'chat',
        engine: 'remote',
        // No figure made up: what the entry does not say, its server's listing says (GET /models).
        contextWindow: 0,
        structuredOutput: true,
        toolCalling: true,
        upstream: { baseURL: ['http://a:8000/v1', 'http://b:8000/v1'], model: 'Qwen/Qwen2.5-7B-Instruct', apiKey: 'k', speaks: ['openai'] },
        fallback: 'tiny-chat',
      },
      { id: 'vec', kind: 'embedding', engine: 'remote', contextWindow: 0, dimensions: 768, upstream: { baseURL: 'http://o:11434/v1', speaks: ['openai'] } },
    ]);
    expect(result.webllm.find((spec) => spec.info.id === 'Qwen2.5-0.5B-Instruct')!.info.fallback).toBe('team');
    expect(result.transformers.find((spec) => spec.info.id === 'tiny-chat')!.info.fallback).toBeUndefined();
  });

  it.each([
    [{ nope: 'tiny-chat' }, /engine.fallbacks names "nope", which is not a model/],
    [{ 'tiny-chat': 'nope' }, /fallback of "tiny-chat" must be another model's id, not "nope"/],
    [{ 'tiny-chat': 'tiny-chat' }, /fallback of "tiny-chat" must be another model's id/],
    [{ 'tiny-chat': 'tiny-embed' }, /fallback of "tiny-chat" \(a chat model\) must be a chat model too; "tiny-embed" is an embedding model/],
    [{ 'tiny-embed': 'all-MiniLM-L6-v2' }, /fallback of "tiny-embed" \(32 dimensions\) must give vectors of the same length; "all-MiniLM-L6-v2" gives 384/],
    [{ 'tiny-chat': 'Qwen2.5-0.5B-Instruct', 'Qwen2.5-0.5B-Instruct': 'tiny-chat' }, /go round in a circle \(tiny-chat → Qwen2.5-0.5B-Instruct → tiny-chat\)/],
  ])('refuses the fallbacks %j', (fallbacks, message) => {
    expect(() => withAppModels(catalog, [], ORIGIN, fallbacks)).toThrow(message);
  });

  it('refuses two entries with one id', () => {
    const entry: ModelEntry = { engine: 'transformers', id: 'x', kind: 'chat', source: 'a/b' };
    expect(() => withAppModels(catalog, [entry, entry], ORIGIN)).toThrow(/names "x" twice/);
  });

  it('carries what files must be (sizes, SRI hashes) to both engines, and names a malformed one', () => {
    const sha = 'sha256-' + 'A'.repeat(43) + '=';
    const result = withAppModels(catalog, [
      { engine: 'transformers', id: 'f', kind: 'embedding', source: 'org/f', files: { 'onnx/model.onnx': { bytes: 10, integrity: sha } } },
      { engine: 'webllm', id: 'w', modelUrl: 'https://hub.test/w', modelLib: 'https://libs.test/w.wasm', integrity: { config: sha, tokenizer: { 'tokenizer.json': sha } } },
    ]);
    expect(result.transformers.find((s) => s.info.id === 'f')!.files).toEqual({ 'onnx/model.onnx': { bytes: 10, integrity: sha } });
    expect(result.webllm.find((s) => s.info.id === 'w')!.record!.integrity).toEqual({ config: sha, tokenizer: { 'tokenizer.json': sha }, onFailure: 'error' });
    const entry = (files: unknown) => [{ engine: 'transformers', id: 'f', kind: 'embedding', source: 'org/f', files } as ModelEntry];
    expect(() => withAppModels(catalog, entry({ 'a.onnx': { integrity: 'md5-x' } }))).toThrow(/files\["a.onnx"\]\.integrity must be an SRI hash/);
    expect(() => withAppModels(catalog, entry({ 'a.onnx': { bytes: -1 } }))).toThrow(/files\["a.onnx"\]\.bytes must be a whole number/);
    expect(() =>
      withAppModels(catalog, [{ engine: 'webllm', id: 'w', modelUrl: 'https://h/w', modelLib: 'https://l/w.wasm', integrity: { model_lib: 'nope' } }]),
    ).toThrow(/integrity\.model_lib must be an SRI hash/);
  });
});

describe("fallbacks that name web-llm's own ids", () => {
  const QWEN3 = 'Qwen3-0.6B-q4f16_1-MLC';
  const SMOL = 'SmolLM2-360M-Instruct-q4f32_1-MLC';
  /** As the browser's host has it: web-llm's own list is read at run time, when its script loads. */
  const later = { transformers: transformersModels, webllm: webllmModels, builtin: SCRIPTED_MODELS.filter((m) => m.kind === 'chat'), webllmListedLater: true };

  it('sets one at once where the catalog lists web-llm\'s ids already', () => {
    const known = { transformers: transformersModels, webllm: withPrebuiltModels(webllmModels, prebuiltAppConfig) };
    const result = withAppModels(known, [{ engine: 'remote', id: 'team', upstream: { baseURL: 'http://a:8000/v1' }, fallback: QWEN3 }], ORIGIN, { [SMOL]: 'Qwen2.5-0.5B-Instruct' });
    expect(result.remote[0]!.fallback).toBe(QWEN3);
    expect(result.webllm.find((spec) => spec.info.id === SMOL)!.info.fallback).toBe('Qwen2.5-0.5B-Instruct');
    expect(result.pendingFallbacks).toEqual({});
  });

  it('accepts one before the list is read, and the gateway follows it once it is', async () => {
    const catalog = withAppModels(later, [], ORIGIN, { 'scripted-chat': QWEN3, [SMOL]: 'Qwen2.5-0.5B-Instruct' });
    expect(catalog.pendingFallbacks).toEqual({ 'scripted-chat': QWEN3, [SMOL]: 'Qwen2.5-0.5B-Instruct' });
    const scripted = new ScriptedAdapter();
    scripted.broken.add('scripted-chat');
    const webllm = createWebLLMAdapter({ models: catalog.webllm, gpu: async () => ({ hasShaderF16: true }), createEngine: (options) => new TestDoubleMLCEngine(options) });
    const host = withListedFallbacks(createModelHost({ adapters: [scripted, webllm] }), catalog);
    const listed = new Map((await host.listModels()).map((info) => [info.id, info]));
    expect(listed.get('scripted-chat')!.fallback).toBe(QWEN3);
    expect(listed.get(SMOL)!.fallback).toBe('Qwen2.5-0.5B-Instruct');

    const gateway = createGateway({ engine: host, baseUrl: '/v1' });
    const response = await gateway.fetch(
      new Request(`${ORIGIN}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'scripted-chat', max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }) }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe(QWEN3);
    expect(response.headers.get('x-inpage-llm-fallback-from')).toBe('scripted-chat');
  });

  it('leaves one unset, saying why, when the list read has no such model or one of another kind', async () => {
    const catalog = withAppModels(later, [], ORIGIN, { 'scripted-chat': 'Qwen9-0.1B-q4f16_1-MLC', 'Qwen2.5-0.5B-Instruct': 'snowflake-arctic-embed-s-q0f32-MLC-b4' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const webllm = createWebLLMAdapter({ models: catalog.webllm, gpu: async () => ({ hasShaderF16: true }), createEngine: (options) => new TestDoubleMLCEngine(options) });
      const host = withListedFallbacks(createModelHost({ adapters: [new ScriptedAdapter(), webllm] }), catalog);
      for (let i = 0; i < 2; i++) {
        const listed = new Map((await host.listModels()).map((info) => [info.id, info]));
        expect(listed.get('scripted-chat')!.fallback).toBeUndefined();
        expect(listed.get('Qwen2.5-0.5B-Instruct')!.fallback).toBeUndefined();
      }
      // Once each, not at every listing.
      expect(warn.mock.calls.map(([message]) => String(message))).toEqual([
        expect.stringMatching(/fallback of "scripted-chat" must be another model's id, not "Qwen9-0\.1B-q4f16_1-MLC"/),
        expect.stringMatching(/fallback of "Qwen2\.5-0\.5B-Instruct" \(a chat model\) must be a chat model too/),
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it.each([
    [{ 'scripted-chat': 'nope' }, /fallback of "scripted-chat" must be another model's id, not "nope"/],
    [{ nope: QWEN3 }, /engine.fallbacks names "nope", which is not a model/],
    [{ [QWEN3]: QWEN3 }, /fallback of "Qwen3-0.6B-q4f16_1-MLC" must be another model's id/],
    [{ 'scripted-chat': QWEN3, [QWEN3]: 'scripted-chat' }, /go round in a circle \(scripted-chat → Qwen3-0.6B-q4f16_1-MLC → scripted-chat\)/],
  ])('still refuses at startup what the list cannot change: %j', (fallbacks, message) => {
    expect(() => withAppModels(later, [], ORIGIN, fallbacks)).toThrow(message);
  });

  it('refuses one where no web-llm list comes (Node)', () => {
    expect(() => withAppModels({ transformers: transformersModels, webllm: [] }, [], undefined, { 'tiny-chat': QWEN3 })).toThrow(/fallback of "tiny-chat" must be another model's id/);
  });
});

describe('remoteModelsOf: the remote models a page reads from its own settings', () => {
  const QWEN3 = 'Qwen3-0.6B-q4f16_1-MLC';
  const entries: ModelEntry[] = [
    { engine: 'remote', id: 'team-chat', upstream: { baseURL: 'http://a:8000/v1', apiKey: 'sk-upstream' }, fallback: 'tiny-chat' },
    { engine: 'remote', id: 'team-embed', kind: 'embedding', dimensions: 384, upstream: { baseURL: 'http://a:8000/v1' } },
    { engine: 'remote', id: 'team-thinker', upstream: { baseURL: 'http://b:8000/v1' } },
    { engine: 'transformers', id: 'mine', kind: 'chat', source: 'org/mine' },
  ];

  it("are the product's engine worker's remote models, fallbacks set; none of its local ones", () => {
    const config = { models: entries, fallbacks: { 'team-embed': 'all-MiniLM-L6-v2' } };
    const models = remoteModelsOf(config, ORIGIN);
    expect(models).toEqual(productCatalog(config, ORIGIN).remote);
    expect(models.map((m) => [m.id, m.fallback])).toEqual([
      ['team-chat', 'tiny-chat'],
      ['team-embed', 'all-MiniLM-L6-v2'],
      ['team-thinker', undefined],
    ]);
    expect(models[0]!.upstream).toMatchObject({ baseURL: 'http://a:8000/v1', apiKey: 'sk-upstream' });
  });

  it("set a fallback that names a web-llm id at once, which the engine worker sets once web-llm's list is read", () => {
    const config = { models: entries, fallbacks: { 'team-thinker': QWEN3 } };
    expect(productCatalog(config, ORIGIN).pendingFallbacks).toEqual({ 'team-thinker': QWEN3 });
    expect(remoteModelsOf(config, ORIGIN).find((m) => m.id === 'team-thinker')!.fallback).toBe(QWEN3);
  });

  it('refuse what the engine worker refuses, with its words', () => {
    const bad = { models: [{ engine: 'remote', id: 'x', upstream: { baseURL: 'http://a/v1' }, fallback: 'nope' }] as ModelEntry[] };
    expect(() => productCatalog(bad, ORIGIN)).toThrow(/fallback of "x" must be another model's id, not "nope"/);
    expect(() => remoteModelsOf(bad, ORIGIN)).toThrow(/fallback of "x" must be another model's id, not "nope"/);
    expect(remoteModelsOf({}, ORIGIN)).toEqual([]);
  });
});

describe('an app model that thinks', () => {
  const thinker = (reasoning: unknown) => ({ engine: 'transformers', id: 'thinker', kind: 'chat', source: 'org/thinker', reasoning }) as ModelEntry;

  it('says how it thinks, as given, on either engine', () => {
    const qwen3 = { open: '<think>', close: '</think>', switch: 'enable_thinking' } as const;
    const catalog = withAppModels({ transformers: [], webllm: [] }, [
      thinker(qwen3),
      { engine: 'webllm', id: 'my-qwen3', modelUrl: '/mlc/q/', modelLib: '/mlc/q.wasm', reasoning: qwen3 },
    ]);
    expect(catalog.transformers[0]!.info.reasoning).toEqual(qwen3);
    expect(catalog.webllm[0]!.info.reasoning).toEqual(qwen3);
  });

  it('takes thinking budgets by effort', () => {
    const budgets = { low: 64, medium: 256, high: 256 };
    const catalog = withAppModels({ transformers: [], webllm: [] }, [thinker({ open: '<think>', close: '</think>', budgets })]);
    expect(catalog.transformers[0]!.info.reasoning).toEqual({ open: '<think>', close: '</think>', budgets });
  });

  it.each([
    [{ open: '<t>', close: '</t>', budgets: 1024 }, /budgets must be an object/],
    [{ open: '<t>', close: '</t>', budgets: { minimal: 1 } }, /names the efforts low, medium and high, not "minimal"/],
    [{ open: '<t>', close: '</t>', budgets: { low: 0 } }, /budgets\.low must be a whole number of tokens, at least 1/],
    [{ open: '<t>', close: '</t>', budgets: { medium: 1.5 } }, /budgets\.medium must be a whole number/],
    [{ open: '<t>', close: '</t>', budgets: { low: 512, high: 256 } }, /budgets\.high must not be below low/],
  ])('refuses budgets %j at startup', (reasoning, message) => {
    expect(() => withAppModels({ transformers: [], webllm: [] }, [thinker(reasoning)])).toThrow(message);
  });

  it.each([
    [null, /must be an object/],
    [{ open: '<think>' }, /\.open and \.close must be the markers/],
    [{ open: 'x', close: 'xx' }, /must not repeat its first character/],
    [{ open: '<t>', close: '</t>', switch: 'on' }, /switch can only be 'enable_thinking'/],
  ])('refuses %j at startup, naming the model', (reasoning, message) => {
    expect(() => withAppModels({ transformers: [], webllm: [] }, [thinker(reasoning)])).toThrow(message);
  });
});
