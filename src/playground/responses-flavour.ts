/**
 * The third chat flavour, OpenAI's Responses API: how the panel's conversation and settings
 * become a `POST /responses` body, and how its answer reads back in flavour-neutral terms, from
 * the named SSE events of a stream or from the whole response object.
 * @see src/protocol/openai/responses/render.ts for the shapes the gateway sends.
 * @module
 */
import { MIN_OUTPUT_TOKENS } from '../protocol/openai/responses/request.ts';
import type { SSEEvent } from '../core/sse.ts';
import { absoluteUrl, parseBody, type RecordedRequest } from './api.ts';
import type { ChatSettings } from './chat-settings.ts';
import type { StreamUpdate, ToolDelta } from './stream-update.ts';
import type { Turn } from './chat-wire.ts';
import { responsesInput, responsesToolChoice, responsesTools } from './responses-wire.ts';
import { promptUsage } from './prompt-usage.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The panel's max tokens, raised to the API's floor (a smaller `max_output_tokens` is a 400). */
export const responsesMaxTokens = (maxTokens: number): number => Math.max(MIN_OUTPUT_TOKENS, maxTokens);

/**
 * A conversation the server keeps (the Conversations API): its id, and the turns this request
 * adds. The server has the earlier ones: only the new ones are sent.
 */
export interface KeptConversation {
  readonly id: string;
  readonly sent: readonly Turn[];
}

export function responsesRequest(baseUrl: string, settings: ChatSettings, turns: readonly Turn[], kept?: KeptConversation): RecordedRequest {
  const tools = settings.tools?.length ? settings.tools : undefined;
  const parallel = settings.parallelToolCalls ?? true;
  return {
    method: 'POST',
    url: absoluteUrl(baseUrl, '/responses'),
    headers: { 'content-type': 'application/json' },
    body: {
      model: settings.model,
      ...(settings.system.trim() ? { instructions: settings.system } : {}),
      input: responsesInput(kept ? kept.sent : turns),
      max_output_tokens: responsesMaxTokens(settings.maxTokens),
      ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
      ...(settings.stop.length ? { stop: settings.stop } : {}),
      ...(settings.schema ? { text: { format: { type: 'json_schema', name: 'response', schema: settings.schema, strict: true } } } : {}),
      ...(tools ? { tools: responsesTools(tools), tool_choice: responsesToolChoice(settings.toolChoice ?? 'auto'), ...(parallel ? {} : { parallel_tool_calls: false }) } : {}),
      // Kept by the server: the conversation holds the history, and each turn is added to it. Else
      // each turn sends the whole conversation, so no response has to be kept for previous_response_id.
      ...(kept ? { conversation: kept.id } : { store: false }),
      stream: settings.stream,
    },
  };
}

/** The most items one request may add to a conversation. */
export const CONVERSATION_ITEMS_AT_ONCE = 20;

/**
 * The requests that start a conversation the server keeps, holding `earlier` (the turns so far, in
 * another flavour or before the box was ticked): `POST /conversations` with the first 20 items,
 * then `POST /conversations/{id}/items` for each 20 more (`id` known once the first is answered).
 */
export function conversationRequests(baseUrl: string, earlier: readonly Turn[]): { create: RecordedRequest; more: (id: string) => RecordedRequest[] } {
  const items = responsesInput(earlier);
  const post = (path: string, body: unknown): RecordedRequest => ({ method: 'POST', url: absoluteUrl(baseUrl, path), headers: { 'content-type': 'application/json' }, body });
  const rest: Json[][] = [];
  for (let i = CONVERSATION_ITEMS_AT_ONCE; i < items.length; i += CONVERSATION_ITEMS_AT_ONCE) rest.push(items.slice(i, i + CONVERSATION_ITEMS_AT_ONCE));
  const first = items.slice(0, CONVERSATION_ITEMS_AT_ONCE);
  return {
    create: post('/conversations', first.length ? { items: first } : {}),
    more: (id) => rest.map((chunk) => post(`/conversations/${encodeURIComponent(id)}/items`, { items: chunk })),
  };
}

/** One named event of a streamed response. */
export function readResponsesEvent(event: SSEEvent): StreamUpdate {
  const data = parseBody(event.data);
  if (!isRecord(data)) return {};
  const index = typeof data.output_index === 'number' ? data.output_index : 0;
  switch (event.event ?? data.type) {
    case 'response.output_text.delta':
      return typeof data.delta === 'string' && data.delta ? { text: data.delta } : {};
    case 'response.reasoning_text.delta':
      return typeof data.delta === 'string' && data.delta ? { thinking: data.delta } : {};
    case 'response.output_item.added': {
      const call = isRecord(data.item) ? functionCall(data.item, index) : undefined;
      return call ? { tools: [call] } : {};
    }
    case 'response.function_call_arguments.delta':
      return typeof data.delta === 'string' && data.delta ? { tools: [{ index, arguments: data.delta }] } : {};
    case 'response.completed':
    case 'response.incomplete':
      return { ...ending(data.response), done: true };
    case 'response.failed':
      return { error: isRecord(data.response) && data.response.error ? data.response.error : data };
    case 'error':
      return { error: data };
    default:
      return {};
  }
}

/** A whole (not streamed) response: its message text, its calls, its status and usage. */
export function readResponse(body: unknown): StreamUpdate {
  const output = isRecord(body) && Array.isArray(body.output) ? body.output : [];
  const text = output
    .filter((item): item is Json => isRecord(item) && item.type === 'message' && Array.isArray(item.content))
    .flatMap((item) => item.content as unknown[])
    .map((part) => (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
  const tools = output.flatMap((item, index) => {
    const call = isRecord(item) ? functionCall(item, index) : undefined;
    return call ? [call] : [];
  });
  const thinking = output
    .filter((item): item is Json => isRecord(item) && item.type === 'reasoning' && Array.isArray(item.content))
    .flatMap((item) => item.content as unknown[])
    .map((part) => (isRecord(part) && part.type === 'reasoning_text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
  return { ...(text ? { text } : {}), ...(thinking ? { thinking } : {}), ...(tools.length ? { tools } : {}), ...ending(body) };
}

/** A function_call item as a tool piece: its `call_id` is what the result will answer. */
function functionCall(item: Json, index: number): ToolDelta | undefined {
  if (item.type !== 'function_call') return undefined;
  const args = typeof item.arguments === 'string' ? item.arguments : '';
  return { index, id: String(item.call_id ?? ''), name: String(item.name ?? ''), ...(args ? { arguments: args } : {}) };
}

/** `completed` or `incomplete` (cut at max_output_tokens), and the output token count. */
function ending(response: unknown): StreamUpdate {
  if (!isRecord(response)) return {};
  const usage = isRecord(response.usage) ? response.usage : undefined;
  return {
    ...(typeof response.status === 'string' ? { finish: response.status } : {}),
    ...(typeof usage?.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
    ...promptUsage(usage),
  };
}
