/**
 * The Messages API's client side, met by an OpenAI caller: a chat completion parsed into the
 * neutral request goes to a server that speaks only Anthropic's Messages API as a Messages body,
 * and the server's answer, whole or streamed, read as neutral events, is rendered as a chat
 * completion. (What the wire-to-wire translation of OpenAI over Anthropic did, now through the
 * neutral model.)
 */
import OpenAI, { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { randomId } from '../../core/ids.ts';
import { createSSEParser, toSSEStream, type SSEEvent, type SSEMessage } from '../../core/sse.ts';
import { admitFor } from '../../core/admit.ts';
import { parseChatCompletion } from '../openai/chat/parse.ts';
import { toChatCompletion, toChatCompletionChunks } from '../openai/chat/render.ts';
import { generationFrom } from '../../../test/support/generations.ts';
import { fromMessage, fromMessageEvents, toMessagesBody } from './client.ts';

/** A remote model whose server speaks only Anthropic's Messages API. */
const REMOTE: ModelInfo = { id: 'my-model', kind: 'chat', engine: 'remote', contextWindow: 32_768, maxOutputTokens: 4096, structuredOutput: true, toolCalling: true, upstream: { baseURL: 'http://up.test/v1', speaks: ['anthropic'] } };

/** An OpenAI caller's body as the Messages body the server is sent; `defaultMaxTokens` where the caller set no cap. */
function toAnthropicMessagesRequest(body: Record<string, unknown>, upstreamModel: string, defaultMaxTokens: number) {
  const { parsed, chat } = admitFor(parseChatCompletion(body), REMOTE);
  return toMessagesBody(chat, { model: upstreamModel, stream: parsed.stream, defaultMaxTokens });
}
const translate = (body: Record<string, unknown>) => toAnthropicMessagesRequest(body, 'claude-up', 1024);

/** A whole message as the chat completion the caller gets. */
const fromAnthropicMessage = async (message: unknown, model: string) => toChatCompletion(generationFrom(fromMessage(message)), { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model });

/** The named events as the caller's chunks. */
const fromAnthropicStream = (events: AsyncIterable<SSEEvent>, model: string, { includeUsage }: { includeUsage: boolean }) =>
  toChatCompletionChunks(generationFrom(fromMessageEvents(events)), { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model }, includeUsage);

/** What a stream that failed reports it used: nothing is known of a remote answer before its finish. */
const NO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } };
const user = (content: unknown) => ({ role: 'user', content });

function rejection(body: Record<string, unknown>): GatewayError {
  try {
    translate(body);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a 400');
}

describe('toAnthropicMessagesRequest', () => {
  it('hoists system and developer messages into one system string, in order, and names the upstream model', () => {
    const request = translate({
      model: 'local-alias',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in' }, { type: 'text', text: 'French.' }] },
        user('Hi'),
        { role: 'system', content: 'Late rule.' },
      ],
    });
    expect(request).toEqual({
      model: 'claude-up',
      max_tokens: 1024,
      system: 'Be brief.\n\nAnswer in\nFrench.\n\nLate rule.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('marks the whole prompt for Anthropic\'s cache when the caller gives a prompt_cache_key, and nothing otherwise', () => {
    const messages = [{ role: 'system', content: 'Be brief.' }, user('Hi'), { role: 'assistant', content: 'Hello.' }, user('Again')];
    expect(translate({ model: 'x', messages, prompt_cache_key: 'conversation-7' })).toEqual({
      model: 'claude-up',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Again', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    expect(JSON.stringify(translate({ model: 'x', messages }))).not.toContain('cache_control');
  });

  it('maps the sampling fields, clamps temperature to 0..1 and drops what Anthropic has no use for', () => {
    const request = translate({
      model: 'x',
      messages: [user('Hi')],
      max_tokens: 50,
      max_completion_tokens: 70,
      stop: ['END', ''],
      temperature: 1.7,
      top_p: 0.9,
      user: 'user-42',
      stream: true,
      stream_options: { include_usage: true },
      seed: 7,
      frequency_penalty: 0.5,
      response_format: { type: 'text' },
      n: 1,
      logit_bias: {},
    });
    expect(request).toEqual({
      model: 'claude-up',
      max_tokens: 70,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stop_sequences: ['END'],
      temperature: 1,
      top_p: 0.9,
      metadata: { user_id: 'user-42' },
      stream: true,
    });
    expect(translate({ messages: [user('Hi')], max_tokens: 50, stop: 'STOP', temperature: 0.3 })).toMatchObject({ max_tokens: 50, stop_sequences: ['STOP'], temperature: 0.3 });
    expect(translate({ messages: [user('Hi')], temperature: 0 }).temperature).toBe(0);
  });

  it('sends a thinking budget as enabled thinking where the API takes it (at least 1024, below max_tokens), else none', () => {
    const neutral = { model: 'my-model', messages: [{ role: 'user' as const, content: 'Hi' }], maxTokens: 4000, maxTokensSet: true, stop: [] };
    const body = (thinkingBudget: number) => toMessagesBody({ ...neutral, thinkingBudget }, { model: 'claude-up', stream: false, defaultMaxTokens: 1024 });
    expect(body(2048).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    for (const budget of [512, 4000, 5000]) expect(body(budget)).not.toHaveProperty('thinking');
    expect(toMessagesBody(neutral, { model: 'claude-up', stream: false, defaultMaxTokens: 1024 })).not.toHaveProperty('thinking');
  });

  it('turns image parts into base64 and URL image blocks beside the text', () => {
    const request = translate({
      messages: [
        user([
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
        ]),
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('carries a tool round: calls become tool_use blocks, results and the next user message one user turn', () => {
    const request = translate({
      messages: [
        user('Weather in Oslo and Bergen?'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Bergen"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: '4 °C' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '7 °C' }] },
        user('And tomorrow?'),
        { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'toolu_3', type: 'function', function: { name: 'forecast', arguments: '' } }] },
        { role: 'tool', tool_call_id: 'toolu_3', content: '' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '4 °C' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '7 °C' },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check.' },
          { type: 'tool_use', id: 'toolu_3', name: 'forecast', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3' }] },
    ]);
  });

  it('merges consecutive turns of the same role and leaves out empty ones, so that the roles alternate', () => {
    const request = translate({
      messages: [user('One'), { role: 'system', content: 'S' }, user(''), user([{ type: 'text', text: 'Two' }]), { role: 'assistant', content: 'A' }, { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] }, user('Three')],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'No.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Three' }] },
    ]);
  });

  it('translates tools, with an empty object schema for a function without parameters', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const request = translate({
      messages: [user('Hi')],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: schema, strict: true } },
        { type: 'function', function: { name: 'now' } },
      ],
    });
    expect(request.tools).toEqual([
      { name: 'get_weather', description: 'Current weather', input_schema: schema },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(request).not.toHaveProperty('tool_choice');
  });

  it.each([
    // `auto` with parallel calls is the API's own default: no choice is sent.
    ['auto', undefined, undefined],
    ['none', undefined, { type: 'none' }],
    ['required', undefined, { type: 'any' }],
    [{ type: 'function', function: { name: 'now' } }, undefined, { type: 'tool', name: 'now' }],
    [undefined, false, { type: 'auto', disable_parallel_tool_use: true }],
    ['required', false, { type: 'any', disable_parallel_tool_use: true }],
    [{ type: 'function', function: { name: 'now' } }, false, { type: 'tool', name: 'now', disable_parallel_tool_use: true }],
    ['none', false, { type: 'none' }],
    ['auto', true, undefined],
  ])('tool_choice %j with parallel_tool_calls %j -> %j', (choice, parallel, expected) => {
    const request = translate({ messages: [user('Hi')], tools: [{ type: 'function', function: { name: 'now' } }], tool_choice: choice, parallel_tool_calls: parallel });
    expect(request.tool_choice).toEqual(expected);
  });

  it.each([
    ['input_audio', { messages: [{ role: 'system', content: 'S' }, user([{ type: 'text', text: 'Hi' }, { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } }])] }, 'messages[1].content[1].type'],
    ['file', { messages: [user([{ type: 'file', file: { file_id: 'file-1' } }])] }, 'messages[0].content[0].type'],
    ['an image by another scheme', { messages: [user([{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }])] }, 'messages[0].content[0].image_url.url'],
    ['unparseable arguments', { messages: [user('Hi'), { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }] }, 'messages[1].tool_calls[0].function.arguments'],
    ['arguments that are not an object', { messages: [user('Hi'), { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }] }] }, 'messages[1].tool_calls[0].function.arguments'],
    ['a tool message without its call id', { messages: [user('Hi'), { role: 'tool', content: 'x' }] }, 'messages[1].tool_call_id'],
    ['a legacy function message', { messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role'],
    ['no messages', { messages: [] }, 'messages'],
    ['json_object', { messages: [user('Hi')], response_format: { type: 'json_object' } }, 'response_format'],
    ['json_schema without a schema', { messages: [user('Hi')], response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'response_format.json_schema.schema'],
    ['n > 1', { messages: [user('Hi')], n: 2 }, 'n'],
    ['logprobs', { messages: [user('Hi')], logprobs: true }, 'logprobs'],
    ['a non-empty logit_bias', { messages: [user('Hi')], logit_bias: { '50256': -100 } }, 'logit_bias'],
    ['a logit_bias that is not an object', { messages: [user('Hi')], logit_bias: 'x' }, 'logit_bias'],
    ['a custom tool', { messages: [user('Hi')], tools: [{ type: 'custom', custom: { name: 'c' } }] }, 'tools[0].type'],
    ['tool_choice without tools', { messages: [user('Hi')], tool_choice: 'required' }, 'tool_choice'],
    ['an unknown tool_choice', { messages: [user('Hi')], tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: 'any' }, 'tool_choice'],
    ['a temperature that is not a number', { messages: [user('Hi')], temperature: 'hot' }, 'temperature'],
    ['max_completion_tokens 0', { messages: [user('Hi')], max_completion_tokens: 0 }, 'max_completion_tokens'],
  ])('400s %s, naming %s', (_, body, param) => {
    const error = rejection(body);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe(param);
  });

  it('asks for a json_schema response format as Anthropic structured output, enforced on the upstream', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const request = toAnthropicMessagesRequest({ messages: [user('Where?')], response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } } }, 'claude-x', 64);
    expect(request.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(request).not.toHaveProperty('response_format');
  });

  it('says why JSON output cannot be had', () => {
    expect(rejection({ messages: [user('Hi')], response_format: { type: 'json_object' } }).message).toBe(
      "response_format of type 'json_object' is not supported for this model: the upstream speaks the Anthropic Messages API, whose structured output needs a schema: use 'json_schema'.",
    );
  });
});

const anthropicMessage = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  model: 'claude-up',
  content: [
    { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
    { type: 'text', text: 'Checking ', citations: null },
    { type: 'text', text: 'both.', citations: null },
    { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: { city: 'Oslo' } },
    { type: 'tool_use', id: 'toolu_B', name: 'now', input: {} },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 20, cache_creation_input_tokens: 3, cache_read_input_tokens: 5 },
};

describe('fromAnthropicMessage', () => {
  it('joins the text, carries the calls with their ids and counts cached input as prompt tokens', async () => {
    const completion = await fromAnthropicMessage(anthropicMessage, 'my-model');
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9A-Za-z]{24}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'my-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking both.',
            refusal: null,
            tool_calls: [
              { id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              { id: 'toolu_B', type: 'function', function: { name: 'now', arguments: '{}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 18, completion_tokens: 20, total_tokens: 38, prompt_tokens_details: { cached_tokens: 5 } },
    });
    expect(Math.abs((completion.created as number) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('reports null content for calls alone, and an empty string for an empty reply', async () => {
    const calls = (await fromAnthropicMessage({ ...anthropicMessage, content: [anthropicMessage.content[3]] }, 'm')) as unknown as { choices: [{ message: Record<string, unknown> }] };
    expect(calls.choices[0].message.content).toBeNull();
    const empty = await fromAnthropicMessage({ ...anthropicMessage, content: [], stop_reason: 'max_tokens', usage: { input_tokens: 4, output_tokens: 0 } }, 'm');
    expect(empty).toMatchObject({ choices: [{ message: { role: 'assistant', content: '', refusal: null }, finish_reason: 'length' }], usage: { prompt_tokens: 4, completion_tokens: 0, total_tokens: 4, prompt_tokens_details: { cached_tokens: 0 } } });
    expect((empty as unknown as { choices: [{ message: object }] }).choices[0].message).not.toHaveProperty('tool_calls');
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    // Not a stop reason, only a name Object.prototype has.
    ['constructor', 'stop'],
  ])('maps stop_reason %s to finish_reason %s', async (stopReason, finish) => {
    expect(await fromAnthropicMessage({ ...anthropicMessage, stop_reason: stopReason }, 'm')).toMatchObject({ choices: [{ finish_reason: finish }] });
  });

  it('throws internal for what is not a message', async () => {
    for (const value of [null, 'text', { type: 'error', error: { type: 'api_error', message: 'x' } }, { type: 'message', content: 'x' }]) {
      await expect(fromAnthropicMessage(value, 'm')).rejects.toMatchObject({ code: 'internal' });
    }
  });

  it('is what the real openai client reads from a non-streaming create', async () => {
    const body = JSON.stringify(await fromAnthropicMessage(anthropicMessage, 'my-model'));
    const client = new OpenAI({ apiKey: 'x', baseURL: 'http://test.invalid/v1', maxRetries: 0, fetch: async () => new Response(body, { headers: { 'content-type': 'application/json' } }) });
    const completion = await client.chat.completions.create({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.content).toBe('Checking both.');
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      { id: 'toolu_B', type: 'function', function: { name: 'now', arguments: '{}' } },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 18, completion_tokens: 20, total_tokens: 38, prompt_tokens_details: { cached_tokens: 5 } });
  });
});

/** One upstream event as the SSE parser hands it over: the name on the `event:` line and the JSON. */
const ev = (data: { type: string } & Record<string, unknown>): SSEEvent => ({ event: data.type, data: JSON.stringify(data) });

async function* upstream(events: SSEEvent[]): AsyncGenerator<SSEEvent> {
  yield* events;
}

const start = (usage: Record<string, unknown> = { input_tokens: 25, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 2 }) =>
  ev({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-up', content: [], stop_reason: null, stop_sequence: null, usage } });
const blockStart = (index: number, block: Record<string, unknown>) => ev({ type: 'content_block_start', index, content_block: block });
const delta = (index: number, d: Record<string, unknown>) => ev({ type: 'content_block_delta', index, delta: d });
const blockStop = (index: number) => ev({ type: 'content_block_stop', index });
const end = (stopReason: string, usage: Record<string, unknown> = { output_tokens: 15 }) => [ev({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage }), ev({ type: 'message_stop' })];

/** Thinking, text, then two calls whose arguments come in pieces. */
const toolStream = [
  start(),
  blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
  delta(0, { type: 'thinking_delta', thinking: 'Two cities.' }),
  delta(0, { type: 'signature_delta', signature: 'sig' }),
  blockStop(0),
  blockStart(1, { type: 'text', text: '', citations: null }),
  ev({ type: 'ping' }),
  delta(1, { type: 'text_delta', text: 'Checking ' }),
  delta(1, { type: 'text_delta', text: 'both.' }),
  blockStop(1),
  blockStart(2, { type: 'tool_use', id: 'toolu_A', name: 'get_weather', input: {} }),
  delta(2, { type: 'input_json_delta', partial_json: '' }),
  delta(2, { type: 'input_json_delta', partial_json: '{"city": ' }),
  delta(2, { type: 'input_json_delta', partial_json: '"Oslo"}' }),
  blockStop(2),
  blockStart(3, { type: 'tool_use', id: 'toolu_B', name: 'get_weather', input: {} }),
  delta(3, { type: 'input_json_delta', partial_json: '{"city":' }),
  delta(3, { type: 'input_json_delta', partial_json: '"Bergen"}' }),
  blockStop(3),
  ...end('tool_use', { input_tokens: 30, output_tokens: 42 }),
];

async function collect(events: SSEEvent[] | AsyncIterable<SSEEvent>, includeUsage = true): Promise<SSEMessage[]> {
  const out: SSEMessage[] = [];
  for await (const message of fromAnthropicStream(Array.isArray(events) ? upstream(events) : events, 'my-model', { includeUsage })) out.push(message);
  return out;
}

/** The `choices[0]` (or, for a usage chunk, the usage) of each chunk; checks the envelope on the way. */
function bodies(messages: SSEMessage[]): unknown[] {
  const chunks = messages.filter((m) => m.data !== '[DONE]').map((m) => JSON.parse(m.data) as Record<string, unknown>);
  const first = chunks[0]!;
  expect(first.id).toMatch(/^chatcmpl-/);
  for (const chunk of chunks) {
    expect(messages.every((m) => m.event === undefined)).toBe(true);
    if ('error' in chunk) continue;
    expect(chunk).toMatchObject({ id: first.id, object: 'chat.completion.chunk', created: first.created, model: 'my-model' });
  }
  return chunks.map((chunk) => ('error' in chunk ? chunk : (chunk.choices as unknown[]).length === 0 ? { usage: chunk.usage } : (chunk.choices as unknown[])[0]));
}

const choice = (delta: object, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });

describe('fromAnthropicStream', () => {
  it('streams text, then each call with its own index, id and argument pieces, then the finish, usage and [DONE]', async () => {
    const messages = await collect(toolStream);
    expect(bodies(messages)).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Checking ' }),
      choice({ content: 'both.' }),
      choice({ tool_calls: [{ index: 0, id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      choice({ tool_calls: [{ index: 1, id: 'toolu_B', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '"Bergen"}' } }] }),
      choice({}, 'tool_calls'),
      // input_tokens from message_delta replaces message_start's 25; the cached 2 still count.
      { usage: { prompt_tokens: 32, completion_tokens: 42, total_tokens: 74, prompt_tokens_details: { cached_tokens: 2 } } },
    ]);
    expect(messages.at(-1)).toEqual({ data: '[DONE]' });
    // Every chunk but the last carries usage: null, as OpenAI does when include_usage is asked for.
    expect(messages.slice(0, -2).every((m) => (JSON.parse(m.data) as { usage: unknown }).usage === null)).toBe(true);
  });

  it('leaves usage out altogether unless asked for, and takes input tokens from message_start', async () => {
    const text = [start({ input_tokens: 9, output_tokens: 1 }), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'Hi' }), blockStop(0), ...end('max_tokens')];
    const without = await collect(text, false);
    expect(without.map((m) => m.data).filter((d) => d.includes('usage'))).toEqual([]);
    expect(bodies(without)).toEqual([choice({ role: 'assistant', content: '' }), choice({ content: 'Hi' }), choice({}, 'length')]);
    expect(bodies(await collect(text)).at(-1)).toEqual({ usage: { prompt_tokens: 9, completion_tokens: 15, total_tokens: 24, prompt_tokens_details: { cached_tokens: 0 } } });
  });

  it('yields each chunk as soon as its event arrives', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slow() {
      yield start();
      yield blockStart(0, { type: 'text', text: '' });
      yield delta(0, { type: 'text_delta', text: 'first' });
      await gate;
      yield* end('end_turn');
    }
    const stream = fromAnthropicStream(slow(), 'my-model', { includeUsage: false });
    await stream.next();
    const second = await stream.next();
    expect(JSON.parse(second.value!.data).choices[0].delta).toEqual({ content: 'first' });
    release();
    const rest: string[] = [];
    for await (const m of stream) rest.push(m.data);
    expect(rest.at(-1)).toBe('[DONE]');
  });

  it('turns an upstream error event into one OpenAI error chunk and ends without [DONE]', async () => {
    const messages = await collect([start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'Hal' }), ev({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })]);
    expect(messages.map((m) => m.data).slice(1)).toEqual([
      messages[1]!.data,
      JSON.stringify({ error: { message: 'Overloaded', type: 'service_unavailable_error', param: null, code: null }, usage: NO_USAGE }),
    ]);
    expect(messages).toHaveLength(3);
    expect(JSON.parse(messages[1]!.data).choices[0].delta).toEqual({ content: 'Hal' });
  });

  it('says so when the upstream stream ends before message_stop, or never starts', async () => {
    const early = await collect([start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'Hal' })]);
    expect(early.at(-1)).toEqual({ data: JSON.stringify({ error: { message: 'The upstream stream ended early: it closed before message_stop.', type: 'server_error', param: null, code: 'upstream_unreachable' }, usage: NO_USAGE }) });
    expect(early).toHaveLength(3);
    // The role chunk opens every stream, as a local model's does.
    const never = await collect([]);
    expect(never).toHaveLength(2);
    expect(JSON.parse(never[0]!.data).choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(never[1]).toEqual(early.at(-1));
  });

  it('reports malformed event data and a failing upstream read in-band too', async () => {
    expect((await collect([{ event: 'message_start', data: '{not json' }])).slice(1)).toEqual([
      { data: JSON.stringify({ error: { message: 'The upstream sent an event that is not a JSON object: {not json', type: 'server_error', param: null, code: null }, usage: NO_USAGE }) },
    ]);
    async function* broken() {
      yield start();
      throw new GatewayError('upstream_unreachable', 'The connection to the upstream was reset.');
    }
    const messages = await collect(broken());
    expect(messages.at(-1)).toEqual({ data: JSON.stringify({ error: { message: 'The connection to the upstream was reset.', type: 'server_error', param: null, code: 'upstream_unreachable' }, usage: NO_USAGE }) });
  });

  it('keeps the counts a message_delta leaves null (the SDK types them nullable)', async () => {
    const messages = await collect([start(), ...end('end_turn', { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 5 })]);
    expect(bodies(messages).at(-1)).toEqual({ usage: { prompt_tokens: 27, completion_tokens: 5, total_tokens: 32, prompt_tokens_details: { cached_tokens: 2 } } });
  });

  it('opens with the role chunk even when the upstream skipped message_start', async () => {
    const messages = await collect([ev({ type: 'ping' }), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'ok' }), ...end('end_turn')], false);
    expect(bodies(messages)).toEqual([choice({ role: 'assistant', content: '' }), choice({ content: 'ok' }), choice({}, 'stop')]);
  });

  it('still finishes a stream whose upstream sent message_stop without a stop_reason', async () => {
    const messages = await collect([start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'ok' }), ev({ type: 'message_stop' })], false);
    expect(bodies(messages).at(-1)).toEqual(choice({}, 'stop'));
    expect(messages.at(-1)).toEqual({ data: '[DONE]' });
  });

  it('reads a raw Anthropic SSE body decoded by createSSEParser', async () => {
    const raw = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-up","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: ping\ndata: {"type": "ping"}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"###"},"usage":{"output_tokens":3}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
    ];
    const parser = createSSEParser();
    const events = raw.flatMap((text) => parser.feed(text));
    expect(bodies(await collect(events))).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Hello' }),
      choice({}, 'stop'),
      { usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } } },
    ]);
  });
});

/** The real openai client, its HTTP answered by the translated stream. */
function streamingClient(events: SSEEvent[], includeUsage: boolean) {
  return new OpenAI({
    apiKey: 'x',
    baseURL: 'http://test.invalid/v1',
    maxRetries: 0,
    fetch: async () => new Response(toSSEStream(fromAnthropicStream(upstream(events), 'my-model', { includeUsage }), () => {}), { headers: { 'content-type': 'text/event-stream' } }),
  });
}

describe('the real openai client over the translated stream', () => {
  it('ChatCompletionStream assembles the text, both calls and the usage', async () => {
    const client = streamingClient(toolStream, true);
    const final = await client.chat.completions.stream({ model: 'my-model', messages: [{ role: 'user', content: 'Weather?' }], stream_options: { include_usage: true } }).finalChatCompletion();
    expect(final.choices).toHaveLength(1);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.content).toBe('Checking both.');
    expect(final.choices[0]!.message.tool_calls).toEqual([
      { id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } },
      { id: 'toolu_B', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Bergen"}' } },
    ]);
    expect(final.usage).toEqual({ prompt_tokens: 32, completion_tokens: 42, total_tokens: 74, prompt_tokens_details: { cached_tokens: 2 } });
    expect(final.model).toBe('my-model');
  });

  it('surfaces an upstream error event as an APIError with its message', async () => {
    const client = streamingClient([start(), blockStart(0, { type: 'text', text: '' }), delta(0, { type: 'text_delta', text: 'Hal' }), ev({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } })], false);
    const stream = await client.chat.completions.create({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((error: unknown) => error);
    expect(seen).toEqual(['', 'Hal']);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).message).toBe('Internal server error');
    expect((failure as APIError).type).toBe('server_error');
  });
});
