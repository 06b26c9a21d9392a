// Real onnxruntime-node inference on the generated tiny chat model: a prompt read in pieces leaves
// the keys and values one pass leaves, and generation from them answers as from one pass.
import { AutoModelForCausalLM, AutoTokenizer, DynamicCache, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent, ChatRequest } from '../../core/engine.ts';
import { generateTinyModels } from '../../tiny-models/generate.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import { prefillInChunks } from './chunked-prefill.ts';
import { configureEnv } from './configure-env.ts';
import { tinyModelSpecs } from '../catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from './transformers-engine.ts';

let dir: string;
let model: PreTrainedModel;
let tokenizer: PreTrainedTokenizer;
let forwards = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  await generateTinyModels(dir);
  configureEnv({ localModelPath: dir, allowRemoteModels: false });
  tokenizer = await AutoTokenizer.from_pretrained('tiny-chat');
  model = await AutoModelForCausalLM.from_pretrained('tiny-chat', { device: 'cpu' });
  // Counts the passes: a prefill that never split its prompt would pass the equality checks too.
  const forward = model.forward.bind(model);
  model.forward = (inputs: unknown) => {
    forwards++;
    return forward(inputs);
  };
});

afterAll(async () => {
  await model?.dispose();
  await rm(dir, { recursive: true, force: true });
});

function encode(text: string): { input_ids: Tensor; attention_mask: Tensor } {
  return tokenizer(text, { add_special_tokens: false }) as { input_ids: Tensor; attention_mask: Tensor };
}

/** The keys and values of one forward pass over the first `length` tokens. */
async function onePass(inputs: { input_ids: Tensor; attention_mask: Tensor }, length: number): Promise<Record<string, Tensor>> {
  const outputs = (await model.forward({ input_ids: inputs.input_ids.slice(null, [0, length]), attention_mask: inputs.attention_mask.slice(null, [0, length]), past_key_values: null })) as Record<string, Tensor>;
  return Object.fromEntries(Object.entries(outputs).filter(([name]) => name.startsWith('present.')).map(([name, t]) => [name.replace('present.', 'past_key_values.'), t]));
}

function expectClose(actual: Record<string, Tensor>, expected: Record<string, Tensor>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [name, tensor] of Object.entries(expected)) {
    expect(actual[name]!.dims, name).toEqual(tensor.dims);
    const a = actual[name]!.data as Float32Array;
    const b = tensor.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    expect(worst, name).toBeLessThan(1e-4);
  }
}

const PROMPT = 'Once upon a time there was a little dog who liked to run in the big green park with a red ball.';

describe('a prompt read in pieces', () => {
  it('holds the keys and values one pass would, and leaves generate at most one piece', async () => {
    const inputs = encode(PROMPT);
    const total = inputs.input_ids.dims[1]!;
    expect(total).toBeGreaterThan(20);
    forwards = 0;
    const { past, length } = await prefillInChunks(model, inputs, undefined, 0, 6, new AbortController().signal);
    // Pieces of 6 until 6 or fewer are left.
    expect(length).toBe(Math.ceil((total - 6) / 6) * 6);
    expect(total - length).toBeGreaterThanOrEqual(1);
    expect(total - length).toBeLessThanOrEqual(6);
    expect(forwards).toBe(length / 6);
    expect(past!.get_seq_length()).toBe(length);
    expectClose({ ...past! }, await onePass(inputs, length));
  });

  it('continues from a cache it is given, and leaves that cache whole', async () => {
    const inputs = encode(PROMPT);
    const head = new DynamicCache(await onePass(inputs, 5));
    const before = Object.fromEntries(Object.entries(head).map(([name, t]) => [name, Float32Array.from(t.data as Float32Array)]));
    const { past, length } = await prefillInChunks(model, inputs, head, 5, 4, new AbortController().signal);
    expect(past).not.toBe(head);
    expect(past!.get_seq_length()).toBe(length);
    expectClose({ ...past! }, await onePass(inputs, length));
    // The cache given (a prefix cache entry's tensors) is the caller's: not disposed, not changed.
    for (const [name, data] of Object.entries(before)) expect(Float32Array.from(head[name]!.data as Float32Array)).toEqual(data);
  });

  it('reads nothing when the rest fits one piece, and stops between pieces when aborted', async () => {
    const inputs = encode(PROMPT);
    forwards = 0;
    expect(await prefillInChunks(model, inputs, undefined, 0, 10_000, new AbortController().signal)).toEqual({ past: undefined, length: 0 });
    expect(forwards).toBe(0);
    const stop = new AbortController();
    stop.abort();
    await expect(prefillInChunks(model, inputs, undefined, 0, 4, stop.signal)).rejects.toMatchObject({ code: 'aborted' });
    expect(forwards).toBe(0);
  });
});

describe('the engine with a small prefill piece', () => {
  async function answer(engine: EngineAdapter, content: string, maxTokens = 12): Promise<{ text: string; cached: number }> {
    const request: ChatRequest = { model: 'tiny-chat', messages: [{ role: 'system', content: 'You tell stories.' }, { role: 'user', content }], maxTokens, stop: [] };
    let text = '';
    let cached = 0;
    for await (const event of engine.chat(request, { signal: new AbortController().signal }) as AsyncIterable<ChatEvent>) {
      if (event.type === 'start') cached = event.cachedTokens ?? 0;
      if (event.type === 'token') text += event.text;
    }
    return { text, cached };
  }

  it('answers as with the prompt read at once, with the prefix cache on and off', async () => {
    const engine = (options: { prefillChunkTokens?: number; prefixCacheBytes?: number }) => createTransformersAdapter({ models: tinyModelSpecs, localModelPath: dir, device: 'cpu', ...options });
    const whole = engine({ prefillChunkTokens: 100_000, prefixCacheBytes: 0 });
    const pieces = engine({ prefillChunkTokens: 3, prefixCacheBytes: 0 });
    const piecesCached = engine({ prefillChunkTokens: 3 });
    for (const content of [PROMPT, `${PROMPT} And then the dog sat down.`, 'Short.']) {
      const expected = (await answer(whole, content)).text;
      expect((await answer(pieces, content)).text, content).toBe(expected);
      expect((await answer(piecesCached, content)).text, content).toBe(expected);
    }
    // The second prompt began with the first: read from the cache, the rest in pieces.
    expect((await answer(piecesCached, `${PROMPT} And then the dog sat down.`)).cached).toBeGreaterThan(0);
  });

  it('refuses a piece that is not a whole number of tokens', () => {
    for (const prefillChunkTokens of [0, -1, 2.5, Number.NaN]) {
      expect(() => createTransformersAdapter({ models: tinyModelSpecs, localModelPath: dir, prefillChunkTokens })).toThrow(/prefillChunkTokens must be a whole number of tokens/);
    }
  });
});
