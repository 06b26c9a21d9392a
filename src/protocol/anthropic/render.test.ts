import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../core/errors.ts';
import type { Generation, GenerationEvent } from '../../core/generation.ts';
import type { SSEMessage } from '../../core/sse.ts';
import { toMessage, toMessageEvents, toStopReason } from './render.ts';
import { generationOf as generationOfEvents, toolCallEvents } from '../../../test/support/generations.ts';

const generationOf = (events: readonly GenerationEvent[], error?: unknown) => generationOfEvents(events, { promptTokens: 11, error });

const finish = (reason: 'stop' | 'length' | 'stop_sequence', completionTokens = 2): GenerationEvent => ({
  type: 'finish',
  reason,
  stopSequence: reason === 'stop_sequence' ? '\n\nHuman:' : null,
  usage: { promptTokens: 11, completionTokens, cachedTokens: 0 },
});
const META = { id: 'msg_test', model: 'chat-m', requestId: 'req_test' };

async function collect(source: AsyncIterable<SSEMessage>): Promise<{ event: string | undefined; body: Record<string, unknown> }[]> {
  const out: { event: string | undefined; body: Record<string, unknown> }[] = [];
  for await (const message of source) out.push({ event: message.event, body: JSON.parse(message.data) });
  return out;
}

describe('toStopReason', () => {
  it('maps the neutral finish reasons', () => {
    expect([toStopReason('stop'), toStopReason('length'), toStopReason('stop_sequence')]).toEqual(['end_turn', 'max_tokens', 'stop_sequence']);
  });
});

describe('toMessage', () => {
  it('builds the message body with exactly the documented keys', async () => {
    const body = await toMessage(generationOf([{ type: 'text', text: 'Hi' }, { type: 'text', text: '!' }, finish('stop', 2)]).generation, META);
    expect(Object.keys(body).sort()).toEqual(['container', 'content', 'id', 'model', 'role', 'stop_details', 'stop_reason', 'stop_sequence', 'type', 'usage']);
    expect(body).toEqual({
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: 'chat-m',
      content: [{ type: 'text', text: 'Hi!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 11, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('gives text blocks no citations key, streamed or not: the AI SDK rejects citations: null', async () => {
    const body = await toMessage(generationOf([{ type: 'text', text: 'Hi' }, finish('stop', 1)]).generation, META);
    expect(Object.keys(body.content[0]!)).toEqual(['type', 'text']);
    const out = (await collect(toMessageEvents(generationOf([{ type: 'text', text: 'Hi' }, finish('stop', 1)]).generation, META))).map((e) => e.body);
    expect(Object.keys(out.find((e) => e.type === 'content_block_start')!.content_block as object)).toEqual(['type', 'text']);
  });

  it('reports which stop sequence fired', async () => {
    const body = await toMessage(generationOf([finish('stop_sequence', 1)]).generation, META);
    expect(body).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '\n\nHuman:' });
  });

  it('reports the token cap as max_tokens', async () => {
    expect((await toMessage(generationOf([finish('length', 1)]).generation, META)).stop_reason).toBe('max_tokens');
  });

  it('fails with an internal error if the generation ends without a finish', async () => {
    await expect(toMessage(generationOf([]).generation, META)).rejects.toMatchObject({ code: 'internal' });
  });
});

describe('toMessageEvents', () => {
  const events = [{ type: 'text', text: 'Hel' }, { type: 'text', text: 'lo' }, finish('stop', 2)] as const;

  it('emits the canonical event order, each named after its JSON type', async () => {
    const { generation, state } = generationOf(events);
    const out = await collect(toMessageEvents(generation, META));
    for (const { event, body } of out) expect(event).toBe(body.type);
    expect(out.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(state.closed).toBe(true);
  });

  it('shapes every event exactly', async () => {
    const out = (await collect(toMessageEvents(generationOf(events).generation, META))).map((e) => e.body);
    expect(out).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_test',
          type: 'message',
          role: 'assistant',
          model: 'chat-m',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          stop_details: null,
          container: null,
          usage: { input_tokens: 11, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null }, usage: { input_tokens: 11, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
      { type: 'message_stop' },
    ]);
  });

  const calls = toolCallEvents(11);

  it('streams each call as a tool_use block of input_json_delta fragments, with no empty text block', async () => {
    const out = (await collect(toMessageEvents(generationOf(calls).generation, META))).map((e) => e.body);
    expect(out.slice(1)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: expect.stringMatching(/^toolu_[A-Za-z0-9]{24}$/), name: 'get_weather', input: {} } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"city": ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'now', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null }, usage: { input_tokens: 11, output_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
      { type: 'message_stop' },
    ]);
  });

  it('returns calls as tool_use blocks with parsed input and stop_reason tool_use', async () => {
    const body = await toMessage(generationOf(calls).generation, META);
    expect(body.content).toEqual([
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'now', input: {} },
    ]);
    expect(body.stop_reason).toBe('tool_use');
  });

  it('carries the fired stop sequence in message_delta', async () => {
    const out = await collect(toMessageEvents(generationOf([finish('stop_sequence', 3)]).generation, META));
    expect(out.find((e) => e.event === 'message_delta')!.body).toMatchObject({
      delta: { stop_reason: 'stop_sequence', stop_sequence: '\n\nHuman:' },
      usage: { output_tokens: 3 },
    });
  });

  it('ends a failed stream with one error event carrying the request id and the usage so far, and no message_stop', async () => {
    const { generation, state } = generationOf([{ type: 'text', text: 'He' }, { type: 'text', text: 'y' }], new GatewayError('internal', 'engine died'));
    const out = await collect(toMessageEvents(generation, META));
    expect(out.at(-1)).toEqual({
      event: 'error',
      body: { type: 'error', error: { type: 'api_error', message: 'engine died' }, request_id: 'req_test', usage: { input_tokens: 11, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
    });
    expect(out.some((e) => e.event === 'message_stop')).toBe(false);
    expect(out.at(-2)!.event).toBe('content_block_delta');
    expect(state.closed).toBe(true);
  });

  it.each([
    ['engine_unavailable', 'overloaded_error'],
    ['queue_full', 'rate_limit_error'],
    ['model_unavailable', 'api_error'],
    ['device_lost', 'overloaded_error'],
  ] as const)('renders a midway %s as %s', async (code, type) => {
    const out = await collect(toMessageEvents(generationOf([], new GatewayError(code, 'x')).generation, META));
    expect(out.at(-1)!.body).toMatchObject({ type: 'error', error: { type } });
  });
});
