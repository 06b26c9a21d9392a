import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../core/errors.ts';
import type { Generation, GenerationEvent } from '../../../core/generation.ts';
import type { SSEMessage } from '../../../core/sse.ts';
import { toOpenAIUsage } from '../wire.ts';
import { toChatCompletion, toChatCompletionChunks, toFinishReason } from './render.ts';
import { generationOf as generationOfEvents, toolCallEvents } from '../../../../test/support/generations.ts';

const generationOf = (events: readonly GenerationEvent[], error?: unknown) => generationOfEvents(events, { promptTokens: 9, error });

const finish = (reason: 'stop' | 'length' | 'stop_sequence', completionTokens = 2): GenerationEvent => ({
  type: 'finish',
  reason,
  stopSequence: reason === 'stop_sequence' ? '###' : null,
  usage: { promptTokens: 9, completionTokens, cachedTokens: 0 },
});
const META = { id: 'chatcmpl-test', created: 1_700_000_000, model: 'chat-m' };

async function collect(source: AsyncIterable<SSEMessage>): Promise<SSEMessage[]> {
  const out: SSEMessage[] = [];
  for await (const message of source) out.push(message);
  return out;
}

describe('toChatCompletion', () => {
  it('builds the chat.completion body with exactly the documented keys', async () => {
    const { generation } = generationOf([{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }, finish('stop', 2)]);
    const body = await toChatCompletion(generation, META);
    expect(Object.keys(body).sort()).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
    expect(body).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'chat-m',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } },
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['stop_sequence', 'stop'],
  ] as const)('reports finish %s as finish_reason %s', async (reason, expected) => {
    const body = await toChatCompletion(generationOf([finish(reason, 0)]).generation, META);
    expect(body.choices[0]!.finish_reason).toBe(expected);
    expect(body.choices[0]!.message.content).toBe('');
  });

  it('fails with an internal error if the generation ends without a finish', async () => {
    await expect(toChatCompletion(generationOf([{ type: 'text', text: 'x' }]).generation, META)).rejects.toMatchObject({ code: 'internal' });
  });

  it('passes a generation failure on', async () => {
    const failure = new GatewayError('engine_unavailable', 'lost');
    await expect(toChatCompletion(generationOf([], failure).generation, META)).rejects.toBe(failure);
  });
});

describe('toFinishReason and toOpenAIUsage', () => {
  it('maps the neutral finish reasons', () => {
    expect([toFinishReason('stop'), toFinishReason('length'), toFinishReason('stop_sequence')]).toEqual(['stop', 'length', 'stop']);
  });

  it('totals prompt and completion tokens, with the cached ones among the prompt\'s', () => {
    expect(toOpenAIUsage({ promptTokens: 3, completionTokens: 4, cachedTokens: 0 })).toEqual({ prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 } });
    expect(toOpenAIUsage({ promptTokens: 30, completionTokens: 4, cachedTokens: 26 })).toEqual({ prompt_tokens: 30, completion_tokens: 4, total_tokens: 34, prompt_tokens_details: { cached_tokens: 26 } });
  });
});

describe('toChatCompletionChunks', () => {
  const events = [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }, finish('length', 2)] as const;

  it('emits a role chunk, content chunks, a finish chunk and [DONE], with no event names and no usage key', async () => {
    const { generation, state } = generationOf(events);
    const messages = await collect(toChatCompletionChunks(generation, META, false));
    expect(messages.every((m) => m.event === undefined)).toBe(true);
    expect(messages.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = messages.slice(0, -1).map((m) => JSON.parse(m.data));
    for (const chunk of chunks) {
      expect(Object.keys(chunk).sort()).toEqual(['choices', 'created', 'id', 'model', 'object']);
      expect(chunk).toMatchObject({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'chat-m' });
      for (const choice of chunk.choices) expect(Object.keys(choice).sort()).toEqual(['delta', 'finish_reason', 'index', 'logprobs']);
    }
    expect(chunks.map((c) => c.choices)).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: 'Hel' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: 'lo' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: {}, logprobs: null, finish_reason: 'length' }],
    ]);
    expect(state.closed).toBe(true);
  });

  it('with include_usage: usage null on every chunk, then a usage chunk with no choices before [DONE]', async () => {
    const messages = await collect(toChatCompletionChunks(generationOf(events).generation, META, true));
    expect(messages.at(-1)).toEqual({ data: '[DONE]' });
    const chunks = messages.slice(0, -1).map((m) => JSON.parse(m.data));
    const last = chunks.at(-1);
    expect(last).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'chat-m',
      choices: [],
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } },
    });
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(chunks).toHaveLength(5);
  });

  const calls = toolCallEvents(9);

  it('streams tool calls as OpenAI does: index, id, type and name first with empty arguments, then argument fragments', async () => {
    const chunks = (await collect(toChatCompletionChunks(generationOf(calls).generation, META, false))).slice(0, -1).map((m) => JSON.parse(m.data));
    const deltas = chunks.map((c) => c.choices[0]);
    expect(deltas.slice(1).map((d) => d.delta)).toEqual([
      { tool_calls: [{ index: 0, id: expect.stringMatching(/^call_[A-Za-z0-9]{24}$/), type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'now', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      {},
    ]);
    expect(deltas.at(-1).finish_reason).toBe('tool_calls');
  });

  it('returns tool calls whole with content null and finish_reason tool_calls', async () => {
    const body = await toChatCompletion(generationOf(calls).generation, META);
    expect(body.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [
          { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
          { id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
    expect(body.usage).toEqual({ prompt_tokens: 9, completion_tokens: 30, total_tokens: 39, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('reports a stop sequence as finish_reason stop', async () => {
    const messages = await collect(toChatCompletionChunks(generationOf([finish('stop_sequence', 0)]).generation, META, false));
    expect(JSON.parse(messages.at(-2)!.data).choices[0].finish_reason).toBe('stop');
  });

  it('turns a failure after the first byte into one in-band {"error":…} data event, with the usage so far, and no [DONE]', async () => {
    const { generation, state } = generationOf([{ type: 'text', text: 'He' }, { type: 'text', text: 'y' }], new GatewayError('internal', 'engine died'));
    const messages = await collect(toChatCompletionChunks(generation, META, true));
    expect(messages.every((m) => m.event === undefined)).toBe(true);
    expect(messages.some((m) => m.data === '[DONE]')).toBe(false);
    expect(JSON.parse(messages.at(-1)!.data)).toEqual({
      error: { message: 'engine died', type: 'server_error', param: null, code: null },
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11, prompt_tokens_details: { cached_tokens: 0 } },
    });
    expect(JSON.parse(messages.at(-2)!.data).choices[0].delta).toEqual({ content: 'y' });
    expect(state.closed).toBe(true);
  });

  it('renders a non-gateway failure as server_error and a rate limit as rate_limit_error', async () => {
    const crash = await collect(toChatCompletionChunks(generationOf([], new TypeError('bad')).generation, META, false));
    expect(JSON.parse(crash.at(-1)!.data)).toMatchObject({ error: { type: 'server_error', message: 'bad' }, usage: { prompt_tokens: 9, completion_tokens: 0 } });
    const busy = await collect(toChatCompletionChunks(generationOf([], new GatewayError('queue_full', 'busy')).generation, META, false));
    expect(JSON.parse(busy.at(-1)!.data).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
  });

  it('closes the generation when the reader stops early', async () => {
    const { generation, state } = generationOf(events);
    const stream = toChatCompletionChunks(generation, META, false);
    await stream.next();
    await stream.next();
    await stream.return(undefined);
    expect(state.closed).toBe(true);
  });
});
