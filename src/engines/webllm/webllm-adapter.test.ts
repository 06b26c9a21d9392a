// web-llm's MLCEngine is played by a TEST DOUBLE (test/support/webllm-double.ts): the real one
// needs WebGPU and a compiled model library, which cannot be had here (see webllm-adapter.real.test.ts
// for the real package up to that boundary, and pipeline-internals.test.ts for the internal it reads).
import { describe, expect, it, vi } from 'vitest';
import type { ChatEvent, ChatRequest } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import type { LoadProgress } from '../../contracts/model-progress.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { unitLength } from '../../core/vectors.ts';
import { doubleEmbedding, TestDoubleMLCEngine, type WebLLMDoubleConfig, type WebLLMScript as Script } from '../../../test/support/webllm-double.ts';
import { startGeneration, type Generation, type GenerationEvent } from '../../core/generation.ts';
import { createModelHost } from '../hosting/model-host.ts';
import { createWebLLMAdapter, type WebLLMAdapterOptions } from './webllm-adapter.ts';
import { drainGeneration } from '../../../test/support/generations.ts';
import { loadXGrammar } from '../grammar/load-xgrammar.node.ts';

const QWEN: WebLLMModelSpec = {
  info: { id: 'qwen', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f16: 'Qwen2.5-0.5B-Instruct-q4f16_1-MLC', f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};
const ARCTIC: WebLLMModelSpec = {
  info: { id: 'arctic', kind: 'embedding', engine: 'webllm', contextWindow: 512, dimensions: 3 },
  variants: { f32: 'snowflake-arctic-embed-s-q0f32-MLC-b4' },
};
const Q4F32_LIB = 'https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/Qwen2-0.5B-Instruct-q4f32_1_cs1k-webgpu.wasm';

function setup(overrides: Partial<WebLLMAdapterOptions> = {}, double: WebLLMDoubleConfig = {}) {
  const engines: TestDoubleMLCEngine[] = [];
  const adapter = createWebLLMAdapter({
    models: [QWEN, ARCTIC],
    gpu: async () => ({ hasShaderF16: false, vendor: 'test' }),
    createEngine: (options) => {
      const engine = new TestDoubleMLCEngine(options, double);
      engines.push(engine);
      return engine;
    },
    ...overrides,
  });
  return { adapter, engines };
}

const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'qwen',
  messages: [{ role: 'user', content: 'Say hello to the world' }],
  maxTokens: 16,
  stop: [],
  ...over,
});

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const signal = () => new AbortController().signal;

async function loadedQwen(script?: Script, double: WebLLMDoubleConfig = {}) {
  const { adapter, engines } = setup({}, double);
  await adapter.load('qwen');
  const engine = engines[0]!;
  if (script) engine.scripts.push(script);
  return { adapter, engine, engines };
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('load', () => {
  it('reloads the f32 variant without shader-f16 and reports initiate, stages, then ready', async () => {
    const progress: LoadProgress[] = [];
    const { adapter, engines } = setup();
    await adapter.load('qwen', { onProgress: (p) => progress.push(p) });
    expect(engines).toHaveLength(1);
    expect(engines[0]!.reloads).toEqual(['Qwen2.5-0.5B-Instruct-q4f32_1-MLC']);
    expect(engines[0]!.options.appConfig.model_list.map((r) => r.model_id)).toContain('Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
    expect(progress[0]).toEqual({ status: 'initiate', model: 'qwen' });
    expect(progress.slice(1, -1).map((p) => (p.status === 'stage' ? p.fraction : -1))).toEqual([0, 0.3, 0.8, 1, 1].map((f) => expect.closeTo(f, 10)));
    expect(progress[2]).toMatchObject({ status: 'stage', text: 'Fetching param cache[1/2]: 150MB fetched. 50% completed, 1 secs elapsed.' });
    expect(progress.at(-1)).toEqual({ status: 'ready', model: 'qwen', device: 'webgpu', ms: expect.any(Number) });
  });

  it('picks the f16 variant on a GPU with shader-f16', async () => {
    const { adapter, engines } = setup({ gpu: async () => ({ hasShaderF16: true }) });
    await adapter.load('qwen');
    expect(engines[0]!.reloads).toEqual(['Qwen2.5-0.5B-Instruct-q4f16_1-MLC']);
  });

  it("makes the model's pipeline keep the grammars it compiles", async () => {
    const { adapter, engines } = setup();
    await adapter.load('qwen');
    const pipeline = engines[0]!.loadedModelIdToPipeline!.get(engines[0]!.reloads[0]!) as unknown as Record<string, unknown>;
    let compiles = 0;
    pipeline.grammarCompiler = { compileGrammar: async () => ({ n: ++compiles, dispose() {} }), dispose() {} };
    const compiler = pipeline.grammarCompiler as { compileGrammar(grammar: string): Promise<unknown> };
    await compiler.compileGrammar('root ::= "a"');
    await compiler.compileGrammar('root ::= "a"');
    expect(compiles).toBe(1);
  });

  it('is idempotent, and gives each model an engine of its own', async () => {
    const { adapter, engines } = setup();
    await Promise.all([adapter.load('qwen'), adapter.load('qwen')]);
    await adapter.load('qwen');
    await adapter.load('arctic');
    expect(engines.map((e) => e.reloads)).toEqual([['Qwen2.5-0.5B-Instruct-q4f32_1-MLC'], ['snowflake-arctic-embed-s-q0f32-MLC-b4']]);
  });

  it('without WebGPU fails as model_unavailable and creates no engine', async () => {
    const { adapter, engines } = setup({ gpu: async () => null });
    const error = await rejection(adapter.load('qwen'));
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toMatch(/WebGPU is not available.*"qwen"/);
    expect(engines).toHaveLength(0);
  });

  it('names the model, both URLs and the cause when a fetch fails before any progress', async () => {
    const { adapter, engines } = setup({
      createEngine: (options) => {
        const engine = new TestDoubleMLCEngine(options);
        engine.reload = async () => {
          throw new TypeError('Failed to fetch');
        };
        engines.push(engine);
        return engine;
      },
    });
    const error = await rejection(adapter.load('qwen'));
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('"qwen" (Qwen2.5-0.5B-Instruct-q4f32_1-MLC)');
    expect(error.message).toContain('https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC');
    expect(error.message).toContain(Q4F32_LIB);
    expect(error.message).toContain('TypeError: Failed to fetch');
    expect(engines[0]!.unloads).toBe(1);
  });

  it('names the self-hosted weights URL when the download fails midway, and retries on the next load', async () => {
    const selfHost = { modelBase: 'https://models.example', libBase: 'https://libs.example/v0_2_86' };
    const { adapter, engines } = setup({ selfHost });
    let first = true;
    const original = TestDoubleMLCEngine.prototype.reload;
    const spy = vi.spyOn(TestDoubleMLCEngine.prototype, 'reload').mockImplementation(async function (this: TestDoubleMLCEngine, id: string) {
      if (first) {
        first = false;
        this.reloadError = new TypeError('NetworkError when attempting to fetch resource.');
      }
      return original.call(this, id);
    });
    const error = await rejection(adapter.load('qwen'));
    expect(error.message).toContain('loaded from https://models.example/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/:');
    expect(error.message).not.toContain('libs.example');
    await adapter.load('qwen');
    expect(engines).toHaveLength(2);
    spy.mockRestore();
  });

  it('names the exact URL when the cause carries one', async () => {
    const cause = new Error('ArtifactOPFSCache: Unable to fetch https://models.example/q/resolve/main/params_shard_3.bin, received status 404');
    const { adapter } = setup({ createEngine: (options) => Object.assign(new TestDoubleMLCEngine(options), { reload: async () => Promise.reject(cause) }) });
    const error = await rejection(adapter.load('qwen'));
    expect(error.message).toContain('could not be loaded from https://models.example/q/resolve/main/params_shard_3.bin: ArtifactOPFSCache');
  });

  it('blames the model library for a LinkError or a missing global function, naming its runtime version', async () => {
    for (const cause of [Object.assign(new Error('WebAssembly.instantiate(): Import #0 "env" "foo": function import requires a callable'), { name: 'LinkError' }), new Error('Cannot find global function vm.builtin.foo')]) {
      const { adapter } = setup({
        createEngine: (options) => Object.assign(new TestDoubleMLCEngine(options), { reloadError: cause, reload: async () => Promise.reject(cause) }),
      });
      const error = await rejection(adapter.load('qwen'));
      expect(error.code).toBe('model_unavailable');
      expect(error.message).toContain(`its model library ${Q4F32_LIB}`);
      expect(error.message).toContain("built for web-llm's v0_2_86/base runtime");
      expect(error.cause).toBe(cause);
    }
  });

  it('fails a load that unload() cut short (web-llm then resolves reload quietly)', async () => {
    let finishReload!: () => void;
    const { adapter, engines } = setup({
      createEngine: (options) => {
        const engine = new TestDoubleMLCEngine(options);
        engine.reload = () => new Promise<void>((resolve) => (finishReload = resolve));
        engines.push(engine);
        return engine;
      },
    });
    const loading = rejection(adapter.load('qwen'));
    await vi.waitFor(() => expect(engines).toHaveLength(1));
    const unloading = adapter.unload('qwen');
    finishReload();
    await unloading;
    expect((await loading).message).toMatch(/unloaded while it was loading/);
  });
});

describe('unload', () => {
  it('unloads the engine and reloads on the next call; unknown or unloaded models are fine', async () => {
    const { adapter, engine, engines } = await loadedQwen();
    await adapter.unload('qwen');
    await adapter.unload('qwen');
    await adapter.unload('arctic');
    expect(engine.unloads).toBe(1);
    await adapter.load('qwen');
    expect(engines).toHaveLength(2);
  });
});

describe('chat', () => {
  it('sends the neutral request as a streaming web-llm request', async () => {
    const { adapter, engine } = await loadedQwen({ steps: ['Hi', ''], finish: 'stop', promptTokens: 9 });
    const chat = request({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 0.7,
      topP: 0.9,
      topK: 40,
      seed: 42,
      presencePenalty: 0.5,
      frequencyPenalty: 0.25,
      stop: ['\n\n'],
    });
    await collect(adapter.chat(chat, { signal: signal() }));
    expect(engine.requests[0]).toEqual({
      messages: [
        { role: 'system', content: 'Be brief.\n\nBe kind.' },
        { role: 'user', content: 'Hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16,
      // web-llm stops at them itself, so that it keeps its conversation (see the stop strings tests below).
      stop: ['\n\n'],
      temperature: 0.7,
      top_p: 0.9,
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
    });
  });

  it('offers structured output and tools on chat models only with a grammar engine to build their grammar (grammar.test.ts)', () => {
    expect(createWebLLMAdapter({ models: [QWEN, ARCTIC] }).models.some((m) => m.structuredOutput || m.toolCalling)).toBe(false);
    const models = createWebLLMAdapter({ models: [QWEN, ARCTIC], grammar: loadXGrammar }).models;
    expect(models.map((m) => [m.id, m.structuredOutput, m.toolCalling])).toEqual([
      ['qwen', true, true],
      ['arctic', undefined, undefined],
    ]);
  });

  it('passes logit_bias on as web-llm takes it (string token ids), on every chat model', async () => {
    expect(createWebLLMAdapter({ models: [QWEN, ARCTIC] }).models.map((m) => [m.id, m.logitBias])).toEqual([
      ['qwen', true],
      ['arctic', undefined],
    ]);
    const { adapter, engine } = await loadedQwen({ steps: ['Hi', ''], finish: 'stop', promptTokens: 9 });
    await collect(adapter.chat(request({ logitBias: new Map([[9707, -100], [0, 2.5]]) }), { signal: signal() }));
    expect(engine.requests[0]!.logit_bias).toEqual({ '9707': -100, '0': 2.5 });
    await collect(adapter.chat(request(), { signal: signal() }));
    expect('logit_bias' in engine.requests[1]!).toBe(false);
  });

  it("refuses a logit_bias token id past the loaded model's vocabulary before web-llm sees it", async () => {
    const { adapter, engine } = await loadedQwen();
    const error = await rejection(collect(adapter.chat(request({ logitBias: new Map([[151_935, 1], [151_936, 1]]) }), { signal: signal() })));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'logit_bias' });
    expect(error.message).toContain('token id 151936 is not in');
    expect(engine.requests).toHaveLength(0);
    // Without web-llm's internal size (a future web-llm), the ids go on unchecked.
    const blind = await loadedQwen(undefined, { prefillStats: false });
    await collect(blind.adapter.chat(request({ logitBias: new Map([[151_936, 1]]) }), { signal: signal() }));
    expect(blind.engine.requests[0]!.logit_bias).toEqual({ '151936': 1 });
  });

  it('maps top_p 0 (which web-llm rejects) to greedy decoding and drops a non-integer seed', async () => {
    const { adapter, engine } = await loadedQwen({ steps: [''], finish: 'stop', promptTokens: 9 });
    await collect(adapter.chat(request({ topP: 0, temperature: 1, seed: 1.5 }), { signal: signal() }));
    expect(engine.requests[0]).toMatchObject({ temperature: 0, top_p: undefined, seed: undefined });
  });

  it('yields start with the exact prompt count, one token per delta chunk (not the stop token), then end', async () => {
    const { adapter } = await loadedQwen({ steps: ['Hel', 'lo', ' world', ''], finish: 'stop', promptTokens: 17 });
    const events = await collect(adapter.chat(request(), { signal: signal() }));
    expect(events).toEqual([
      { type: 'start', promptTokens: 17, cachedTokens: 0 }, // read from the pipeline after prefill (the estimate would be 22 characters / 4 = 6)
      { type: 'token', text: 'Hel' },
      { type: 'token', text: 'lo' },
      { type: 'token', text: ' world' },
      { type: 'end', reason: 'stop', promptTokens: 17 },
    ]);
  });

  it("keeps empty deltas that are tokens, and reports length when web-llm hit max_tokens", async () => {
    const { adapter } = await loadedQwen({ steps: ['a', '', 'b', ''], finish: 'length', promptTokens: 5 });
    const events = await collect(adapter.chat(request({ maxTokens: 4 }), { signal: signal() }));
    expect(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text)).toEqual(['a', '', 'b', '']);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'length', promptTokens: 5 });
  });

  it('adds back a step that streamed no delta (half a UTF-8 character), from the usage count', async () => {
    // Steps: "x", half of "é" (no chunk), "é" completed, stop token.
    const { adapter } = await loadedQwen({ steps: ['x', null, 'é', ''], finish: 'stop', promptTokens: 8 });
    const events = await collect(adapter.chat(request(), { signal: signal() }));
    expect(events.filter((e) => e.type === 'token')).toEqual([
      { type: 'token', text: 'x' },
      { type: 'token', text: 'é' },
      { type: 'token', text: '' },
    ]);
  });

  it('never removes tokens when usage counts fewer than were streamed (web-llm 0.2.79)', async () => {
    const { adapter } = await loadedQwen({ steps: ['a', 'b', 'c'], finish: 'length', promptTokens: 8 }, { version: '0.2.79' });
    const events = await collect(adapter.chat(request({ maxTokens: 3 }), { signal: signal() }));
    expect(events.filter((e) => e.type === 'token')).toHaveLength(3);
    expect(events[0]).toEqual({ type: 'start', promptTokens: 8, cachedTokens: 0 });
  });

  it('counts the whole prompt when web-llm reuses its KV cache for a continued conversation', async () => {
    const { adapter, engine } = await loadedQwen({ steps: ['Hi', ' there', ''], finish: 'stop', promptTokens: 20 });
    const first = request({ messages: [{ role: 'user', content: 'Hello' }] });
    await collect(adapter.chat(first, { signal: signal() }));
    // web-llm prefills only the new turn and reports just those tokens.
    engine.scripts.push({ steps: ['Fine', ''], finish: 'stop', promptTokens: 9 });
    const second = request({ messages: [...first.messages, { role: 'assistant', content: 'Hi there' }, { role: 'user', content: 'How are you?' }] });
    const events = await collect(adapter.chat(second, { signal: signal() }));
    expect(events[0]).toEqual({ type: 'start', promptTokens: 20 + 2 + 9, cachedTokens: 20 + 2 });
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'stop', promptTokens: 20 + 2 + 9 });
    // A conversation that does not continue the last one is prefilled afresh and counted as reported.
    engine.scripts.push({ steps: [''], finish: 'stop', promptTokens: 12 });
    const other = request({ messages: [{ role: 'user', content: 'Something else' }] });
    expect((await collect(adapter.chat(other, { signal: signal() }))).at(-1)).toEqual({ type: 'end', reason: 'stop', promptTokens: 12 });
  });

  it('on abort interrupts the engine, closes its stream and ends without further tokens', async () => {
    const { adapter, engine } = await loadedQwen({ steps: ['a', 'b', 'c', 'd', ''], finish: 'stop', promptTokens: 5 });
    const controller = new AbortController();
    let release!: () => void;
    engine.gate = (step) => (step === 2 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve());
    const events: ChatEvent[] = [];
    const run = (async () => {
      for await (const event of adapter.chat(request(), { signal: controller.signal })) {
        events.push(event);
        if (events.length === 3) setTimeout(() => controller.abort(), 0);
      }
    })();
    await vi.waitFor(() => expect(engine.interrupts).toBe(1));
    release(); // the step in flight finishes, as a GPU decode would
    const error = await rejection(run);
    expect(error.code).toBe('aborted');
    expect(events).toEqual([
      { type: 'start', promptTokens: 5, cachedTokens: 0 },
      { type: 'token', text: 'a' },
      { type: 'token', text: 'b' },
    ]);
    expect(engine.released).toBe(1);
    // The engine serves the next request.
    engine.gate = undefined;
    engine.scripts.push({ steps: ['ok', ''], finish: 'stop', promptTokens: 5 });
    expect((await collect(adapter.chat(request(), { signal: signal() }))).filter((e) => e.type === 'token')).toEqual([{ type: 'token', text: 'ok' }]);
  });

  it('on abort during prefill throws aborted once the engine is free, with no events', async () => {
    const { adapter, engine } = await loadedQwen({ steps: ['a', ''], finish: 'stop', promptTokens: 5 });
    let release!: () => void;
    engine.gate = (step) => (step === 0 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve());
    const controller = new AbortController();
    const events: ChatEvent[] = [];
    const run = (async () => {
      for await (const event of adapter.chat(request(), { signal: controller.signal })) events.push(event);
    })();
    await vi.waitFor(() => expect(engine.requests).toHaveLength(1));
    controller.abort();
    await vi.waitFor(() => expect(engine.interrupts).toBe(1));
    release();
    expect((await rejection(run)).code).toBe('aborted');
    expect(events).toEqual([]);
    expect(engine.released).toBe(1);
  });

  it('does not start a generation for an already aborted signal', async () => {
    const { adapter, engine } = await loadedQwen();
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(collect(adapter.chat(request(), { signal: controller.signal })))).code).toBe('aborted');
    expect(engine.requests).toHaveLength(0);
  });

  it('stops the engine when the consumer stops reading (stop sequence or token cap)', async () => {
    const { adapter, engine } = await loadedQwen({ steps: ['a', 'b', 'c', ''], finish: 'stop', promptTokens: 5 });
    for await (const event of adapter.chat(request(), { signal: signal() })) {
      if (event.type === 'token') break;
    }
    expect(engine.interrupts).toBe(1);
    expect(engine.released).toBe(1);
  });

  it('refuses a prefill (trailing assistant message), which web-llm cannot continue', async () => {
    const { adapter, engine } = await loadedQwen();
    const chat = request({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Well,' }] });
    const error = await rejection(collect(adapter.chat(chat, { signal: signal() })));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'messages' });
    expect(error.message).toMatch(/prefill/);
    expect(engine.requests).toHaveLength(0);
  });

  it("reports web-llm's prompt-too-long error as context_length_exceeded before start", async () => {
    const tooLong = Object.assign(new Error('Prompt tokens exceed context window size: number of prompt tokens: 5000; context window size: 4096'), { name: 'ContextWindowSizeExceededError' });
    const { adapter } = await loadedQwen({ steps: [], finish: 'stop', promptTokens: 0, prefillError: tooLong });
    const events: ChatEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of adapter.chat(request(), { signal: signal() })) events.push(event);
      })(),
    );
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
    expect(events).toEqual([]);
  });

  it('refuses an embedding model', async () => {
    const { adapter } = setup();
    const error = await rejection(collect(adapter.chat(request({ model: 'arctic' }), { signal: signal() })));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'model' });
  });
});

describe('exact prompt tokens through a generation, for every way it ends', () => {
  // The prompt of `request()` is 22 characters: an estimate (÷ 4) would say 6, the engine counts 23.
  const EXACT = 23;
  const answer = (): Script => ({ steps: ['Hel', 'lo', ' wor', 'ld', ' again', ''], finish: 'stop', promptTokens: EXACT });

  /** The adapter behind the real model host and the gateway's generation, as the API runs it. */
  async function started(chat: Partial<ChatRequest>, script: Script, options: { double?: WebLLMDoubleConfig; signal?: AbortSignal } = {}) {
    const { adapter, engines } = setup({}, options.double);
    const host = createModelHost({ adapters: [adapter] });
    await adapter.load('qwen');
    const engine = engines[0]!;
    engine.scripts.push(script);
    const generation = await startGeneration(host, request(chat), options.signal ?? signal());
    return { generation, engine };
  }


  const finishOf = (events: GenerationEvent[]) => events.at(-1) as Extract<GenerationEvent, { type: 'finish' }>;

  it.each(['0.2.86', '0.2.79'] as const)('natural stop (web-llm %s counts)', async (version) => {
    const { generation, engine } = await started({}, answer(), { double: { version } });
    expect(generation.promptTokens).toBe(EXACT);
    const events = await drainGeneration(generation);
    expect(finishOf(events)).toMatchObject({ reason: 'stop', usage: { promptTokens: EXACT, completionTokens: 5 } });
    expect(engine.prefilled).toEqual([EXACT]);
  });

  it('length: the gateway closes the stream at max_tokens, before the usage chunk', async () => {
    const { generation, engine } = await started({ maxTokens: 2 }, answer());
    expect(generation.promptTokens).toBe(EXACT);
    const events = await drainGeneration(generation);
    expect(finishOf(events)).toMatchObject({ reason: 'length', usage: { promptTokens: EXACT, completionTokens: 2 } });
    // The double never got to stream its usage chunk: the generation was interrupted and closed.
    expect(engine.released).toBe(1);
  });

  it('a stop sequence inside one token and one across a token boundary', async () => {
    for (const [stop, text, tokens] of [
      ['lo', 'Hel', 2],
      ['o wo', 'Hell', 3],
    ] as const) {
      const { generation } = await started({ stop: [stop] }, answer());
      expect(generation.promptTokens).toBe(EXACT);
      const events = await drainGeneration(generation);
      expect(events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe(text);
      expect(finishOf(events)).toMatchObject({ reason: 'stop_sequence', stopSequence: stop, usage: { promptTokens: EXACT, completionTokens: tokens } });
    }
  });

  it('abort: the count read so far is exact', async () => {
    const controller = new AbortController();
    const { generation } = await started({}, answer(), { signal: controller.signal });
    expect(generation.promptTokens).toBe(EXACT);
    await generation.events.next();
    controller.abort();
    expect((await rejection(drainGeneration(generation))).code).toBe('aborted');
    expect(generation.usage().promptTokens).toBe(EXACT);
  });

  it('an engine failure after the first token: the usage so far carries the exact count', async () => {
    const lost = Object.assign(new Error('Device was lost.'), { name: 'DeviceLostError' });
    const { generation } = await started({}, { ...answer(), failAt: { step: 2, error: lost } });
    expect(generation.promptTokens).toBe(EXACT);
    expect((await rejection(drainGeneration(generation))).code).toBe('internal');
    expect(generation.usage()).toEqual({ promptTokens: EXACT, completionTokens: 2, cachedTokens: 0 });
  });

  it('adds the tokens web-llm keeps in its KV cache to the new round it prefills', async () => {
    const { adapter, engines } = setup();
    const host = createModelHost({ adapters: [adapter] });
    await adapter.load('qwen');
    engines[0]!.scripts.push({ steps: ['Hi', ''], finish: 'stop', promptTokens: 20 });
    const first = request({ messages: [{ role: 'user', content: 'Hello' }] });
    await drainGeneration(await startGeneration(host, first, signal()));
    engines[0]!.scripts.push({ steps: ['a', 'b', 'c', ''], finish: 'stop', promptTokens: 9 });
    const second = request({ messages: [...first.messages, { role: 'assistant', content: 'Hi' }, { role: 'user', content: 'More?' }], maxTokens: 1 });
    const generation = await startGeneration(host, second, signal());
    expect(generation.promptTokens).toBe(20 + 1 + 9);
    // The 21 tokens web-llm kept (the first prompt and answer) were not read again.
    expect(finishOf(await drainGeneration(generation)).usage).toEqual({ promptTokens: 30, completionTokens: 1, cachedTokens: 21 });
  });

  it('without the internal count (a future web-llm) estimates at start and corrects from the usage chunk', async () => {
    const { generation } = await started({}, answer(), { double: { prefillStats: false } });
    expect(generation.promptTokens).toBe(6);
    expect(finishOf(await drainGeneration(generation)).usage.promptTokens).toBe(EXACT);
  });
});

describe('a thinking model', () => {
  const THINKER: WebLLMModelSpec = { info: { ...QWEN.info, id: 'thinker', reasoning: { open: '<think>', close: '</think>', switch: 'enable_thinking' } }, variants: { f32: 'Qwen3-0.6B-q4f32_1-MLC' } };

  it("turns the thinking off with web-llm's enable_thinking switch, only when asked and only where the model has it", async () => {
    const { adapter, engines } = setup({ models: [QWEN, THINKER] });
    for (const [model, thinking] of [['thinker', false], ['thinker', undefined], ['qwen', false]] as const) {
      await collect(adapter.chat(request({ model, ...(thinking === undefined ? {} : { thinking }) }), { signal: signal() }));
    }
    expect(engines.flatMap((e) => e.requests.map((r) => r.extra_body))).toEqual([{ enable_thinking: false }, undefined, undefined]);
  });
});

describe('embed', () => {
  it('embeds one text per call (no padding), normalises, and sums prompt tokens', async () => {
    const { adapter, engines } = setup();
    const result = await adapter.embed({ model: 'arctic', input: ['abc', 'hello'] }, { signal: signal() });
    expect(engines[0]!.reloads).toEqual(['snowflake-arctic-embed-s-q0f32-MLC-b4']);
    expect(engines[0]!.embedInputs).toEqual([['abc'], ['hello']]);
    const unit = (v: number[]) => [...unitLength(Float32Array.from(v))];
    expect(result.embeddings.map((v) => [...v])).toEqual([unit(doubleEmbedding('abc')), unit(doubleEmbedding('hello'))]);
    expect(result.embeddings[0]).toBeInstanceOf(Float32Array);
    expect(result.promptTokens).toBe(6);
    expect(result.inputTokens).toEqual([3, 3]);
  });

  it('refuses a chat model', async () => {
    const { adapter } = setup();
    const error = await rejection(adapter.embed({ model: 'qwen', input: ['x'] }, { signal: signal() }));
    expect(error).toMatchObject({ code: 'invalid_request', param: 'model' });
    expect(error.message).toMatch(/is a chat model: use it with \/chat\/completions/);
  });
});
