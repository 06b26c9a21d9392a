/**
 * A message asked for whole and the same one streamed agree: the whole body equals what
 * `@anthropic-ai/sdk`'s MessageStream assembles from the events (ids aside). Run through the
 * gateway on every engine fixture (test/support/engines.ts): the scripted engine, the same behind
 * the worker RPC, and real transformers.js inference on the tiny model, greedy (temperature 0), so
 * that both requests decode the same tokens; then through the renderer alone, on generations the
 * engines do not give on demand (thinking, text before calls, a refusal).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine.ts';
import type { GenerationEvent } from '../../core/generation.ts';
import { SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { ENGINE_FIXTURES } from '../../../test/support/engines.ts';
import { generationOf, toolCallEvents } from '../../../test/support/generations.ts';
import { createHarness, type Harness } from '../../../test/support/harness.ts';
import { toMessage, toMessageEvents } from './render.ts';

const WEATHER = { type: 'object' as const, properties: { city: { type: 'string', enum: ['Paris', 'London', 'Tokyo'] } }, required: ['city'], additionalProperties: false };
const TIME = { type: 'object' as const, properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false };
const TOOLS = [
  { name: 'get_weather', description: 'The weather in a city.', input_schema: WEATHER },
  { name: 'get_time', description: 'The time in a zone.', input_schema: TIME },
];

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'stream'>;
type Message = Anthropic.Message & { parsed_output?: unknown };

/**
 * What a message is apart from what each run draws: its id, its calls' ids, and how much of its
 * prompt an earlier request had left in the engine's prefix cache (the second of two equal
 * requests finds the first's, so its counts split differently). `parsed_output` is the SDK's own.
 */
function comparable(message: Message) {
  const { id, content, usage, parsed_output: _, ...rest } = JSON.parse(JSON.stringify(message)) as Message;
  expect(id).toMatch(/^msg_/);
  const { input_tokens, cache_read_input_tokens, ...counts } = usage;
  return {
    ...rest,
    usage: { ...counts, prompt: input_tokens + (cache_read_input_tokens ?? 0) },
    content: content.map((block) => (block.type === 'tool_use' ? { ...block, id: expect.stringMatching(/^toolu_/) } : block)),
  };
}

describe.each(ENGINE_FIXTURES)('/messages whole and streamed agree on $name', (fixture) => {
  let engine: Engine;
  let harness: Harness;
  let anthropic: Anthropic;
  let toolCalling = false;

  beforeAll(async () => {
    ({ engine } = await fixture.create());
    harness = createHarness('fetch option', { engine });
    // The version that still takes `temperature`: greedy decoding, so that both requests decode the same tokens.
    anthropic = harness.anthropic({ defaultHeaders: { 'anthropic-version': '2023-06-01' } });
    toolCalling = (await engine.listModels()).some((model) => model.id === fixture.chatModel && model.toolCalling === true);
  }, 120_000);
  afterAll(() => harness.close());

  /** The same request whole and streamed: the JSON body, and the stream as the SDK assembles it. */
  async function both(params: Params) {
    const body = { model: fixture.chatModel, temperature: 0, ...params };
    const whole = await anthropic.messages.create(body);
    const streamed = await anthropic.messages.stream(body).finalMessage();
    return { whole, streamed };
  }

  it('gives the same text, stop reason and usage, whole and streamed', async () => {
    const { whole, streamed } = await both({ system: 'Be brief.', messages: [{ role: 'user', content: 'Tell me about the sea.' }], max_tokens: 24 });
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(whole.usage.output_tokens).toBeGreaterThan(0);
  });

  it('agrees on an answer cut by max_tokens', async () => {
    const { whole, streamed } = await both({ messages: [{ role: 'user', content: 'Tell me a long story about rivers and stars.' }], max_tokens: 16 });
    // Both engines' answers run past 16 tokens here (the scripted one's is 64 tokens long).
    expect(whole.stop_reason).toBe('max_tokens');
    expect(comparable(streamed)).toEqual(comparable(whole));
  });

  it('agrees on an answer cut at a stop sequence, and names it both ways', async () => {
    const { whole, streamed } = await both({ messages: [{ role: 'user', content: 'Tell me a long story about rivers and stars.' }], max_tokens: 40, stop_sequences: ['e'] });
    expect(whole).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'e' });
    expect(comparable(streamed)).toEqual(comparable(whole));
  });

  it('makes the same tool calls whole and streamed, or refuses tools the same way', async () => {
    const params: Params = { messages: [{ role: 'user', content: 'What is the weather in Paris, and the time in UTC?' }], tools: TOOLS, tool_choice: { type: 'any' }, max_tokens: 120 };
    if (!toolCalling) {
      const refusal = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('tools were taken'), (error: unknown) => error as InstanceType<typeof Anthropic.APIError>);
      const whole = await refusal(anthropic.messages.create({ model: fixture.chatModel, ...params }));
      const streamed = await refusal(anthropic.messages.create({ model: fixture.chatModel, ...params, stream: true }));
      expect(streamed.status).toBe(whole.status);
      expect((streamed.error as { error: unknown }).error).toEqual((whole.error as { error: unknown }).error);
      return;
    }
    const { whole, streamed } = await both(params);
    expect(whole.content.some((block) => block.type === 'tool_use')).toBe(true);
    expect(comparable(streamed)).toEqual(comparable(whole));
  });
});

describe('the message renderer, whole and streamed, on generations the engines do not give on demand', () => {
  const usage = { promptTokens: 9, completionTokens: 12, cachedTokens: 4, reasoningTokens: 5 };
  const meta = { id: 'msg_agree', model: 'chat-m', requestId: 'req_agree', showThinking: true };

  /** The SDK's assembly of the renderer's stream of `events`. */
  const streamed = (events: readonly GenerationEvent[]) => {
    const client = new Anthropic({
      apiKey: 'k',
      baseURL: 'http://gateway.test',
      maxRetries: 0,
      fetch: async () => new Response(toSSEStream(toMessageEvents(generationOf(events, { promptTokens: 9 }).generation, meta), () => {}), { headers: SSE_HEADERS }),
    });
    return client.messages.stream({ model: 'chat-m', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
  };

  it.each([
    ['thinking, then text', [{ type: 'reasoning', text: 'The sea' }, { type: 'reasoning', text: ' is wide.' }, { type: 'text', text: 'It is ' }, { type: 'text', text: 'wide.' }, { type: 'finish', reason: 'stop', stopSequence: null, usage }]],
    ['thinking alone', [{ type: 'reasoning', text: 'Hmm.' }, { type: 'finish', reason: 'length', stopSequence: null, usage }]],
    ['thinking, text, then calls', [{ type: 'reasoning', text: 'Check.' }, { type: 'text', text: 'Checking.' }, ...toolCallEvents(9)]],
    ['a refusal', [{ type: 'text', text: 'No.' }, { type: 'finish', reason: 'refusal', stopSequence: null, usage }]],
    ['a stop sequence', [{ type: 'text', text: 'Once' }, { type: 'finish', reason: 'stop_sequence', stopSequence: '\n\nHuman:', usage }]],
    ['nothing', [{ type: 'finish', reason: 'stop', stopSequence: null, usage }]],
  ] as [string, GenerationEvent[]][])('agrees on %s', async (_, events) => {
    const whole = await toMessage(generationOf(events, { promptTokens: 9 }).generation, meta);
    expect(comparable(await streamed(events))).toEqual(comparable(whole as unknown as Message));
  });
});
