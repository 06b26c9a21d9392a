import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../core/errors.ts';
import type { GenerationEvent } from '../../../core/generation.ts';
import { generationOf, toolCallEvents } from '../../../../test/support/generations.ts';
import { expectWellFormedEvents, type ResponsesEvent } from '../../../../test/support/responses-events.ts';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { encryptedContentOf, toResponse, toResponseEvents, toResponseUsage, type ResponseMeta } from './render.ts';
import type { ResponseObject } from './store.ts';

const ECHO = { instructions: null, metadata: {}, max_output_tokens: null, tools: [], tool_choice: 'auto', text: { format: { type: 'text' }, verbosity: 'medium' } };
const META: ResponseMeta = { id: 'resp_test', createdAt: 1_763_000_000, model: 'tiny-chat', previousResponseId: null, store: true, echo: ECHO };
const PROMPT_TOKENS = 9;

const text = (...pieces: string[]): GenerationEvent[] => pieces.map((piece) => ({ type: 'text', text: piece }));
const finish = (reason: 'stop' | 'length' | 'tool_calls', completionTokens: number): GenerationEvent => ({ type: 'finish', reason, stopSequence: null, usage: { promptTokens: PROMPT_TOKENS, completionTokens, cachedTokens: 0 } });

/** The whole response for a generation of these events. */
const whole = (events: readonly GenerationEvent[], meta = META) => toResponse(generationOf(events, { promptTokens: PROMPT_TOKENS }).generation, meta);

/**
 * The Responses events for a generation of these events (then `failure`, if given), each checked
 * to carry its own name as `type`, and the whole checked as a client reads it
 * (test/support/responses-events.ts), whatever else a test checks.
 */
async function responsesEvents(events: readonly GenerationEvent[], failure?: unknown) {
  const finals: ResponseObject[] = [];
  const out: ResponsesEvent[] = [];
  for await (const message of toResponseEvents(generationOf(events, { promptTokens: PROMPT_TOKENS, error: failure }).generation, META, async (response) => void finals.push(response))) {
    const data = JSON.parse(message.data) as ResponsesEvent;
    expect(data.type).toBe(message.event);
    out.push(data);
  }
  expectWellFormedEvents(out);
  return { events: out, types: out.map((e) => e.type), finals };
}

/**
 * What a response is apart from what is random or timed: its items' ids, its calls' ids (each
 * rendering draws its own) and when it completed.
 */
function withoutIds(response: ResponseObject) {
  const { completed_at, output, ...rest } = response;
  expect(completed_at === null || Number.isInteger(completed_at)).toBe(true);
  return { ...rest, output: output.map(({ id, ...item }) => (expect(typeof id).toBe('string'), 'call_id' in item ? { ...item, call_id: expect.stringMatching(/^call_/) } : item)) };
}

describe('toResponse', () => {
  it('makes a completed response with one message item of the text, and the usage in Responses terms', async () => {
    const response = await whole([...text('Hello', ' there'), finish('stop', 2)]);
    expect(response).toEqual({
      id: 'resp_test',
      object: 'response',
      created_at: 1_763_000_000,
      status: 'completed',
      background: false,
      completed_at: expect.any(Number),
      error: null,
      incomplete_details: null,
      model: 'tiny-chat',
      output: [{ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello there', annotations: [], logprobs: [] }] }],
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      service_tier: 'default',
      store: true,
      usage: { input_tokens: 9, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 11 },
      ...ECHO,
    });
  });

  it('makes a function_call item per tool call, and no message when there is no text', async () => {
    const response = await whole(toolCallEvents(PROMPT_TOKENS));
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      { id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', arguments: '{"city": "Paris"}', call_id: expect.stringMatching(/^call_/), name: 'get_weather' },
      { id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', arguments: '{}', call_id: expect.stringMatching(/^call_/), name: 'now' },
    ]);
    expect(response.output[0]!.id).not.toBe(response.output[1]!.id);
    expect(response.output[0]!.call_id).not.toBe(response.output[1]!.call_id);
    expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 30, total_tokens: 39 });
  });

  it('keeps the ids a remote model’s server gave its calls', async () => {
    const events: GenerationEvent[] = [{ type: 'tool_call', index: 0, name: 'now', id: 'toolu_A' }, { type: 'tool_arguments', index: 0, text: '{}' }, finish('tool_calls', 3)];
    expect((await whole(events)).output).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'toolu_A' })]);
    const { events: streamed } = await responsesEvents(events);
    expect((streamed.at(-1)!.response as ResponseObject).output[0]).toMatchObject({ call_id: 'toolu_A' });
  });

  it('puts text before the calls that follow it', async () => {
    expect((await whole([...text('Let me look.'), ...toolCallEvents(PROMPT_TOKENS)])).output.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call']);
  });

  it('leaves a response cut by the token cap incomplete, for max_output_tokens', async () => {
    const response = await whole([...text('Once', ' upon'), finish('length', 2)]);
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ type: 'message', status: 'incomplete' }] });
    expect(response.completed_at).toEqual(expect.any(Number));
  });

  it('marks only the item the cap cut incomplete: a call cut after whole text', async () => {
    const response = await whole([...text('Let me look.'), { type: 'tool_call', index: 0, name: 'get_weather' }, { type: 'tool_arguments', index: 0, text: '{"city": ' }, finish('length', 20)]);
    expect(response.status).toBe('incomplete');
    expect(response.output).toMatchObject([
      { type: 'message', status: 'completed' },
      { type: 'function_call', status: 'incomplete', arguments: '{"city": ' },
    ]);
  });

  it('gives an empty answer one empty message', async () => {
    expect((await whole([finish('stop', 0)])).output).toEqual([expect.objectContaining({ type: 'message', content: [{ type: 'output_text', text: '', annotations: [], logprobs: [] }] })]);
  });

  it('repeats the request’s echoed fields and the chain it continues', async () => {
    const echo = { ...ECHO, instructions: 'Be brief.', temperature: 0, metadata: { a: 'b' } };
    expect(await whole([...text('Hi'), finish('stop', 1)], { ...META, previousResponseId: 'resp_0', store: false, echo })).toMatchObject({ ...echo, previous_response_id: 'resp_0', store: false });
  });

  it('is an internal error for a generation that ends without a finish, and a failure as it came', async () => {
    await expect(whole(text('Hi'))).rejects.toMatchObject({ code: 'internal', message: 'The generation ended without a finish.' });
    const failure = new GatewayError('context_length_exceeded', 'Too long.', { param: 'messages' });
    await expect(toResponse(generationOf([], { promptTokens: 0, error: failure }).generation, META)).rejects.toBe(failure);
  });

  it('reports no usage as zeros', () => {
    expect(toResponseUsage({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 })).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
  });
});

describe('toResponseEvents: the event sequence', () => {
  it('writes a text answer as message item, content part, text deltas, then their done events and response.completed', async () => {
    const answer = [...text('Hello', ' there', '!'), finish('stop', 3)];
    const { events, types } = await responsesEvents(answer);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(['Hello', ' there', '!']);
    expect(events[0]!.response).toMatchObject({ id: 'resp_test', status: 'in_progress', output: [], usage: null, completed_at: null });
    expect(events[2]!.item).toEqual({ id: expect.stringMatching(/^msg_/), type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    expect(events[3]!.part).toEqual({ type: 'output_text', text: '', annotations: [], logprobs: [] });
    expect(events[8]!.part).toEqual({ type: 'output_text', text: 'Hello there!', annotations: [], logprobs: [] });
    expect(events.at(-1)!.response).toMatchObject({ status: 'completed', usage: { input_tokens: 9, output_tokens: 3, total_tokens: 12 } });
  });

  it('writes two tool calls as two function_call items, each added, its argument deltas, then done', async () => {
    const answer = toolCallEvents(PROMPT_TOKENS);
    const { events, types } = await responsesEvents(answer);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]!.item).toMatchObject({ type: 'function_call', status: 'in_progress', name: 'get_weather', arguments: '' });
    expect(events[7]).toMatchObject({ output_index: 0, arguments: '{"city": "Paris"}', name: 'get_weather' });
    expect(events[9]).toMatchObject({ output_index: 1, arguments: '{}', name: 'now' });
    const callIds = (events.at(-1)!.response as ResponseObject).output.map((item) => item.call_id);
    expect(callIds).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
    expect(new Set(callIds).size).toBe(2);
  });

  it('closes the message before the calls that follow its text', async () => {
    const answer = [...text('Let me look.'), ...toolCallEvents(PROMPT_TOKENS)];
    const { events, types } = await responsesEvents(answer);
    expect(types.slice(2, 9)).toEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
    ]);
  });

  it('gives an empty answer an empty message item, with no deltas', async () => {
    const answer = [finish('stop', 0)];
    const { events, types } = await responsesEvents(answer);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[4]!.text).toBe('');
  });

  it('ends a response cut by the token cap with response.incomplete', async () => {
    const answer = [...text('Once', ' upon'), finish('length', 2)];
    const { events, types } = await responsesEvents(answer);
    expect(types.at(-1)).toBe('response.incomplete');
    expect(types).not.toContain('response.completed');
    expect(events.at(-1)!.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] });
  });

  it('hands the final response to onFinal once, before the event that carries it', async () => {
    const answer = [...text('Hi'), finish('stop', 1)];
    const finals: ResponseObject[] = [];
    const seen: string[] = [];
    for await (const message of toResponseEvents(generationOf(answer, { promptTokens: PROMPT_TOKENS }).generation, META, async (response) => void finals.push(response))) {
      seen.push(`${message.event}:${finals.length}`);
    }
    expect(seen.at(-2)).toBe('response.output_item.done:0');
    expect(seen.at(-1)).toBe('response.completed:1');
    expect(finals).toHaveLength(1);
  });
});

describe('toResponseEvents: the final response equals toResponse’s for the same answer', () => {
  it.each<[string, GenerationEvent[]]>([
    ['text', [...text('Hello', ' there'), finish('stop', 2)]],
    ['an empty answer', [finish('stop', 0)]],
    ['text cut by the cap', [...text('Once', ' upon'), finish('length', 2)]],
    ['two tool calls', toolCallEvents(PROMPT_TOKENS)],
    ['text, then tool calls', [...text('Let me look.'), ...toolCallEvents(PROMPT_TOKENS)]],
    ['text, then a call cut by the cap', [...text('Let me look.'), { type: 'tool_call', index: 0, name: 'get_weather' }, { type: 'tool_arguments', index: 0, text: '{"city": ' }, finish('length', 20)]],
  ])('%s', async (_, generation) => {
    const { events, finals } = await responsesEvents(generation);
    const streamed = events.at(-1)!.response as ResponseObject;
    expect(finals).toEqual([streamed]);
    expect(withoutIds(streamed)).toEqual(withoutIds(await whole(generation)));
  });
});

describe('toResponseEvents: failures end the stream with one error event', () => {
  it('turns a failure after the first events into an error event, and stores nothing', async () => {
    const { events, types, finals } = await responsesEvents(text('Hello'), new GatewayError('internal', 'The engine failed mid-generation.'));
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'error']);
    expect(events.at(-1)).toEqual({ type: 'error', sequence_number: 5, code: 'server_error', message: 'The engine failed mid-generation.', param: null });
    expect(finals).toEqual([]);
  });

  it('keeps a failure’s own code and param, as OpenAI names them', async () => {
    const { events } = await responsesEvents([], new GatewayError('context_length_exceeded', 'Too long.', { param: 'messages' }));
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(events.at(-1)).toMatchObject({ code: 'context_length_exceeded', message: 'Too long.', param: 'messages' });
  });

  it('turns a stream cut before its finish into an error event', async () => {
    const { events, types, finals } = await responsesEvents(text('Hello'));
    expect(types.at(-1)).toBe('error');
    expect(types.filter((t) => t === 'error')).toHaveLength(1);
    expect(types).not.toContain('response.completed');
    expect(events.at(-1)).toMatchObject({ code: 'server_error', message: 'The generation ended without a finish.', param: null });
    expect(finals).toEqual([]);
  });

  it('turns a stream that breaks (the connection, a reader) into an error event with the failure’s code', async () => {
    const broken = new GatewayError('upstream_unreachable', 'The upstream broke off the stream.');
    const { events, types } = await responsesEvents(text('Hello'), broken);
    expect(types.at(-1)).toBe('error');
    expect(events.at(-1)).toMatchObject({ code: 'upstream_unreachable', message: 'The upstream broke off the stream.', param: null });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  });

  it('turns a failure that is not the gateway’s own into a server_error event, not a thrown stream', async () => {
    const { events, types } = await responsesEvents([], new TypeError('terminated'));
    expect(types).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(events.at(-1)).toMatchObject({ code: 'server_error', message: 'terminated' });
  });
});

describe('toResponseEvents: a thinking model’s reasoning item', () => {
  const thinking = (...pieces: string[]): GenerationEvent[] => pieces.map((piece) => ({ type: 'reasoning', text: piece }));
  const thoughtThenAnswer = [...thinking('Say ', 'hi', ' back.'), ...text('Hi', '!'), finish('stop', 6)];

  /**
   * The events as `openai` 7 reads them: its own accumulator (what `responses.stream()` builds a
   * snapshot with) over every event before the last, and its `ResponseStream`, which checks the
   * order and identity of items and parts; the snapshot's output is what the final response says.
   */
  async function asTheSdkReadsThem(meta: ResponseMeta) {
    const events: ResponsesEvent[] = [];
    for await (const message of toResponseEvents(generationOf(thoughtThenAnswer, { promptTokens: PROMPT_TOKENS }).generation, meta, async () => {})) events.push(JSON.parse(message.data) as ResponsesEvent);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    let snapshot: unknown;
    for (const event of events.slice(0, -1)) snapshot = accumulateResponse(event as never, snapshot as never);
    const final = events.at(-1)!.response as ResponseObject;
    expect(events.at(-1)!.type).toBe('response.completed');
    expect((snapshot as ResponseObject).output).toEqual(final.output);
    const lines = new TextEncoder().encode(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
    const stream = ResponseStream.fromReadableStream(new ReadableStream({ start: (c) => (c.enqueue(lines), c.close()) }));
    const seen: string[] = [];
    stream.on('event', (event) => void seen.push(event.type));
    expect(await stream.finalResponse()).toMatchObject({ id: final.id, output: final.output });
    expect(seen).toEqual(events.map((e) => e.type));
    return { events, types: events.map((e) => e.type), final };
  }

  it('streams the summary as the thinking streams: one summary delta beside each thinking delta, the part open from the start', async () => {
    const { events, types, final } = await asTheSdkReadsThem({ ...META, summary: true });
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_summary_part.added',
      ...['Say ', 'hi', ' back.'].flatMap(() => ['response.reasoning_text.delta', 'response.reasoning_summary_text.delta']),
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.filter((e) => e.type === 'response.reasoning_summary_text.delta').map((e) => e.delta)).toEqual(['Say ', 'hi', ' back.']);
    expect(events.find((e) => e.type === 'response.reasoning_summary_part.added')).toMatchObject({ summary_index: 0, part: { type: 'summary_text', text: '' } });
    expect(events.find((e) => e.type === 'response.reasoning_summary_text.done')).toMatchObject({ summary_index: 0, text: 'Say hi back.' });
    expect(final.output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Say hi back.' }], content: [{ type: 'reasoning_text', text: 'Say hi back.' }] });
    // The whole response is the same.
    expect(withoutIds(await whole(thoughtThenAnswer, { ...META, summary: true }))).toEqual(withoutIds(final));
  });

  it('writes no summary events where no summary was asked for', async () => {
    const { types, final } = await asTheSdkReadsThem(META);
    expect(types.filter((t) => t.startsWith('response.reasoning_summary'))).toEqual([]);
    expect(types.filter((t) => t === 'response.reasoning_text.delta')).toHaveLength(3);
    expect(final.output[0]).toMatchObject({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Say hi back.' }] });
    expect(final.output[0]).not.toHaveProperty('encrypted_content');
  });

  it('gives each reasoning item its encrypted_content where it is included: when it opens, when it closes and in the response', async () => {
    const { events, final } = await asTheSdkReadsThem({ ...META, summary: true, encryptedContent: true });
    const item = final.output[0]!;
    expect(item.encrypted_content).toBe(encryptedContentOf(item.id));
    expect(item.encrypted_content).toMatch(/^inpage-llm\.rs\.v1\.[A-Za-z0-9_-]+$/);
    const ofItem = events.filter((e) => (e.type === 'response.output_item.added' || e.type === 'response.output_item.done') && (e.item as { type: string }).type === 'reasoning');
    expect(ofItem.map((e) => (e.item as { encrypted_content?: string }).encrypted_content)).toEqual([item.encrypted_content, item.encrypted_content]);
    // The message carries none; the whole response agrees.
    expect(final.output[1]).not.toHaveProperty('encrypted_content');
    const again = (await whole(thoughtThenAnswer, { ...META, summary: true, encryptedContent: true })).output;
    expect(again.map((entry) => 'encrypted_content' in entry)).toEqual([true, false]);
    expect(again[0]!.encrypted_content).toBe(encryptedContentOf(again[0]!.id));
  });

  it('closes a summary cut by the token cap with the thinking, the item incomplete', async () => {
    const events: ResponsesEvent[] = [];
    for await (const message of toResponseEvents(generationOf([...thinking('Long ', 'thought'), finish('length', 2)], { promptTokens: PROMPT_TOKENS }).generation, { ...META, summary: true }, async () => {})) events.push(JSON.parse(message.data) as ResponsesEvent);
    const final = events.at(-1)!.response as ResponseObject;
    expect(events.at(-1)!.type).toBe('response.incomplete');
    expect(final.output[0]).toMatchObject({ type: 'reasoning', status: 'incomplete', summary: [{ type: 'summary_text', text: 'Long thought' }] });
    expect(events.filter((e) => e.type === 'response.reasoning_summary_text.delta')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'response.reasoning_summary_part.done')).toHaveLength(1);
  });
});

describe('encryptedContentOf', () => {
  it('is an opaque token of the item, the same each time, holding no thinking', () => {
    expect(encryptedContentOf('rs_1')).toBe('inpage-llm.rs.v1.cnNfMQ');
    expect(encryptedContentOf('rs_1')).toBe(encryptedContentOf('rs_1'));
    expect(encryptedContentOf('rs_2')).not.toBe(encryptedContentOf('rs_1'));
    expect(encryptedContentOf('rs_ü/?')).toMatch(/^inpage-llm\.rs\.v1\.[A-Za-z0-9_-]+$/);
  });
});
