// Real onnxruntime-node inference on the generated tiny models (scripts/tiny-models).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, pipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTinyModels } from '../../tiny-models/generate.ts';
import { TINY_CHAT } from '../../tiny-models/tiny-chat.ts';
import { TINY_EMBED } from '../../tiny-models/tiny-embed.ts';
import { STORY_WORDS } from '../../tiny-models/words.ts';
import type { ChatEvent, ChatMessage, ChatRequest, Engine } from '../../core/engine.ts';
import { startGeneration, type GenerationEvent } from '../../core/generation.ts';
import type { EngineAdapter } from '../hosting/adapter.ts';
import type { LoadProgress } from '../../contracts/model-progress.ts';
import { GatewayError } from '../../core/errors.ts';
import { tinyModelSpecs } from '../catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from './transformers-engine.ts';

let dir: string;
let engine: EngineAdapter;
const progress: LoadProgress[] = [];
const signal = new AbortController().signal;
const hello: ChatMessage[] = [{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'Hello, how are you?' }];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tiny-models-'));
  await generateTinyModels(dir);
  engine = createTransformersAdapter({ models: tinyModelSpecs, localModelPath: dir, device: 'cpu' });
  await engine.load('tiny-chat', { onProgress: (p) => progress.push(p) });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const chatRequest = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'tiny-chat', messages: hello, maxTokens: 32, stop: [], ...overrides });

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const tokens = (events: ChatEvent[]) => events.flatMap((e) => (e.type === 'token' ? [e.text] : []));

/** The adapter as the gateway's Engine, so a generation runs over it as in the API. */
const engineOf = (adapter: EngineAdapter): Engine => ({
  listModels: async () => adapter.models,
  chat: (request, options) => adapter.chat(request, options),
  embed: (request, options) => adapter.embed(request, options),
});

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('transformers engine: chat', () => {
  it('greedy output is deterministic, readable, and hits the token limit', async () => {
    const first = await collect(engine.chat(chatRequest(), { signal }));
    const second = await collect(engine.chat(chatRequest(), { signal }));
    // The same, but for the prompt read from the prefix cache the first left.
    expect(second.slice(1)).toEqual(first.slice(1));
    expect(second[0]).toEqual({ ...first[0], cachedTokens: (first[0] as { promptTokens: number }).promptTokens - 1 });
    expect(first[0]?.type).toBe('start');
    expect(tokens(first)).toHaveLength(32);
    expect(first.at(-1)).toEqual({ type: 'end', reason: 'length' });
    expect(tokens(first).join('')).toMatch(/^( [a-z]+){32}$/);
    expect(progress[0]).toEqual({ status: 'initiate', model: 'tiny-chat' });
    expect(progress.filter((p) => p.status === 'progress').map((p) => (p as { file: string }).file)).toContain('onnx/model.onnx');
    expect(progress.at(-1)).toMatchObject({ status: 'ready', model: 'tiny-chat', device: 'cpu' });
  });

  it('reports the exact prompt token count', async () => {
    const [start] = await collect(engine.chat(chatRequest({ maxTokens: 1 }), { signal }));
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-chat');
    const rendered = '<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHello, how are you?<|im_end|>\n<|im_start|>assistant\n';
    expect(start).toMatchObject({ type: 'start', promptTokens: tokenizer.encode(rendered, { add_special_tokens: false }).length });
  });

  it('counts the prompt exactly before the first token, however the generation ends', async () => {
    const messages: ChatMessage[] = [...hello, { role: 'assistant', content: 'Fine, thanks.' }, { role: 'user', content: 'And the weather today?' }];
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-chat');
    const exact = (tokenizer.apply_chat_template(messages, { add_generation_prompt: true, tokenize: true, return_tensor: false, return_dict: false }) as number[]).length;
    expect(exact).toBeGreaterThan(20);
    const run = async (over: Partial<ChatRequest>, stopAfter?: number) => {
      const controller = new AbortController();
      const generation = await startGeneration(engineOf(engine), chatRequest({ messages, ...over }), controller.signal);
      const events: GenerationEvent[] = [];
      const failure = await (async () => {
        for (;;) {
          const next = await generation.events.next();
          if (next.done) return undefined;
          events.push(next.value);
          if (events.length === stopAfter) controller.abort();
        }
      })().catch((error: unknown) => error);
      return { promptTokens: generation.promptTokens, events, failure, usage: generation.usage() };
    };
    const natural = await run({ maxTokens: 100 });
    const text = natural.events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    const words = text.split(' ');
    const across = `${words[2]!.slice(1)} ${words[3]!.slice(0, 2)}`; // ends one token, starts the next
    const endings = {
      natural,
      length: await run({ maxTokens: 3 }),
      stopSequence: await run({ maxTokens: 100, stop: [across] }),
      abort: await run({ maxTokens: 100 }, 2),
    };
    expect(endings.natural.events.at(-1)).toMatchObject({ reason: 'stop', usage: { promptTokens: exact } });
    expect(endings.length.events.at(-1)).toMatchObject({ reason: 'length', usage: { promptTokens: exact, completionTokens: 3 } });
    expect(endings.stopSequence.events.at(-1)).toMatchObject({ reason: 'stop_sequence', stopSequence: across, usage: { promptTokens: exact } });
    expect(endings.abort.failure).toMatchObject({ code: 'aborted' });
    for (const ending of Object.values(endings)) {
      expect(ending.promptTokens).toBe(exact);
      expect(ending.usage.promptTokens).toBe(exact);
    }
  });

  it('streams token texts that concatenate to the non-streamed output', async () => {
    const streamed = tokens(await collect(engine.chat(chatRequest(), { signal }))).join('');
    const generator = await pipeline('text-generation', 'tiny-chat', { device: 'cpu' });
    const [output] = (await generator(hello, { max_new_tokens: 32, do_sample: false })) as { generated_text: ChatMessage[] }[];
    expect(streamed).toBe(output?.generated_text.at(-1)?.content);
  });

  it('stops naturally at the end token when the budget allows', async () => {
    const events = await collect(engine.chat(chatRequest({ maxTokens: 100 }), { signal }));
    expect(tokens(events)).toHaveLength(TINY_CHAT.stopAfter);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'stop' });
  });

  it('continues a trailing assistant message (prefill)', async () => {
    const plain = await collect(engine.chat(chatRequest({ maxTokens: 1 }), { signal }));
    const events = await collect(engine.chat(chatRequest({ messages: [...hello, { role: 'assistant', content: ' the cat' }], maxTokens: 100 }), { signal }));
    const added = (events[0] as { promptTokens: number }).promptTokens - (plain[0] as { promptTokens: number }).promptTokens;
    expect(added).toBe(2); // " the", " cat"; no end-of-turn marker
    // The stop rule counts the prefill as part of the assistant turn.
    expect(tokens(events)).toHaveLength(TINY_CHAT.stopAfter - 2);
  });

  it('samples reproducibly with a seed', async () => {
    const run = (seed: number) => collect(engine.chat(chatRequest({ temperature: 1, topP: 0.9, topK: 20, seed }), { signal })).then(tokens);
    const [a, b, c] = [await run(7), await run(7), await run(8)];
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(a.join('')).toMatch(/^( [a-z]+)+$/);
  });

  it('applies logit_bias: -100 bans the greedy choice, +100 makes greedy choose the biased token', async () => {
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-chat');
    const idOf = (text: string) => {
      const ids = tokenizer.encode(text, { add_special_tokens: false });
      expect(ids, `'${text}' is one token`).toHaveLength(1);
      return ids[0]!;
    };
    const greedy = tokens(await collect(engine.chat(chatRequest({ maxTokens: 8 }), { signal })));
    const first = idOf(greedy[0]!);
    const banned = tokens(await collect(engine.chat(chatRequest({ maxTokens: 8, logitBias: new Map([[first, -100]]) }), { signal })));
    expect(banned).toHaveLength(8);
    expect(banned).not.toContain(greedy[0]);
    // A bias of 0 changes nothing.
    expect(tokens(await collect(engine.chat(chatRequest({ maxTokens: 8, logitBias: new Map([[first, 0]]) }), { signal })))).toEqual(greedy);

    const word = ` ${STORY_WORDS.find((w) => !greedy.includes(` ${w}`))!}`;
    const forced = tokens(await collect(engine.chat(chatRequest({ maxTokens: 8, logitBias: new Map([[idOf(word), 100]]) }), { signal })));
    expect(forced).toEqual(Array(8).fill(word));
    // With sampling too: the bias comes before the sampler.
    const sampled = tokens(await collect(engine.chat(chatRequest({ maxTokens: 8, temperature: 1, seed: 3, logitBias: new Map([[idOf(word), 100]]) }), { signal })));
    expect(sampled).toEqual(Array(8).fill(word));
  });

  it('refuses a logit_bias token id outside the vocabulary, naming logit_bias', async () => {
    const size = (JSON.parse(await readFile(join(dir, 'tiny-chat', 'config.json'), 'utf8')) as { vocab_size: number }).vocab_size;
    const last = await collect(engine.chat(chatRequest({ maxTokens: 2, logitBias: new Map([[size - 1, -100]]) }), { signal }));
    expect(tokens(last)).toHaveLength(2);
    const error = await rejection(collect(engine.chat(chatRequest({ logitBias: new Map([[5, 1], [size, -100]]) }), { signal })));
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: 'logit_bias' });
    expect(error.message).toContain(`token id ${size} is not in this model's vocabulary`);
  });

  it('stops at the end of the context window, and refuses a prompt that fills it', async () => {
    const window = tinyModelSpecs[0]!.info.contextWindow;
    // 'word ' is two tokens: 1015 of them leave 8 of the window's 2048, fewer than the model writes before its end token.
    const events = await collect(engine.chat(chatRequest({ maxTokens: 256, messages: [{ role: 'user', content: 'word '.repeat(1015) }] }), { signal }));
    const start = events[0] as { promptTokens: number };
    expect(start.promptTokens + tokens(events).length).toBe(window);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'length' });
    const error = await rejection(collect(engine.chat(chatRequest({ messages: [{ role: 'user', content: 'word '.repeat(1100) }] }), { signal })));
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'messages' });
  });

  it('stops promptly on abort and frees the model', async () => {
    const controller = new AbortController();
    const seen: ChatEvent[] = [];
    const run = (async () => {
      for await (const event of engine.chat(chatRequest({ maxTokens: 200 }), { signal: controller.signal })) {
        seen.push(event);
        if (tokens(seen).length === 3) controller.abort();
      }
    })();
    expect(await rejection(run)).toMatchObject({ code: 'aborted' });
    expect(tokens(seen)).toHaveLength(3);
    expect(tokens(await collect(engine.chat(chatRequest({ maxTokens: 2 }), { signal })))).toHaveLength(2);
  });

  it('unloads a model and loads it again on demand', async () => {
    const before = tokens(await collect(engine.chat(chatRequest({ maxTokens: 4 }), { signal })));
    await engine.unload('tiny-chat');
    const seen: LoadProgress[] = [];
    await engine.load('tiny-chat', { onProgress: (p) => seen.push(p) });
    expect(seen.at(-1)).toMatchObject({ status: 'ready' });
    expect(tokens(await collect(engine.chat(chatRequest({ maxTokens: 4 }), { signal })))).toEqual(before);
  });

  it('reports an unknown model', async () => {
    expect(await rejection(collect(engine.chat(chatRequest({ model: 'nope' }), { signal })))).toMatchObject({ code: 'model_not_found' });
  });
});

describe('transformers engine: embeddings', () => {
  const texts = ['The cat sleeps under the tree.', 'Hello, how are you?', 'The cat sleeps under the tree.', 'What is the capital of France?'];
  const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

  it('embeds to unit vectors of the hidden size with the expected similarities', async () => {
    const { embeddings } = await engine.embed({ model: 'tiny-embed', input: texts }, { signal });
    const [a, b, c, d] = embeddings as [Float32Array, Float32Array, Float32Array, Float32Array];
    for (const v of embeddings) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(TINY_EMBED.hiddenSize);
      expect(Math.sqrt(cosine(v, v))).toBeCloseTo(1, 5);
    }
    expect(cosine(a, c)).toBeCloseTo(1, 6);
    expect(cosine(a, b)).toBeLessThan(0.99);
    expect(cosine(b, d)).toBeLessThan(0.99);
  });

  it('gives every text the same bits in a batch as alone, in input order', async () => {
    // Mixed lengths (grouped per length) and more same-length texts than one model call takes.
    const mixed = [...texts, ...Array.from({ length: 40 }, (_, i) => `the cat ${i % 7 === 0 ? 'sat on the mat ' : ''}number ${i}`)];
    const batch = await engine.embed({ model: 'tiny-embed', input: mixed }, { signal });
    expect(batch.embeddings).toHaveLength(mixed.length);
    for (const [i, text] of mixed.entries()) {
      const single = await engine.embed({ model: 'tiny-embed', input: [text] }, { signal });
      expect(bits(batch.embeddings[i]!), `text ${i}`).toEqual(bits(single.embeddings[0]!));
      expect(batch.inputTokens?.[i]).toBe(single.promptTokens);
    }
  });

  it('counts prompt tokens exactly, special tokens included', async () => {
    const { promptTokens } = await engine.embed({ model: 'tiny-embed', input: texts }, { signal });
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-embed');
    expect(promptTokens).toBe(texts.reduce((sum, t) => sum + tokenizer.encode(t).length, 0));
    expect(tokenizer.encode('hello')).toHaveLength(3); // [CLS] hello [SEP]
  });

  it('reports a model that cannot be loaded as model_unavailable', async () => {
    const broken = createTransformersAdapter({
      models: [{ info: { id: 'ghost', kind: 'embedding', engine: 'transformers', contextWindow: 8 }, source: 'no-such-model' }],
      localModelPath: dir,
      device: 'cpu',
    });
    const error = await rejection(broken.embed({ model: 'ghost', input: ['hi'] }, { signal }));
    expect(error.code).toBe('model_unavailable');
    expect(error.message).toContain('"ghost"');
  });
});

function bits(v: Float32Array): number[] {
  return [...new Uint32Array(v.buffer, v.byteOffset, v.length)];
}
