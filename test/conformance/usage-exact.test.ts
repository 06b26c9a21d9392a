/**
 * `prompt_tokens` / `input_tokens` through the gateway, read with the official `openai` and
 * `@anthropic-ai/sdk` clients, equal the engine's exact count of the templated prompt for every
 * way a reply ends (natural stop, max_tokens, a stop sequence across a token boundary, abort, an
 * engine failure after the first byte), JSON and streamed, and `message_start` carries it too.
 *
 * Engines: transformers.js with real inference on the generated tiny model (the exact count is
 * its tokenizer's count of the chat template's output), and the web-llm adapter on a TEST DOUBLE
 * of MLCEngine (test/support/webllm-double.ts; the real one needs WebGPU and a model library that
 * cannot be had here), which, like web-llm, knows the exact count only from its pipeline after
 * prefill and its final usage chunk, a chunk the gateway never reads when it closes a reply early.
 * One transport (the SDK's `fetch` option): the counts do not depend on how requests arrive.
 */
import Anthropic from '@anthropic-ai/sdk';
import { AutoTokenizer } from '@huggingface/transformers';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage, Engine } from '../../src/core/engine.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import type { WebLLMModelSpec } from '../../src/engines/catalog/webllm-model-spec.ts';
import { toWebLLMMessages } from '../../src/engines/webllm/chat-request.ts';
import { createWebLLMAdapter } from '../../src/engines/webllm/webllm-adapter.ts';
import { transformersFixture } from '../support/engines.ts';
import { FAULTS, withFaults } from '../support/fault-engine.ts';
import { BASE, createHarness, readSSE, type Harness } from '../support/harness.ts';
import { doublePromptTokens, TestDoubleMLCEngine } from '../support/webllm-double.ts';

interface UsageFixture {
  readonly name: string;
  readonly model: string;
  create(): Promise<{ engine: Engine; exact(messages: readonly ChatMessage[]): Promise<number> }>;
}

const transformers: UsageFixture = {
  name: 'transformers.js on the tiny model',
  model: 'tiny-chat',
  async create() {
    const { engine } = await transformersFixture.create();
    const tokenizer = await AutoTokenizer.from_pretrained('tiny-chat');
    return {
      engine,
      exact: async (messages) => {
        const ids = tokenizer.apply_chat_template(
          messages.map(({ role, content }) => ({ role, content })),
          { add_generation_prompt: true, tokenize: true, return_tensor: false, return_dict: false },
        ) as number[];
        return ids.length;
      },
    };
  },
};

const WEBLLM_CHAT: WebLLMModelSpec = {
  info: { id: 'webllm-chat', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};

const webllm: UsageFixture = {
  name: 'the web-llm adapter on an MLCEngine test double',
  model: 'webllm-chat',
  async create() {
    const engines: TestDoubleMLCEngine[] = [];
    const adapter = createWebLLMAdapter({
      models: [WEBLLM_CHAT],
      gpu: async () => ({ hasShaderF16: false }),
      createEngine: (options) => {
        const engine = new TestDoubleMLCEngine(options);
        engines.push(engine);
        return engine;
      },
    });
    return {
      engine: withFaults(createModelHost({ adapters: [adapter] })),
      exact: async (messages) => {
        // The count the engine prefilled for the last request is the one its tokenizer makes.
        const prefilled = engines[0]?.prefilled.at(-1);
        expect(prefilled).toBe(doublePromptTokens(toWebLLMMessages(messages)));
        return prefilled as number;
      },
    };
  },
};

/** web-llm's former placeholder, characters ÷ 4: the counts here must never be it. */
const estimate = (messages: readonly ChatMessage[]) => Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);

const USER = 'Tell me about the weather in the mountains today, please.';
const SYSTEM = 'You answer briefly and kindly.';
const neutral = (user: string = USER): ChatMessage[] => [
  { role: 'system', content: SYSTEM },
  { role: 'user', content: user },
];

describe.each([transformers, webllm])('exact prompt tokens through the SDKs on $name', (fixture) => {
  let h: Harness;
  let oa: OpenAI;
  let an: Anthropic;
  let exact: (messages: readonly ChatMessage[]) => Promise<number>;
  const model = fixture.model;
  const openaiMessages = (user: string = USER) => [
    { role: 'system' as const, content: SYSTEM },
    { role: 'user' as const, content: user },
  ];
  const anthropicBody = (user: string = USER) => ({ model, system: SYSTEM, messages: [{ role: 'user' as const, content: user }] });

  beforeEach(async () => {
    const created = await fixture.create();
    exact = created.exact;
    h = createHarness('fetch option', { engine: created.engine });
    oa = h.openai();
    an = h.anthropic();
  });
  afterEach(() => h.close());

  /** A stop sequence that ends inside the answer's third word and runs into its fourth. */
  async function stopAcrossTokens(): Promise<string> {
    const full = await oa.chat.completions.create({ model, messages: openaiMessages(), max_tokens: 100 });
    const words = full.choices[0]!.message.content!.split(' ').filter(Boolean);
    expect(words.length).toBeGreaterThan(4);
    return `${words[2]!.slice(1)} ${words[3]!.slice(0, 2)}`;
  }

  it('the fixture counts differently from characters ÷ 4, so an estimate would show', async () => {
    await oa.chat.completions.create({ model, messages: openaiMessages(), max_tokens: 1 });
    expect(await exact(neutral())).not.toBe(estimate(neutral()));
  });

  describe('openai', () => {
    const endings = async () => ({ natural: { max_tokens: 100 }, length: { max_tokens: 3 }, stopSequence: { max_tokens: 100, stop: [await stopAcrossTokens()] } });

    it('JSON: natural stop, max_tokens and a stop sequence', async () => {
      const want = { natural: 'stop', length: 'length', stopSequence: 'stop' };
      for (const [ending, params] of Object.entries(await endings())) {
        const res = await oa.chat.completions.create({ model, messages: openaiMessages(), ...params });
        expect(res.choices[0]!.finish_reason, ending).toBe(want[ending as keyof typeof want]);
        expect(res.usage!.prompt_tokens, ending).toBe(await exact(neutral()));
        expect(res.usage!.total_tokens).toBe(res.usage!.prompt_tokens + res.usage!.completion_tokens);
      }
    });

    it('streamed: the usage chunk for natural stop, max_tokens and a stop sequence', async () => {
      for (const [ending, params] of Object.entries(await endings())) {
        const stream = await oa.chat.completions.create({ model, messages: openaiMessages(), ...params, stream: true, stream_options: { include_usage: true } });
        let usage: OpenAI.CompletionUsage | null | undefined;
        for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
        expect(usage?.prompt_tokens, ending).toBe(await exact(neutral()));
      }
    });

    it('streamed failure after the first byte: the SDK throws APIError, and the error event carries the usage so far', async () => {
      const user = `Go on ${FAULTS.midstream}`;
      const stream = await oa.chat.completions.create({ model, messages: openaiMessages(user), max_tokens: 20, stream: true });
      const error = await (async () => {
        for await (const _ of stream);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();

      const raw = await h.fetch(`${BASE}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({ model, messages: openaiMessages(user), max_tokens: 20, stream: true }),
      });
      const last = JSON.parse((await readSSE(raw)).at(-1)!.data);
      expect(last.error).toMatchObject({ type: 'server_error' });
      // The fault is raised as the third token arrives: two were generated and sent.
      expect(last.usage).toEqual({ prompt_tokens: await exact(neutral(user)), completion_tokens: 2, total_tokens: (await exact(neutral(user))) + 2, prompt_tokens_details: { cached_tokens: expect.any(Number) } });
    });
  });

  describe('anthropic', () => {
    /** The whole prompt: Anthropic counts what came from the prefix cache apart from `input_tokens`. */
    const wholeInput = (usage: { input_tokens: number; cache_read_input_tokens?: number | null }) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0);

    const endings = async () => ({ natural: { max_tokens: 100 }, length: { max_tokens: 3 }, stopSequence: { max_tokens: 100, stop_sequences: [await stopAcrossTokens()] } });
    const want = { natural: 'end_turn', length: 'max_tokens', stopSequence: 'stop_sequence' };

    it('JSON: natural stop, max_tokens and a stop sequence', async () => {
      for (const [ending, params] of Object.entries(await endings())) {
        const msg = await an.messages.create({ ...anthropicBody(), ...params });
        expect(msg.stop_reason, ending).toBe(want[ending as keyof typeof want]);
        expect(wholeInput(msg.usage), ending).toBe(await exact(neutral()));
      }
    });

    it('streamed: message_start and message_delta carry the exact count for natural stop, max_tokens and a stop sequence', async () => {
      for (const [ending, params] of Object.entries(await endings())) {
        const stream = await an.messages.create({ ...anthropicBody(), ...params, stream: true });
        let start: number | undefined;
        let delta: number | null | undefined;
        let reason: string | null | undefined;
        for await (const event of stream) {
          if (event.type === 'message_start') start = wholeInput(event.message.usage);
          if (event.type === 'message_delta') {
            delta = event.usage.input_tokens === null ? null : wholeInput(event.usage as Anthropic.Usage);
            reason = event.delta.stop_reason;
          }
        }
        expect(reason, ending).toBe(want[ending as keyof typeof want]);
        expect(start, ending).toBe(await exact(neutral()));
        expect(delta, ending).toBe(start);
      }
    });

    it('abort: message_start, sent before the first token, already carries the exact count', async () => {
      const stream = an.messages.stream({ ...anthropicBody(), max_tokens: 100 });
      const start = await new Promise<number>((resolve) => stream.on('streamEvent', (e) => e.type === 'message_start' && resolve(wholeInput(e.message.usage))));
      stream.abort();
      await stream.done().catch(() => {});
      expect(start).toBe(await exact(neutral()));
    });

    it('streamed failure after the first byte: the SDK throws APIError, and the error event carries the usage so far', async () => {
      const user = `Go on ${FAULTS.midstream}`;
      const stream = await an.messages.create({ ...anthropicBody(user), max_tokens: 20, stream: true });
      let start: number | undefined;
      const error = await (async () => {
        for await (const event of stream) if (event.type === 'message_start') start = wholeInput(event.message.usage);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as { type?: string }).type).toBe('api_error');
      expect(start).toBe(await exact(neutral(user)));

      const raw = await an.messages.create({ ...anthropicBody(user), max_tokens: 20, stream: true }).asResponse();
      const last = (await readSSE(raw)).at(-1)!;
      expect(last.event).toBe('error');
      const failed = JSON.parse(last.data);
      expect(failed).toMatchObject({ type: 'error', error: { type: 'api_error' }, usage: { output_tokens: 2 } });
      expect(wholeInput(failed.usage)).toBe(await exact(neutral(user)));
    });
  });
});
