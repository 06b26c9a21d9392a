/**
 * Responses API answers made from chat completions: the `response` object from a
 * `chat.completion`, and the documented event sequence (`response.created` … `response.completed`)
 * from a `chat.completion.chunk` stream, with `sequence_number`s and item ids that line up as
 * `openai`'s `responses.stream` checks them.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 * @module
 */
import { GatewayError } from '../../../core/errors.ts';
import { randomId } from '../../../core/ids.ts';
import type { SSEEvent, SSEMessage } from '../../../core/sse.ts';
import type { ResponseObject } from './store.ts';

/** What a response object repeats of its request, and what it is called. */
export interface ResponseMeta {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
  readonly previousResponseId: string | null;
  readonly store: boolean;
  /** The request's echoed fields (`parseResponsesRequest().echo`). */
  readonly echo: Readonly<Record<string, unknown>>;
  /** `reasoning.summary` was asked for: a reasoning item carries the thinking as its summary too. */
  readonly summary?: boolean;
}

type Item = { readonly id: string } & Record<string, unknown>;

interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly prompt_tokens_details?: { readonly cached_tokens?: number };
  readonly completion_tokens_details?: { readonly reasoning_tokens?: number };
}

export function toResponseUsage(usage: ChatUsage | null | undefined) {
  const input = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  return { input_tokens: input, input_tokens_details: { cached_tokens: cached }, output_tokens: output, output_tokens_details: { reasoning_tokens: reasoning }, total_tokens: input + output };
}

/** The response object in a given state; `output` and `usage` are the caller's. */
function responseObject(meta: ResponseMeta, status: 'in_progress' | 'completed' | 'incomplete', output: readonly Item[], usage: ChatUsage | null): ResponseObject {
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

/**
 * A thinking model's thinking: its text as `reasoning_text` content (as the API gives an
 * open-weight model's), and as the summary when one was asked for (a local model writes no
 * shorter summary of its own).
 */
const reasoningItem = (id: string, text: string, status: string, summary: boolean | undefined): Item => ({
  id,
  type: 'reasoning',
  status,
  summary: summary ? [{ type: 'summary_text', text }] : [],
  content: [{ type: 'reasoning_text', text }],
});

/** `length` (the token cap or the context window) leaves a response incomplete, as the real API does. */
const statusOf = (finish: unknown) => (finish === 'length' ? 'incomplete' : 'completed');

interface ChatCompletion {
  readonly choices: readonly {
    readonly finish_reason: string | null;
    readonly message: { readonly content: string | null; readonly reasoning_content?: string | null; readonly tool_calls?: readonly { id: string; function: { name: string; arguments: string } }[] };
  }[];
  readonly usage?: ChatUsage;
}

/** A whole `chat.completion` as a response: a message item for its text, a function_call item per call. */
export function fromChatCompletion(completion: ChatCompletion, meta: ResponseMeta): ResponseObject {
  const choice = completion.choices[0];
  if (!choice) throw new GatewayError('internal', 'The chat completion has no choice.');
  const status = statusOf(choice.finish_reason);
  const output: Item[] = [];
  const text = choice.message.content ?? '';
  const calls = choice.message.tool_calls ?? [];
  const thought = choice.message.reasoning_content ?? '';
  // A reply cut while thinking has nothing else: its reasoning item is the one the cap cut.
  if (thought) output.push(reasoningItem(randomId('rs_'), thought, text || calls.length > 0 ? 'completed' : status, meta.summary));
  // The cap cuts the item being written, the last: those before it are whole, as in the stream.
  if (text || calls.length === 0) output.push(messageItem(randomId('msg_'), text, calls.length === 0 ? status : 'completed'));
  calls.forEach((call, i) => output.push(callItem(randomId('fc_'), call.id, call.function.name, call.function.arguments, i === calls.length - 1 ? status : 'completed')));
  return responseObject(meta, status, output, completion.usage ?? null);
}

/**
 * Chat completion chunks (as SSE events) in, Responses events out. The last event is
 * `response.completed` or `response.incomplete` with the whole response, which `onFinal` gets
 * first (to store it before a client that read it can ask for it); a failure becomes an `error`
 * event, after which the stream ends.
 */
export async function* fromChatChunks(chunks: AsyncIterable<SSEEvent>, meta: ResponseMeta, onFinal: (response: ResponseObject) => Promise<void>): AsyncGenerator<SSEMessage> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): SSEMessage => ({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
  const output: Item[] = [];
  /** The message item being written, and its text so far. */
  let message: { index: number; id: string; text: string } | undefined;
  /** The reasoning item being written (a thinking model's thinking comes first), and its text so far. */
  let thought: { index: number; id: string; text: string } | undefined;
  /** Calls by their chunk index: their output index, ids, name and arguments so far. */
  const calls = new Map<number, { index: number; id: string; callId: string; name: string; args: string }>();
  let finish: string | null = null;
  let usage: ChatUsage | null = null;

  yield event('response.created', { response: responseObject(meta, 'in_progress', [], null) });
  yield event('response.in_progress', { response: responseObject(meta, 'in_progress', [], null) });

  function* closeMessage(status: string): Generator<SSEMessage> {
    if (!message) return;
    const { index, id, text } = message;
    const part = { type: 'output_text', text, annotations: [], logprobs: [] };
    yield event('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
    yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
    output[index] = messageItem(id, text, status);
    yield event('response.output_item.done', { output_index: index, item: output[index] });
    message = undefined;
  }
  function* closeThought(status: string): Generator<SSEMessage> {
    if (!thought) return;
    const { index, id, text } = thought;
    const part = { type: 'reasoning_text', text };
    yield event('response.reasoning_text.done', { item_id: id, output_index: index, content_index: 0, text });
    yield event('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part });
    if (meta.summary) {
      const summary = { type: 'summary_text', text };
      yield event('response.reasoning_summary_part.added', { item_id: id, output_index: index, summary_index: 0, part: { type: 'summary_text', text: '' } });
      yield event('response.reasoning_summary_text.delta', { item_id: id, output_index: index, summary_index: 0, delta: text });
      yield event('response.reasoning_summary_text.done', { item_id: id, output_index: index, summary_index: 0, text });
      yield event('response.reasoning_summary_part.done', { item_id: id, output_index: index, summary_index: 0, part: summary });
    }
    output[index] = reasoningItem(id, text, status, meta.summary);
    yield event('response.output_item.done', { output_index: index, item: output[index] });
    thought = undefined;
  }
  function* openThought(): Generator<SSEMessage> {
    const index = output.length;
    thought = { index, id: randomId('rs_'), text: '' };
    output.push(reasoningItem(thought.id, '', 'in_progress', false));
    yield event('response.output_item.added', { output_index: index, item: { id: thought.id, type: 'reasoning', status: 'in_progress', summary: [], content: [] } });
    yield event('response.content_part.added', { item_id: thought.id, output_index: index, content_index: 0, part: { type: 'reasoning_text', text: '' } });
  }
  function* openMessage(): Generator<SSEMessage> {
    yield* closeThought('completed');
    const index = output.length;
    message = { index, id: randomId('msg_'), text: '' };
    output.push(messageItem(message.id, '', 'in_progress'));
    yield event('response.output_item.added', { output_index: index, item: { ...messageItem(message.id, '', 'in_progress'), content: [] } });
    yield event('response.content_part.added', { item_id: message.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
  }

  try {
    for await (const sse of chunks) {
      if (sse.data === '[DONE]') break;
      const chunk = JSON.parse(sse.data) as {
        error?: { message?: string; code?: string | null; param?: string | null };
        choices?: { delta?: { content?: string | null; reasoning_content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[];
        usage?: ChatUsage | null;
      };
      if (chunk.error) {
        yield event('error', { code: chunk.error.code ?? 'server_error', message: chunk.error.message ?? 'The generation failed.', param: chunk.error.param ?? null });
        return;
      }
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') {
        if (!thought) yield* openThought();
        thought!.text += delta.reasoning_content;
        yield event('response.reasoning_text.delta', { item_id: thought!.id, output_index: thought!.index, content_index: 0, delta: delta.reasoning_content });
      }
      if (typeof delta.content === 'string' && delta.content !== '') {
        if (!message) yield* openMessage();
        message!.text += delta.content;
        yield event('response.output_text.delta', { item_id: message!.id, output_index: message!.index, content_index: 0, delta: delta.content, logprobs: [] });
      }
      for (const piece of delta.tool_calls ?? []) {
        let call = calls.get(piece.index);
        if (!call) {
          yield* closeThought('completed');
          yield* closeMessage('completed');
          call = { index: output.length, id: randomId('fc_'), callId: piece.id ?? randomId('call_'), name: piece.function?.name ?? '', args: '' };
          calls.set(piece.index, call);
          output.push(callItem(call.id, call.callId, call.name, '', 'in_progress'));
          yield event('response.output_item.added', { output_index: call.index, item: callItem(call.id, call.callId, call.name, '', 'in_progress') });
        }
        const args = piece.function?.arguments ?? '';
        if (args) {
          call.args += args;
          yield event('response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: args });
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } catch (error) {
    const failure = GatewayError.from(error);
    yield event('error', { code: failure.code, message: failure.message, param: failure.param ?? null });
    return;
  }
  if (finish === null) {
    yield event('error', { code: 'server_error', message: 'The generation ended without a finish.', param: null });
    return;
  }
  const status = statusOf(finish);
  // Thinking cut by the cap is the last item, and the one left incomplete.
  if (thought && calls.size === 0 && !message && status === 'incomplete') yield* closeThought(status);
  if (!message && calls.size === 0) yield* openMessage();
  yield* closeMessage(status);
  for (const call of calls.values()) {
    yield event('response.function_call_arguments.done', { item_id: call.id, output_index: call.index, arguments: call.args, name: call.name });
    output[call.index] = callItem(call.id, call.callId, call.name, call.args, call.index === output.length - 1 ? status : 'completed');
    yield event('response.output_item.done', { output_index: call.index, item: output[call.index] });
  }
  const response = responseObject(meta, status, output, usage);
  await onFinal(response);
  yield event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
}
