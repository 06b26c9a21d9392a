/**
 * Responses API answers rendered from the neutral generation's events, as a chat completion's
 * are: the documented event sequence (`response.created` … `response.completed`), with
 * `sequence_number`s and item ids that line up as `openai`'s `responses.stream` checks them, and
 * the `response` object, which is that sequence's last, so the two always agree.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 * @module
 */
import { GatewayError } from '../../../core/errors.ts';
import type { FinishReason, Generation, GenerationEvent, Usage } from '../../../core/generation.ts';
import { randomId } from '../../../core/ids.ts';
import type { SSEMessage } from '../../../core/sse.ts';
import { toResponseUsage } from '../codes.ts';
import { toOpenAIErrorBody } from '../wire.ts';
import type { ResponseObject } from './store.ts';

/** The usage object of this API, from the family's table. */
export { toResponseUsage };

/** What a response object repeats of its request, and what it is called. */
export interface ResponseMeta {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly previousResponseId: string | null;
  /** The conversation the response belongs to, its input and output added to it. */
  readonly conversation?: string;
  readonly store: boolean;
  /** The request's echoed fields (`parseResponsesRequest().echo`). */
  readonly echo: Readonly<Record<string, unknown>>;
  /** `reasoning.summary` was asked for: a reasoning item carries the thinking as its summary too. */
  readonly summary?: boolean;
  /** `include: ["reasoning.encrypted_content"]`: a reasoning item carries its `encrypted_content`. */
  readonly encryptedContent?: boolean;
}

type Item = { readonly id: string } & Record<string, unknown>;

/** The response object in a given state; `output` and `usage` are the caller's. */
function responseObject(meta: ResponseMeta, status: 'in_progress' | 'completed' | 'incomplete', output: readonly Item[], usage: Usage | null): ResponseObject {
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.createdAt,
    status,
    background: false,
    completed_at: status === 'in_progress' ? null : Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: meta.model,
    output,
    previous_response_id: meta.previousResponseId,
    ...(meta.conversation !== undefined ? { conversation: { id: meta.conversation } } : {}),
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: meta.store,
    usage: usage ? toResponseUsage(usage) : null,
    ...meta.echo,
  };
}

const messageItem = (id: string, text: string, status: string): Item => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
});

const callItem = (id: string, callId: string, name: string, args: string, status: string): Item => ({ id, type: 'function_call', status, arguments: args, call_id: callId, name });

/** The version prefix of `encryptedContentOf`'s tokens. */
const ENCRYPTED_CONTENT_PREFIX = 'inpage-llm.rs.v1.';

/**
 * A reasoning item's `encrypted_content`: an opaque token (a versioned prefix, then the item id in
 * base64url) that a stateless client sends back. It holds no thinking, and nothing reads it back
 * into a prompt (past thinking is dropped anyway), so any string a client returns is harmless.
 * See docs/decisions/reasoning-encrypted-content.md.
 */
export function encryptedContentOf(itemId: string): string {
  // btoa takes one character a byte: the id's UTF-8 bytes (a caller's id may be any string).
  const ascii = [...new TextEncoder().encode(itemId)].map((byte) => String.fromCharCode(byte)).join('');
  return ENCRYPTED_CONTENT_PREFIX + btoa(ascii).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * A thinking model's thinking: its text as `reasoning_text` content (as the API gives an
 * open-weight model's), and as the summary when one was asked for (a local model writes no
 * shorter summary of its own); its `encrypted_content` where the request included it.
 */
const reasoningItem = (id: string, text: string, status: string, summary: boolean | undefined, encrypted: boolean | undefined): Item => ({
  id,
  type: 'reasoning',
  status,
  summary: summary ? [{ type: 'summary_text', text }] : [],
  content: [{ type: 'reasoning_text', text }],
  ...(encrypted ? { encrypted_content: encryptedContentOf(id) } : {}),
});

/** `length` (the token cap or the context window) leaves a response incomplete, as the real API does. */
const statusOf = (finish: FinishReason) => (finish === 'length' ? 'incomplete' : 'completed');

/** One step of a response being written: an event for a stream, or the final response last. */
type Step = { readonly event: SSEMessage } | { readonly final: ResponseObject; readonly event: SSEMessage };

/**
 * Writes a generation as Responses events, the final response last: thinking as a reasoning item,
 * text as a message item, each call as a function_call item, closed in order as the next begins.
 * The token cap cuts the item being written, the last: those before it are whole. `start` gives
 * the opening events, `push` those of each generation event; the caller reads the generation, so a
 * token costs one asynchronous step, as in chat completions' renderer.
 */
function responseWriter(meta: ResponseMeta, encode: boolean): { start(): Generator<Step>; push(item: GenerationEvent): Generator<Step> } {
  let sequence = 0;
  // A whole response needs only the final object: its events are counted, not written.
  const event = (type: string, fields: Record<string, unknown>): Step => ({ event: { event: type, data: encode ? JSON.stringify({ type, sequence_number: sequence++, ...fields }) : (sequence++, '') } });
  /** One per token, so written as `event` would write it with only the text encoded. */
  const textDelta = (head: string, text: string): Step => ({
    event: { event: 'response.output_text.delta', data: encode ? `{"type":"response.output_text.delta","sequence_number":${sequence++}${head}${JSON.stringify(text)},"logprobs":[]}` : (sequence++, '') },
  });
  const output: Item[] = [];
  /** The message item being written, and its text so far. */
  let message: { index: number; id: string; text: string; head: string } | undefined;
  /** The reasoning item being written (a thinking model's thinking comes first), and its text so far. */
  let thought: { index: number; id: string; text: string } | undefined;
  /** Calls by their index in the generation: their output index, ids, name and arguments so far. */
  const calls = new Map<number, { index: number; id: string; callId: string; name: string; args: string }>();

  function* closeMessage(status: string): Generator<Step> {
    if (!message) return;
    const { index, id, text } = message;
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    yield event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
    yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
    output[index] = messageItem(id, text, status);
    yield event('response.output_item.done', { output_index: index, item: output[index] });
    message = undefined;
  }
  /**
   * Closes the thinking: its content part, then its summary part (open since the thinking opened,
   * when a summary was asked for), then the item.
   */
  function* closeThought(status: string): Generator<Step> {
    if (!thought) return;
    const { index, id, text } = thought;
    const part = { type: 'reasoning_text', text };
    yield event('response.reasoning_text.done', { item_id: id, output_index: index, content_index: 0, text });
    yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
    if (meta.summary) {
      yield event('response.reasoning_summary_text.done', { item_id: id, output_index: index, summary_index: 0, text });
      yield event('response.reasoning_summary_part.done', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text } });
    }
    output[index] = reasoningItem(id, text, status, meta.summary, meta.encryptedContent);
    yield event('response.output_item.done', { output_index: index, item: output[index] });
    thought = undefined;
  }
  /**
   * Opens the thinking: the item, its `reasoning_text` part and, when a summary was asked for, its
   * summary part, so the summary streams as the thinking does (the summary is the thinking).
   */
  function* openThought(): Generator<Step> {
    const index = output.length;
    const id = randomId('rs_');
    thought = { index, id, text: '' };
    output.push(reasoningItem(id, '', 'in_progress', false, meta.encryptedContent));
    const encrypted = meta.encryptedContent ? { encrypted_content: encryptedContentOf(id) } : {};
    yield event('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', status: 'in_progress', summary: [], content: [], ...encrypted } });
    yield event('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    if (meta.summary) yield event('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } });
  }
  function* openMessage(): Generator<Step> {
    yield* closeThought('completed');
    const index = output.length;
    const id = randomId('msg_');
    message = { index, id, text: '', head: `,"item_id":${JSON.stringify(id)},"output_index":${index},"content_index":0,"delta":` };
    output.push(messageItem(message.id, '', 'in_progress'));
    yield event('response.output_item.added', { output_index: index, item: { ...messageItem(message.id, '', 'in_progress'), content: [] } });
    yield event('response.content_part.added', { item_id: message.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
  }
  function* start(): Generator<Step> {
    yield event('response.created', { response: responseObject(meta, 'in_progress', [], null) });
    yield event('response.in_progress', { response: responseObject(meta, 'in_progress', [], null) });
  }
  function* push(item: GenerationEvent): Generator<Step> {
    if (item.type === 'reasoning') {
      if (!item.text) return;
      if (!thought) yield* openThought();
      thought!.text += item.text;
      yield event('response.reasoning_text.delta', { item_id: thought!.id, output_index: thought!.index, content_index: 0, delta: item.text });
      if (meta.summary) yield event('response.reasoning_summary_text.delta', { item_id: thought!.id, output_index: thought!.index, summary_index: 0, delta: item.text });
      return;
    }
    if (item.type === 'text') {
      if (!item.text) return;
      if (!message) yield* openMessage();
      message!.text += item.text;
      yield textDelta(message!.head, item.text);
      return;
    }
    if (item.type === 'tool_call') {
      yield* closeThought('completed');
      yield* closeMessage('completed');
      const call = { index: output.length, id: randomId('fc_'), callId: item.id ?? randomId('call_'), name: item.name, args: '' };
      calls.set(item.index, call);
      output.push(callItem(call.id, call.callId, call.name, '', 'in_progress'));
      yield event('response.output_item.added', { output_index: call.index, item: callItem(call.id, call.callId, call.name, '', 'in_progress') });
      return;
    }
    if (item.type === 'tool_arguments') {
      const call = calls.get(item.index);
      if (!call || !item.text) return;
      call.args += item.text;
      yield event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: item.text });
      return;
    }
    const status = statusOf(item.reason);
    // Thinking cut by the cap is the last item, and the one left incomplete.
    if (thought && calls.size === 0 && !message && status === 'incomplete') yield* closeThought(status);
    if (!message && calls.size === 0) yield* openMessage();
    yield* closeMessage(status);
    for (const call of calls.values()) {
      yield event('response.function_call_arguments.done', { item_id: call.id, output_index: call.index, arguments: call.args, name: call.name });
      output[call.index] = callItem(call.id, call.callId, call.name, call.args, call.index === output.length - 1 ? status : 'completed');
      yield event('response.output_item.done', { output_index: call.index, item: output[call.index] });
    }
    const response = responseObject(meta, status, output, item.usage);
    const last = event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
    yield { final: response, event: last.event };
  }
  return { start, push };
}

/** The whole response object (a request without `stream`). */
export async function toResponse(generation: Generation, meta: ResponseMeta): Promise<ResponseObject> {
  try {
    const writer = responseWriter(meta, false);
    for (const _ of writer.start()) void _;
    for (;;) {
      const next = await generation.events.next();
      if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
      for (const step of writer.push(next.value)) if ('final' in step) return step.final;
    }
  } finally {
    await generation.events.return?.(undefined);
  }
}

/**
 * The event stream. The last event is `response.completed` or `response.incomplete` with the whole
 * response, which `onFinal` gets first (to store it before a client that read it can ask for it);
 * a failure becomes an `error` event with the OpenAI code of the failure, after which the stream ends.
 */
export async function* toResponseEvents(generation: Generation, meta: ResponseMeta, onFinal: (response: ResponseObject) => Promise<void>): AsyncGenerator<SSEMessage> {
  let sequence = 0;
  try {
    const writer = responseWriter(meta, true);
    for (const step of writer.start()) yield (sequence++, step.event);
    for (;;) {
      const next = await generation.events.next();
      if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
      for (const step of writer.push(next.value)) {
        sequence++;
        if ('final' in step) {
          await onFinal(step.final);
          yield step.event;
          return;
        }
        yield step.event;
      }
    }
  } catch (error) {
    const { message, param, code } = toOpenAIErrorBody(GatewayError.from(error)).error;
    yield { event: 'error', data: JSON.stringify({ type: 'error', sequence_number: sequence, code: code ?? 'server_error', message, param }) };
  } finally {
    await generation.events.return?.(undefined);
  }
}
