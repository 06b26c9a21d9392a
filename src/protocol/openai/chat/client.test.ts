/**
 * Chat completions' client side, met by an Anthropic caller: a Messages request parsed into the
 * neutral request goes to a server that speaks only chat completions as a chat completion body,
 * and the server's answer, whole or streamed, read as neutral events, is rendered as a Message.
 * (What the wire-to-wire translation of Anthropic over OpenAI did, now through the neutral model.)
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { randomId } from '../../../core/ids.ts';
import { toSSEStream, type SSEEvent, type SSEMessage } from '../../../core/sse.ts';
import { admitFor } from '../../../core/admit.ts';
import { parseMessages } from '../../anthropic/parse.ts';
import { toMessage, toMessageEvents } from '../../anthropic/render.ts';
import { generationFrom } from '../../../../test/support/generations.ts';
import { fromChatCompletion, fromChatCompletionChunks, toChatCompletionBody } from './client.ts';

const USER = [{ role: 'user', content: 'hi' }];
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER = { name: 'get_weather', description: 'Weather by city', input_schema: WEATHER_SCHEMA };

/** A remote model whose server speaks only chat completions. */
const REMOTE: ModelInfo = { id: 'claude-x', kind: 'chat', engine: 'remote', contextWindow: 32_768, maxOutputTokens: 4096, structuredOutput: true, toolCalling: true, upstream: { baseURL: 'http://up.test/v1' } };
const META = { id: 'msg_test', model: 'claude-x', requestId: 'req_test' };

/** An Anthropic caller's body (with sampling, as 2023-06-01 allows) as the chat completion body the server is sent. */
function toOpenAIChatRequest(body: Record<string, unknown>, upstreamModel: string) {
  const { parsed, chat } = admitFor(parseMessages(body, '2023-06-01'), REMOTE);
  return toChatCompletionBody(chat, { model: upstreamModel, stream: parsed.stream, defaultMaxTokens: 4096 });
}
const translate = (body: Record<string, unknown>) => toOpenAIChatRequest({ model: 'claude-x', max_tokens: 100, messages: USER, ...body }, 'up-model');

/** A whole chat completion as the Message the caller gets. */
const fromOpenAIChatCompletion = async (completion: unknown, model: string) => toMessage(generationFrom(fromChatCompletion(completion)), { ...META, id: randomId('msg_'), model });

/** A chunk stream as the caller's events. */
const fromOpenAIStream = (events: AsyncIterable<SSEEvent>, model: string, requestId = META.requestId) => toMessageEvents(generationFrom(fromChatCompletionChunks(events)), { ...META, model, requestId });

function refusalOf(body: Record<string, unknown>): GatewayError {
  try {
    translate(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    return error as GatewayError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be refused`);
}

describe('toOpenAIChatRequest', () => {
  it('carries the sampling fields, stop sequences, user and stream options, and drops unknown fields', () => {
    expect(
      translate({
        system: 'be brief',
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['END', ''],
        metadata: { user_id: 'u-1' },
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1000 },
        service_tier: 'auto',
        whatever: 1,
      }),
    ).toEqual({
      model: 'up-model',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop: ['END'],
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends a reasoning effort as it came, and no form of a budget in tokens', () => {
    const neutral = { model: 'claude-x', messages: [{ role: 'user' as const, content: 'hi' }], maxTokens: 100, stop: [] };
    const options = { model: 'up-model', stream: false, defaultMaxTokens: 4096 };
    expect(toChatCompletionBody({ ...neutral, reasoningEffort: 'low', thinkingBudget: 1024 }, options)).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' });
    expect(toChatCompletionBody({ ...neutral, thinkingBudget: 1024 }, options)).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('sends a non-streamed request with no stream fields and no stop when none is given', () => {
    expect(translate({ stream: false, stop_sequences: [] })).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
  });

  it('joins a system prompt of text blocks, and keeps a system turn among the messages', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] },
      { role: 'system', content: [{ type: 'text', text: 'later rule' }] },
      { role: 'assistant', content: 'ok' },
    ];
    expect(translate({ system: [{ type: 'text', text: 'one', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'two' }], messages }).messages).toEqual([
      { role: 'system', content: 'one\ntwo' },
      { role: 'user', content: 'a\nb' },
      { role: 'system', content: 'later rule' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it('sends images as image_url parts: base64 as a data URL, a URL as itself', () => {
    const content = [
      { type: 'text', text: 'what is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ];
    expect(translate({ messages: [{ role: 'user', content }] }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('carries a tool round: calls on the assistant message, results as tool messages before the user text', () => {
    const messages = [
      { role: 'user', content: 'weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'two calls', signature: 'sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Bergen' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and be quick' },
          { type: 'tool_result', tool_use_id: 'call_1', content: '12°C' },
          { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'no' }, { type: 'text', text: 'station' }], is_error: true },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'x' },
          { type: 'tool_use', id: 'call_3', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'call_4', name: 'now', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_3' }, { type: 'tool_result', tool_use_id: 'call_4', content: [] }] },
    ];
    expect(translate({ messages, tools: [WEATHER] }).messages).toEqual([
      { role: 'user', content: 'weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Bergen"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '12°C' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: no\nstation' },
      { role: 'user', content: 'and be quick' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_3', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: 'call_4', type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_3', content: '' },
      { role: 'tool', tool_call_id: 'call_4', content: '' },
    ]);
  });

  it('turns tools into functions and maps every tool_choice', () => {
    const fn = { type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: WEATHER_SCHEMA } };
    const bare = { type: 'function', function: { name: 'now', parameters: { type: 'object' } } };
    const tools = [WEATHER, { name: 'now', type: 'custom', input_schema: { type: 'object' } }];
    expect(translate({ tools })).toMatchObject({ tools: [fn, bare] });
    expect(translate({ tools })).not.toHaveProperty('tool_choice');
    const choice = (tool_choice: unknown) => {
      const { tool_choice: out, parallel_tool_calls } = translate({ tools, tool_choice });
      return { out, parallel_tool_calls };
    };
    // `auto` is the server's own default with tools: it goes without a choice.
    expect(choice({ type: 'auto' })).toEqual({ out: undefined, parallel_tool_calls: undefined });
    expect(choice({ type: 'any' })).toEqual({ out: 'required', parallel_tool_calls: undefined });
    expect(choice({ type: 'none' })).toEqual({ out: 'none', parallel_tool_calls: undefined });
    expect(choice({ type: 'tool', name: 'now' })).toEqual({ out: { type: 'function', function: { name: 'now' } }, parallel_tool_calls: undefined });
    expect(choice({ type: 'auto', disable_parallel_tool_use: true })).toEqual({ out: undefined, parallel_tool_calls: false });
    expect(choice({ type: 'any', disable_parallel_tool_use: false })).toEqual({ out: 'required', parallel_tool_calls: undefined });
  });

  it('drops an empty tool list with a harmless tool_choice, and refuses one that demands a call', () => {
    expect(translate({ tools: [], tool_choice: { type: 'auto' } })).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 });
    expect(refusalOf({ tool_choice: { type: 'any' } }).param).toBe('tool_choice');
  });

  it('maps a JSON output format to response_format', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    expect(translate({ output_config: { effort: 'low', format: { type: 'json_schema', schema } } }).response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
  });

  it.each([
    ['a missing max_tokens', { max_tokens: undefined }, 'max_tokens'],
    ['no messages', { messages: [] }, 'messages'],
    ['an unknown role', { messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role'],
    ['a document block', { messages: [USER[0], { role: 'assistant', content: 'a' }, { role: 'user', content: [{ type: 'document', source: {} }] }] }, 'messages.2.content.0.type'],
    ['a tool_use block in a user turn', { messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'c', name: 'n', input: {} }] }] }, 'messages.0.content.0.type'],
    ['an image in an assistant turn', { messages: [{ role: 'assistant', content: [{ type: 'image', source: { type: 'url', url: 'u' } }] }] }, 'messages.0.content.0.type'],
    ['an image given by file id', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] }, 'messages.0.content.0.source.type'],
    ['an image in a tool result', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: [{ type: 'image', source: {} }] }] }] }, 'messages.0.content.0.content.0.type'],
    ['a tool_result without its id', { messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }, 'messages.0.content.0.tool_use_id'],
    ['a non-text system block', { system: [{ type: 'image', source: {} }] }, 'system.0.type'],
    ['a server tool', { tools: [WEATHER, { type: 'web_search_20250305', name: 'web_search' }] }, 'tools.1.type'],
    ['a tool without input_schema', { tools: [{ name: 'x' }] }, 'tools.0.input_schema'],
    ['an unknown tool_choice', { tools: [WEATHER], tool_choice: { type: 'some' } }, 'tool_choice.type'],
    ['a named tool_choice without its name', { tools: [WEATHER], tool_choice: { type: 'tool' } }, 'tool_choice.name'],
    ['a text output format', { output_config: { format: { type: 'text' } } }, 'output_config.format.type'],
  ])('refuses %s, naming its path', (_, body, param) => {
    const error = refusalOf(body);
    expect(error.param).toBe(param);
    expect(error.message.startsWith(`${param}:`)).toBe(true);
  });
});

const completion = (message: Record<string, unknown>, finish: string | null = 'stop', extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'up-model',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish, ...extra }],
  usage: { prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 },
});

describe('fromOpenAIChatCompletion', () => {
  it('turns a text answer into a Message', async () => {
    const message = await fromOpenAIChatCompletion(completion({ content: 'Hello!' }), 'claude-x');
    expect(message.id).toMatch(/^msg_[0-9A-Za-z]{24}$/);
    expect({ ...message, id: 'msg_' }).toEqual({
      id: 'msg_',
      type: 'message',
      role: 'assistant',
      model: 'claude-x',
      content: [{ type: 'text', text: 'Hello!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  it('turns tool calls into tool_use blocks with the upstream ids and parsed input', async () => {
    const calls = [
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { id: 'call_b', type: 'function', function: { name: 'now', arguments: '' } },
      { id: 'call_c', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Os' } },
      { id: 'call_d', type: 'function', function: { name: 'get_weather', arguments: '["Oslo"]' } },
    ];
    const message = await fromOpenAIChatCompletion(completion({ content: null, tool_calls: calls }, 'tool_calls'), 'claude-x');
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool_use', id: 'call_b', name: 'now', input: {} },
      // Not a JSON object: kept as the model wrote it, never faked as {}.
      { type: 'tool_use', id: 'call_c', name: 'get_weather', input: { _raw: '{"city": "Os' } },
      { type: 'tool_use', id: 'call_d', name: 'get_weather', input: { _raw: '["Oslo"]' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
  });

  it('keeps text before the tool calls, and gives an empty answer its empty text block', async () => {
    const call = { id: 'call_a', type: 'function', function: { name: 'now', arguments: '{}' } };
    expect((await fromOpenAIChatCompletion(completion({ content: 'Let me see.', tool_calls: [call] }, 'tool_calls'), 'm')).content).toEqual([
      { type: 'text', text: 'Let me see.' },
      { type: 'tool_use', id: 'call_a', name: 'now', input: {} },
    ]);
    expect((await fromOpenAIChatCompletion(completion({ content: '' }, 'length'), 'm')).content).toEqual([{ type: 'text', text: '' }]);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
    [null, 'end_turn'],
    ['eos', 'end_turn'],
  ])('maps finish_reason %s to stop_reason %s', async (finish, reason) => {
    expect(await fromOpenAIChatCompletion(completion({ content: 'x' }, finish), 'm')).toMatchObject({ stop_reason: reason, stop_sequence: null });
  });

  it("reports the stop string vLLM names in the choice's stop_reason", async () => {
    expect(await fromOpenAIChatCompletion(completion({ content: 'x' }, 'stop', { stop_reason: 'END' }), 'm')).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('counts cached prompt tokens apart, as Anthropic does', async () => {
    const body = { ...completion({ content: 'x' }), usage: { prompt_tokens: 20, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 16 } } };
    expect((await fromOpenAIChatCompletion(body, 'm')).usage).toEqual({ input_tokens: 4, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 16 });
  });

  it.each([
    ['a string', 'oops', "The upstream's reply is not a chat completion."],
    ['no choices', { object: 'chat.completion', choices: [] }, "The upstream's reply is not a chat completion."],
    ['an error body', { error: { message: 'model not loaded', type: 'server_error' } }, "The upstream's reply is not a chat completion: model not loaded"],
    ["Ollama's error body", { error: 'out of memory' }, "The upstream's reply is not a chat completion: out of memory"],
  ])('refuses %s as an internal error', async (_, body, message) => {
    let error: unknown;
    try {
      await fromOpenAIChatCompletion(body, 'm');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'internal', message });
  });
});

// ---- Streams

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up-model',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  usage,
});
const usageChunk = (prompt: number, completion: number) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'up-model', choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });
const ROLE = chunk({ role: 'assistant', content: '' });

/** Upstream events as createSSEParser gives them: objects become `data:` JSON, strings go as they are. */
async function* upstream(...items: (object | string | SSEEvent)[]): AsyncGenerator<SSEEvent> {
  for (const item of items) yield typeof item === 'string' ? { data: item } : 'data' in item && typeof item.data === 'string' ? (item as SSEEvent) : { data: JSON.stringify(item) };
}

type Out = { event: string | undefined; body: Record<string, unknown> };
async function collect(source: AsyncIterable<SSEMessage>): Promise<Out[]> {
  const out: Out[] = [];
  for await (const message of source) out.push({ event: message.event, body: JSON.parse(message.data) });
  return out;
}

/**
 * The events after message_start, each as `type` (and its data but for the type), for exact
 * comparison; the one `ping`, which follows the first block's start as the API sends it, left out.
 */
async function eventsOf(source: AsyncIterable<SSEEvent>): Promise<unknown[]> {
  const out = await collect(fromOpenAIStream(source, 'claude-x'));
  for (const { event, body } of out) expect(event).toBe(body.type);
  expect(out[0]!.body).toMatchObject({ type: 'message_start', message: { type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } });
  const pings = out.flatMap(({ body }, i) => (body.type === 'ping' ? [i] : []));
  expect(pings.length).toBeLessThanOrEqual(1);
  if (pings.length === 1) expect(out[pings[0]! - 1]!.body.type).toBe('content_block_start');
  return out.slice(1).flatMap(({ body }) => (body.type === 'ping' ? [] : [body]));
}

const start = (index: number, content_block: unknown) => ({ type: 'content_block_start', index, content_block });
const text = (index: number, t: string) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: t } });
const json = (index: number, partial_json: string) => ({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
const stop = (index: number) => ({ type: 'content_block_stop', index });
const end = (stop_reason: string, input_tokens: number, output_tokens: number) => [
  { type: 'message_delta', delta: { stop_reason, stop_sequence: null, stop_details: null, container: null }, usage: { input_tokens, output_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
  { type: 'message_stop' },
];
/** The error event that ends a stream: the request's id, and what was used till then (nothing known of a remote answer before its finish). */
const apiError = (message: string, input = 0, output = 0) => [{ type: 'error', error: { type: 'api_error', message }, request_id: META.requestId, usage: { input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } }];

describe('fromOpenAIStream', () => {
  it('streams text, and waits for the usage chunk that follows the finish', async () => {
    const events = await eventsOf(upstream(ROLE, chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk(12, 2), '[DONE]'));
    expect(events).toEqual([start(0, { type: 'text', text: '' }), text(0, 'Hel'), text(0, 'lo'), stop(0), ...end('end_turn', 12, 2)]);
  });

  it('streams tool calls split across many chunks, one block per call index', async () => {
    const events = await eventsOf(
      upstream(
        ROLE,
        chunk({ content: 'Checking.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty": "Os' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'lo"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'now', arguments: '{' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '}' } }] }, 'tool_calls'),
        usageChunk(30, 25),
        '[DONE]',
      ),
    );
    expect(events).toEqual([
      start(0, { type: 'text', text: '' }),
      text(0, 'Checking.'),
      stop(0),
      start(1, { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} }),
      json(1, '{"ci'),
      json(1, 'ty": "Os'),
      json(1, 'lo"}'),
      stop(1),
      start(2, { type: 'tool_use', id: 'call_b', name: 'now', input: {} }),
      json(2, '{'),
      json(2, '}'),
      stop(2),
      ...end('tool_use', 30, 25),
    ]);
  });

  it('takes whole calls without an index (a new id is a new call), and gives a call without an id one', async () => {
    const events = await eventsOf(
      upstream(
        chunk({ tool_calls: [{ id: 'call_a', function: { name: 'now', arguments: '{}' } }] }),
        chunk({ tool_calls: [{ id: 'call_b', function: { name: 'now', arguments: { tz: 'UTC' } } }] }),
        chunk({}, 'tool_calls', { prompt_tokens: 5, completion_tokens: 9 }),
      ),
    );
    expect(events).toEqual([
      start(0, { type: 'tool_use', id: 'call_a', name: 'now', input: {} }),
      json(0, '{}'),
      stop(0),
      start(1, { type: 'tool_use', id: 'call_b', name: 'now', input: {} }),
      json(1, '{"tz":"UTC"}'),
      stop(1),
      ...end('tool_use', 5, 9),
    ]);
    const [, opened] = await collect(fromOpenAIStream(upstream(chunk({ tool_calls: [{ index: 0, function: { name: 'now', arguments: '{}' } }] }), chunk({}, 'tool_calls'), '[DONE]'), 'm'));
    expect((opened!.body.content_block as { id: string }).id).toMatch(/^toolu_[0-9A-Za-z]{24}$/);
  });

  it('ends at a usage chunk that carries the finish itself, without waiting for more', async () => {
    async function* hangs(): AsyncGenerator<SSEEvent> {
      yield* upstream(chunk({ content: 'ok' }, 'length', { prompt_tokens: 3, completion_tokens: 1 }));
      await new Promise(() => {});
    }
    expect(await eventsOf(hangs())).toEqual([start(0, { type: 'text', text: '' }), text(0, 'ok'), stop(0), ...end('max_tokens', 3, 1)]);
  });

  it('finishes with zero usage when the upstream sends none, and gives an empty answer its text block', async () => {
    expect(await eventsOf(upstream(ROLE, chunk({}, 'stop'), '[DONE]'))).toEqual([start(0, { type: 'text', text: '' }), stop(0), ...end('end_turn', 0, 0)]);
  });

  it('yields each piece as it comes, before the upstream goes on', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<SSEEvent> {
      yield { data: JSON.stringify(chunk({ content: 'first' })) };
      await gate;
      yield* upstream(chunk({}, 'stop'), usageChunk(1, 1));
    }
    const stream = fromOpenAIStream(slow(), 'm');
    const types: unknown[] = [];
    for (let i = 0; i < 4; i++) types.push(JSON.parse((await stream.next()).value!.data).type);
    expect(types).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta']);
    release();
    expect((await collect(stream)).map(({ body }) => body.type)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
  });

  it('turns an in-stream error chunk into one error event and ends there', async () => {
    const events = await eventsOf(upstream(chunk({ content: 'Hi' }), { error: { message: 'CUDA out of memory', type: 'server_error', code: 500 } }, chunk({}, 'stop')));
    expect(events).toEqual([start(0, { type: 'text', text: '' }), text(0, 'Hi'), ...apiError('The upstream failed: CUDA out of memory')]);
  });

  it('gives the error event the gateway’s request id when it has one, as its own streams do', async () => {
    const out = await collect(fromOpenAIStream(upstream({ event: 'error', data: '{"message":"overloaded"}' }), 'm', 'req_abc'));
    expect(out.at(-1)).toEqual({ event: 'error', body: { ...apiError('The upstream failed: overloaded')[0], request_id: 'req_abc' } });
  });

  it('turns an `event: error` into one error event', async () => {
    expect(await eventsOf(upstream({ event: 'error', data: '{"message":"overloaded"}' }))).toEqual(apiError('The upstream failed: overloaded'));
    expect(await eventsOf(upstream({ event: 'error', data: 'plain words' }))).toEqual(apiError('The upstream failed: plain words'));
  });

  it('reports a stream that ends before its finish', async () => {
    const events = await eventsOf(upstream(ROLE, chunk({ content: 'Hal' })));
    expect(events).toEqual([start(0, { type: 'text', text: '' }), text(0, 'Hal'), ...apiError('The upstream stream ended early, before its finish_reason.')]);
    expect(await eventsOf(upstream(chunk({ content: 'Hal' }), '[DONE]'))).toEqual([start(0, { type: 'text', text: '' }), text(0, 'Hal'), ...apiError('The upstream stream ended early, before its finish_reason.')]);
  });

  it('reports malformed data and a failed read', async () => {
    expect(await eventsOf(upstream('{"choices": ['))).toEqual(apiError('The upstream sent a stream event that is not a JSON object: {"choices": ['));
    async function* breaks(): AsyncGenerator<SSEEvent> {
      yield* upstream(chunk({ content: 'a' }));
      throw new TypeError('terminated');
    }
    expect(await eventsOf(breaks())).toEqual([start(0, { type: 'text', text: '' }), text(0, 'a'), ...apiError('terminated')]);
  });

  it('refuses arguments that are not a JSON object, but leaves ones cut off by max_tokens to the client', async () => {
    const call = (args: string) => chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'now', arguments: args } }] });
    expect(await eventsOf(upstream(call('city=Oslo'), chunk({}, 'tool_calls'), usageChunk(1, 1)))).toEqual([
      start(0, { type: 'tool_use', id: 'call_a', name: 'now', input: {} }),
      json(0, 'city=Oslo'),
      // Found at the finish, whose counts came with it.
      ...apiError("The arguments of tool call 'now' are not a JSON object: city=Oslo", 1, 1),
    ]);
    expect(await eventsOf(upstream(call('{"city": "Os'), chunk({}, 'length'), usageChunk(1, 1)))).toEqual([
      start(0, { type: 'tool_use', id: 'call_a', name: 'now', input: {} }),
      json(0, '{"city": "Os'),
      stop(0),
      ...end('max_tokens', 1, 1),
    ]);
  });

  it('refuses a stream that goes back to a call after starting another', async () => {
    const call = (index: number, extra: object) => chunk({ tool_calls: [{ index, function: { arguments: '{}' }, ...extra }] });
    const events = await eventsOf(upstream(call(0, { id: 'a' }), call(1, { id: 'b' }), call(0, {})));
    expect(events.at(-1)).toEqual(apiError('The upstream went back to tool call 0 after starting another; its calls cannot be told apart.')[0]);
  });
});

// ---- The real @anthropic-ai/sdk on the translated output

/** A client whose every request is answered by `respond`; the bodies it sent are kept. */
function clientFor(respond: (body: Record<string, unknown>) => Response) {
  const sent: Record<string, unknown>[] = [];
  const client = new Anthropic({
    apiKey: 'x',
    baseURL: 'http://test.invalid',
    maxRetries: 0,
    fetch: async (_input: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      sent.push(body);
      return respond(body);
    },
  });
  return { client, sent };
}

const sseResponse = (events: AsyncIterable<SSEEvent>) =>
  new Response(
    toSSEStream(fromOpenAIStream(events, 'claude-x')[Symbol.asyncIterator](), () => {}),
    { headers: { 'content-type': 'text/event-stream' } },
  );

const TOOL_ROUND = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Let me ' }),
  chunk({ content: 'check.' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ': "Oslo"}' } }] }),
  chunk({}, 'tool_calls'),
  usageChunk(42, 17),
  '[DONE]',
];

describe('the Anthropic SDK reads the translation', () => {
  it('messages.stream().finalMessage() gets the text, the tool call with parsed input, and the usage', async () => {
    const { client, sent } = clientFor(() => sseResponse(upstream(...TOOL_ROUND)));
    const message = await client.messages
      .stream({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [WEATHER as Anthropic.Tool] })
      .finalMessage();
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(message).toMatchObject({ model: 'claude-x', role: 'assistant', stop_reason: 'tool_use', stop_sequence: null });
    expect(message.usage).toMatchObject({ input_tokens: 42, output_tokens: 17 });

    // What the SDK sent, translated, is what the upstream would get.
    expect(toOpenAIChatRequest(sent[0]!, 'up-model')).toEqual({
      model: 'up-model',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      max_tokens: 64,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: WEATHER_SCHEMA } }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('messages.create() reads the translated JSON', async () => {
    const upstreamBody = completion({ content: 'Let me check.', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls');
    const translated = await fromOpenAIChatCompletion(upstreamBody, 'claude-x');
    const { client } = clientFor(() => Response.json(translated));
    const message = await client.messages.create({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
    expect(message.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'call_9', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(message).toMatchObject({ type: 'message', model: 'claude-x', stop_reason: 'tool_use' });
    expect(message.usage).toEqual({ input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('a streamed upstream failure reaches the SDK as an APIError with its message', async () => {
    const { client } = clientFor(() => sseResponse(upstream(chunk({ content: 'Hi' }), { error: { message: 'CUDA out of memory' } })));
    const failure = client.messages.stream({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    await expect(failure).rejects.toBeInstanceOf(Anthropic.APIError);
    await expect(failure).rejects.toMatchObject({ type: 'api_error', error: { type: 'error', error: { type: 'api_error', message: 'The upstream failed: CUDA out of memory' } } });
  });

  it('a stream that ends early fails in the SDK instead of returning half a message', async () => {
    const { client } = clientFor(() => sseResponse(upstream(chunk({ content: 'Hal' }))));
    const failure = client.messages.stream({ model: 'claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalText();
    await expect(failure).rejects.toThrow(/ended early/);
  });
});
