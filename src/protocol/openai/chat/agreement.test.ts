/**
 * A chat completion asked for whole and the same one streamed agree: the whole body equals what
 * `openai`'s ChatCompletionStream assembles from the chunks (ids and the clock aside). Run through
 * the gateway on every engine fixture (test/support/engines.ts): the scripted engine, the same
 * behind the worker RPC, and real transformers.js inference on the tiny model, greedy (temperature
 * 0, a seed), so that both requests decode the same tokens; then through the renderer alone, on
 * generations the engines do not give on demand (thinking, text before calls).
 */
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../../core/engine.ts';
import type { GenerationEvent } from '../../../core/generation.ts';
import { SSE_HEADERS, toSSEStream } from '../../../core/sse.ts';
import { ENGINE_FIXTURES } from '../../../../test/support/engines.ts';
import { generationOf, toolCallEvents } from '../../../../test/support/generations.ts';
import { createHarness, type Harness } from '../../../../test/support/harness.ts';
import { toChatCompletion, toChatCompletionChunks } from './render.ts';

const GREEDY = { temperature: 0, seed: 7 };
const WEATHER = { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'London', 'Tokyo'] } }, required: ['city'], additionalProperties: false };
const TIME = { type: 'object', properties: { zone: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false };
const TOOLS = [
  { type: 'function' as const, function: { name: 'get_weather', description: 'The weather in a city.', parameters: WEATHER } },
  { type: 'function' as const, function: { name: 'get_time', description: 'The time in a zone.', parameters: TIME } },
];

type Params = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'model' | 'stream'>;

type Message = ChatCompletion.Choice['message'] & { parsed?: unknown; reasoning_content?: string | null };

/**
 * What a completion is apart from what each run draws or times: its id, the clock, its calls'
 * ids, and how much of its prompt an earlier request had left in the engine's prefix cache (the
 * second of two equal requests finds the first's). `parsed` is the SDK's own addition. Two things
 * only the whole body can say, since the stream's first chunk comes before it is known: a reply
 * of calls alone has `content: null` (the role chunk opened it as ''), and a thinking model that
 * did not think has `reasoning_content: null` (the stream sends none).
 */
function comparable(completion: ChatCompletion) {
  const { id, created, choices, usage, ...rest } = JSON.parse(JSON.stringify(completion)) as ChatCompletion;
  expect(id).toMatch(/^chatcmpl-/);
  expect(typeof created).toBe('number');
  return {
    ...rest,
    usage: usage && { ...usage, prompt_tokens_details: { cached_tokens: expect.any(Number) } },
    choices: choices.map(({ message, ...choice }) => {
      const { parsed: _, tool_calls, content, reasoning_content, ...said } = message as Message;
      return {
        ...choice,
        message: {
          ...said,
          content: tool_calls && content === '' ? null : content,
          ...(reasoning_content ? { reasoning_content } : {}),
          ...(tool_calls ? { tool_calls: tool_calls.map((call) => ({ ...call, id: expect.stringMatching(/^call_/) })) } : {}),
        },
      };
    }),
  };
}

/**
 * The stream as the SDK assembles it, with the thinking joined from the chunks' deltas: the SDK
 * keeps a field it does not know (`reasoning_content`) as the last chunk gave it.
 */
async function assembled(stream: ReturnType<OpenAI['chat']['completions']['stream']>): Promise<ChatCompletion> {
  let thinking: string | undefined;
  stream.on('chunk', (chunk: ChatCompletionChunk) => {
    const piece = (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content;
    if (piece !== undefined) thinking = (thinking ?? '') + piece;
  });
  const final = await stream.finalChatCompletion();
  if (thinking !== undefined) (final.choices[0]!.message as { reasoning_content?: string }).reasoning_content = thinking;
  return final;
}

describe.each(ENGINE_FIXTURES)('/chat/completions whole and streamed agree on $name', (fixture) => {
  let engine: Engine;
  let harness: Harness;
  let openai: OpenAI;
  let toolCalling = false;

  beforeAll(async () => {
    ({ engine } = await fixture.create());
    harness = createHarness('fetch option', { engine });
    openai = harness.openai();
    toolCalling = (await engine.listModels()).some((model) => model.id === fixture.chatModel && model.toolCalling === true);
  }, 120_000);
  afterAll(() => harness.close());

  /** The same request whole and streamed: the JSON body, and the stream as the SDK assembles it. */
  async function both(params: Params) {
    const body = { model: fixture.chatModel, ...GREEDY, ...params };
    const whole = await openai.chat.completions.create(body);
    const streamed = await assembled(openai.chat.completions.stream({ ...body, stream_options: { include_usage: true } }));
    return { whole, streamed };
  }

  it('gives the same text, finish and usage, whole and streamed', async () => {
    const { whole, streamed } = await both({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Tell me about the sea.' }], max_tokens: 24 });
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(whole.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('agrees on an answer cut by max_tokens: length both ways', async () => {
    const { whole, streamed } = await both({ messages: [{ role: 'user', content: 'Tell me a long story about rivers and stars.' }], max_tokens: 16 });
    // Both engines' answers run past 16 tokens here (the scripted one's is 64 tokens long).
    expect(whole.choices[0]!.finish_reason).toBe('length');
    expect(comparable(streamed)).toEqual(comparable(whole));
  });

  it('agrees on an answer cut at a stop string', async () => {
    const { whole, streamed } = await both({ messages: [{ role: 'user', content: 'Tell me a long story about rivers and stars.' }], max_tokens: 40, stop: ['e'] });
    expect(whole.choices[0]!.message.content).not.toContain('e');
    expect(comparable(streamed)).toEqual(comparable(whole));
  });

  it('makes the same tool calls whole and streamed, or refuses tools the same way', async () => {
    const params: Params = { messages: [{ role: 'user', content: 'What is the weather in Paris, and the time in UTC?' }], tools: TOOLS, tool_choice: 'required', max_tokens: 120 };
    if (!toolCalling) {
      const refusal = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('tools were taken'), (error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
      const whole = await refusal(openai.chat.completions.create({ model: fixture.chatModel, ...params }));
      const streamed = await refusal(openai.chat.completions.create({ model: fixture.chatModel, ...params, stream: true }));
      expect([streamed.status, streamed.error]).toEqual([whole.status, whole.error]);
      return;
    }
    const { whole, streamed } = await both(params);
    expect(whole.choices[0]!.message.tool_calls!.length).toBeGreaterThan(0);
    expect(comparable(streamed)).toEqual(comparable(whole));
  });
});

describe('the chat renderer, whole and streamed, on generations the engines do not give on demand', () => {
  const usage = { promptTokens: 9, completionTokens: 12, cachedTokens: 4, reasoningTokens: 5 };
  const meta = { id: 'chatcmpl-agree', created: 1_700_000_000, model: 'chat-m', reasons: true };

  /** The SDK's assembly of the renderer's stream of `events`. */
  const streamed = (events: readonly GenerationEvent[]) => {
    const client = new OpenAI({
      apiKey: 'k',
      baseURL: 'http://gateway.test/v1',
      maxRetries: 0,
      fetch: async () => new Response(toSSEStream(toChatCompletionChunks(generationOf(events, { promptTokens: 9 }).generation, meta, true), () => {}), { headers: SSE_HEADERS }),
    });
    return assembled(client.chat.completions.stream({ model: 'chat-m', messages: [{ role: 'user', content: 'x' }], stream_options: { include_usage: true } }));
  };

  it.each([
    ['thinking, then text', [{ type: 'reasoning', text: 'The sea' }, { type: 'reasoning', text: ' is wide.' }, { type: 'text', text: 'It is ' }, { type: 'text', text: 'wide.' }, { type: 'finish', reason: 'stop', stopSequence: null, usage }]],
    ['thinking, text, then calls', [{ type: 'reasoning', text: 'Check.' }, { type: 'text', text: 'Checking.' }, ...toolCallEvents(9)]],
    ['a refusal', [{ type: 'text', text: 'No.' }, { type: 'finish', reason: 'refusal', stopSequence: null, usage }]],
    ['nothing', [{ type: 'finish', reason: 'stop', stopSequence: null, usage }]],
  ] as [string, GenerationEvent[]][])('agrees on %s', async (_, events) => {
    const whole = await toChatCompletion(generationOf(events, { promptTokens: 9 }).generation, meta);
    expect(comparable(await streamed(events))).toEqual(comparable(whole as unknown as ChatCompletion));
  });
});
