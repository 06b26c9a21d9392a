import { beforeAll, describe, expect, it, vi } from 'vitest';
import { openAIMessages, type Turn } from './chat-wire.ts';
import { conversationRequests, readResponse, readResponsesEvent, responsesRequest } from './responses-flavour.ts';
import type { ChatSettings } from './chat-settings.ts';
import { responsesInput, responsesToChat } from './responses-wire.ts';

const TURNS: Turn[] = [
  { role: 'user', content: 'Weather in Paris and Oslo?' },
  {
    role: 'assistant',
    content: 'Looking.',
    toolCalls: [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
  },
  { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
  { role: 'tool', toolCallId: 'call_2', content: 'snow' },
  { role: 'assistant', content: 'Sunny in Paris, snow in Oslo.' },
];

const sse = (type: string, fields: Record<string, unknown>) => ({ event: type, data: JSON.stringify({ type, ...fields }) });

describe('the Responses flavour', () => {
  it('sends turns as input items: the text, then each call as its own item, each result by call_id', () => {
    expect(responsesInput(TURNS)).toEqual([
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      { type: 'function_call_output', call_id: 'call_2', output: 'snow' },
      { role: 'assistant', content: 'Sunny in Paris, snow in Oslo.' },
    ]);
  });

  it('restates a Responses body as the same chat completion', () => {
    const chat = responsesToChat({
      model: 'm',
      instructions: 'Be brief.',
      input: responsesInput(TURNS),
      max_output_tokens: 32,
      text: { format: { type: 'json_schema', name: 'response', schema: { type: 'object' }, strict: true } },
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
      stream: true,
    });
    expect(chat).toEqual({
      model: 'm',
      messages: [{ role: 'system', content: 'Be brief.' }, ...openAIMessages(TURNS)],
      max_tokens: 32,
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' }, strict: true } },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    });
  });

  it('reads the named events: text deltas, a call and its argument pieces, the status and usage at the end', () => {
    const updates = [
      sse('response.created', { response: { status: 'in_progress' } }),
      sse('response.output_text.delta', { output_index: 0, delta: 'Hi' }),
      sse('response.output_item.added', { output_index: 1, item: { type: 'function_call', id: 'fc_1', call_id: 'call_9', name: 'get_time', arguments: '' } }),
      sse('response.function_call_arguments.delta', { output_index: 1, delta: '{"zone"' }),
      sse('response.incomplete', { response: { status: 'incomplete', usage: { input_tokens: 5, input_tokens_details: { cached_tokens: 4 }, output_tokens: 16, total_tokens: 21 } } }),
    ].map(readResponsesEvent);
    expect(updates).toEqual([
      {},
      { text: 'Hi' },
      { tools: [{ index: 1, id: 'call_9', name: 'get_time' }] },
      { tools: [{ index: 1, arguments: '{"zone"' }] },
      { finish: 'incomplete', outputTokens: 16, promptTokens: 5, cachedTokens: 4, done: true },
    ]);
    const error = { type: 'error', code: 'server_error', message: 'boom', param: null };
    expect(readResponsesEvent({ event: 'error', data: JSON.stringify(error) })).toEqual({ error });
  });

  it('reads a whole response the same way', () => {
    const response = {
      object: 'response',
      status: 'completed',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_time', arguments: '{"zone":"UTC"}' },
      ],
      usage: { input_tokens: 9, output_tokens: 12, total_tokens: 21 },
    };
    expect(readResponse(response)).toEqual({
      text: 'Let me check.',
      tools: [{ index: 1, id: 'call_1', name: 'get_time', arguments: '{"zone":"UTC"}' }],
      finish: 'completed',
      outputTokens: 12,
      promptTokens: 9,
    });
  });
});

describe('the Responses flavour keeping a conversation on the server', () => {
  const SETTINGS: ChatSettings = { flavour: 'responses', model: 'm', system: '', maxTokens: 64, stop: [], stream: true };
  const BASE = 'http://app.test/v1';
  // Request URLs are made absolute against the page's location, as the playground runs in one.
  beforeAll(() => void vi.stubGlobal('location', new URL('http://app.test/')));

  it('sends only the new turns, by the conversation’s id, and stores as the API does by default', () => {
    const request = responsesRequest(BASE, SETTINGS, TURNS, { id: 'conv_1', sent: [{ role: 'user', content: 'And Lima?' }] });
    expect(request.body).toEqual({ model: 'm', input: [{ role: 'user', content: 'And Lima?' }], max_output_tokens: 64, conversation: 'conv_1', stream: true });
    // Without one, the whole conversation, not stored.
    expect(responsesRequest(BASE, SETTINGS, TURNS).body).toMatchObject({ input: responsesInput(TURNS), store: false });
  });

  it('starts the conversation with the turns so far, 20 items a request', () => {
    const many = Array.from({ length: 45 }, (_, i): Turn => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }));
    const { create, more } = conversationRequests(BASE, many);
    expect(create).toMatchObject({ method: 'POST', url: `${BASE}/conversations` });
    expect((create.body as { items: unknown[] }).items).toEqual(responsesInput(many).slice(0, 20));
    const rest = more('conv_9');
    expect(rest.map((r) => r.url)).toEqual([`${BASE}/conversations/conv_9/items`, `${BASE}/conversations/conv_9/items`]);
    expect(rest.flatMap((r) => (r.body as { items: unknown[] }).items)).toEqual(responsesInput(many).slice(20));
    expect(conversationRequests(BASE, []).create.body).toEqual({});
  });
});

