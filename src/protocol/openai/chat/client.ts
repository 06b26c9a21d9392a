/**
 * Chat completions' client side: how the gateway speaks the API to a remote server that has it
 * (vLLM, SGLang, Ollama, LM Studio, llama.cpp's server, a hosted API). The neutral request goes
 * out as a chat completion body; the answer, whole or streamed, comes back as neutral events.
 * Servers differ in what they send: each field is read as leniently as the servers write it.
 * @see https://platform.openai.com/docs/api-reference/chat
 * @module
 */
import type { ChatMessage, ChatRequest } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { isRecord } from '../../../core/fields.ts';
import type { GenerationEvent } from '../../../core/generation.ts';
import type { UpstreamModel } from '../../../core/remote-state.ts';
import type { SSEEvent } from '../../../core/sse.ts';
import type { UpstreamClient, UpstreamRequestOptions } from '../../../core/wire.ts';
import { readFinish, readOpenAIUsage } from '../codes.ts';

type Json = Record<string, unknown>;

export const OPENAI_CHAT_CLIENT: UpstreamClient = {
  flavour: 'openai',
  chatPath: '/chat/completions',
  // Only vLLM's `stop_reason` and SGLang's `matched_stop` say which string matched; llama.cpp,
  // Ollama and the hosted API say only `stop`.
  namesStopSequence: false,
  headers(apiKey) {
    const headers = new Headers({ 'content-type': 'application/json' });
    if (apiKey) headers.set('authorization', `Bearer ${apiKey}`);
    return headers;
  },
  chatBody: toChatCompletionBody,
  answer: fromChatCompletion,
  events: fromChatCompletionChunks,
  listedModel,
};

/**
 * A model in an OpenAI-compatible server's list: `created` and `owned_by` as OpenAI gives them,
 * and its context where the server says: vLLM's `max_model_len`, LM Studio's and OpenRouter's
 * `context_length`, llama.cpp's `meta.n_ctx_train`, another inpage-llm's `context_window` and
 * `max_output_tokens`.
 */
function listedModel(listing: readonly unknown[], id: string): UpstreamModel | undefined {
  const entry = listing.find((item) => isRecord(item) && item.id === id);
  if (!isRecord(entry)) return undefined;
  const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);
  const meta = isRecord(entry.meta) ? entry.meta : {};
  const contextWindow = count(entry.context_window) ?? count(entry.max_model_len) ?? count(entry.context_length) ?? count(meta.n_ctx_train);
  const maxOutputTokens = count(entry.max_output_tokens);
  return {
    ...(typeof entry.created === 'number' && Number.isFinite(entry.created) ? { created: entry.created } : {}),
    ...(typeof entry.owned_by === 'string' && entry.owned_by ? { ownedBy: entry.owned_by } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  };
}

/**
 * The neutral request as a chat completion body. The cap goes as `max_tokens`, the name every
 * OpenAI-compatible server reads (llama.cpp's ignores `max_completion_tokens`), and only when the
 * caller set one; usage is asked for with a stream, as the finish needs it.
 */
export function toChatCompletionBody(request: ChatRequest, { model, stream, withoutStops }: UpstreamRequestOptions): Json {
  const body: Json = { model, messages: request.messages.map(toWireMessage) };
  if (request.maxTokensSet) body.max_tokens = request.maxTokens;
  const optional: [string, unknown][] = [
    ['temperature', request.temperature],
    ['top_p', request.topP],
    // Not OpenAI's, but vLLM, llama.cpp and Ollama take it as an extension.
    ['top_k', request.topK],
    ['seed', request.seed],
    ['presence_penalty', request.presencePenalty],
    ['frequency_penalty', request.frequencyPenalty],
    ['user', request.user],
  ];
  for (const [key, value] of optional) if (value !== undefined) body[key] = value;
  if (request.stop.length > 0 && !withoutStops) body.stop = request.stop;
  if (request.logitBias) body.logit_bias = Object.fromEntries(request.logitBias);
  // An effort goes as it came; a budget in tokens (Anthropic's) has no form here and is not sent.
  if (request.reasoningEffort) body.reasoning_effort = request.reasoningEffort;
  if (request.output?.kind === 'json_object') body.response_format = { type: 'json_object' };
  if (request.output?.kind === 'json_schema') {
    body.response_format = { type: 'json_schema', json_schema: { name: request.output.name ?? 'output', schema: request.output.schema, strict: request.output.strict } };
  }
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters } }));
    const choice = request.toolChoice ?? 'auto';
    // `auto` is what the server does with tools anyway: sent only when asked for otherwise.
    if (choice !== 'auto') body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    if (request.parallelToolCalls === false) body.parallel_tool_calls = false;
  }
  // A server that speculates (OpenAI's predicted outputs; vLLM and others ignore it) is given the guess.
  if (request.prediction !== undefined) body.prediction = { type: 'content', content: request.prediction };
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

function toWireMessage(message: ChatMessage): Json {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return { role: 'assistant', content: message.content || null, tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) };
  }
  // Text alone goes as one string: every OpenAI-compatible server takes that, not all take part lists.
  if (!message.parts) return { role: message.role, content: message.content };
  return { role: message.role, content: message.parts.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: part.url } })) };
}

/** A message's `content`: a string, or (some servers) a list of text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('');
}

/** Arguments are a JSON string in OpenAI's API; a few servers send the object itself. */
function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : isRecord(args) ? JSON.stringify(args) : '';
}

/** The thinking a server splits off (vLLM's and SGLang's `reasoning_content`, vLLM's newer `reasoning`). */
function reasoningText(message: Json): string {
  const value = message.reasoning_content ?? message.reasoning;
  return typeof value === 'string' ? value : '';
}

const callId = (id: unknown) => (typeof id === 'string' && id !== '' ? { id } : {});

/** A whole `chat.completion` as neutral events: thinking, text, each call with its arguments, the finish. */
export function fromChatCompletion(completion: unknown): GenerationEvent[] {
  const choice = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!isRecord(completion) || !isRecord(choice) || !isRecord(choice.message)) {
    const said = upstreamErrorText(completion);
    throw new GatewayError('internal', `The upstream's reply is not a chat completion${said ? `: ${said}` : '.'}`);
  }
  const message = choice.message;
  const events: GenerationEvent[] = [];
  const thought = reasoningText(message);
  if (thought) events.push({ type: 'reasoning', text: thought });
  const text = contentText(message.content) + (typeof message.refusal === 'string' ? message.refusal : '');
  if (text) events.push({ type: 'text', text });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  calls.forEach((call, index) => {
    const fn = isRecord(call.function) ? call.function : {};
    events.push({ type: 'tool_call', index, name: typeof fn.name === 'string' ? fn.name : '', ...callId(call.id) });
    const args = argumentsText(fn.arguments);
    if (args) events.push({ type: 'tool_arguments', index, text: args });
  });
  events.push({ type: 'finish', ...readFinish(choice), usage: readOpenAIUsage(completion.usage) });
  return events;
}

/**
 * A chunk stream as neutral events, each yielded as soon as it can be made. The finish waits for
 * the usage chunk, which OpenAI sends after the finish chunk (or with it). An upstream error (an
 * `error` event, `{"error":…}` data), malformed data, a server that goes back to a call after
 * starting another, or an end before the finish throws.
 */
export async function* fromChatCompletionChunks(events: AsyncIterable<SSEEvent>): AsyncGenerator<GenerationEvent> {
  /** The call being written: its neutral index, the server's index and id. */
  let open: { index: number; key: number | undefined; id: string | undefined } | undefined;
  const seen = new Set<number>();
  let calls = 0;
  let finish: ReturnType<typeof readFinish> | undefined;
  let usage: unknown;
  for await (const event of events) {
    if (event.data.trim() === '[DONE]') break;
    const chunk = readChunk(event);
    const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
    const delta = choice && isRecord(choice.delta) ? choice.delta : {};
    const thought = reasoningText(delta);
    if (thought) yield { type: 'reasoning', text: thought };
    const text = contentText(delta.content) + (typeof delta.refusal === 'string' ? delta.refusal : '');
    if (text) yield { type: 'text', text };
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isRecord) : []) {
      const fn = isRecord(call.function) ? call.function : {};
      const key = typeof call.index === 'number' ? call.index : undefined;
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
      // A new call: a new index, or (servers that send whole calls without one) a new id.
      if (!open || (key !== undefined && key !== open.key) || (id !== undefined && id !== open.id)) {
        if (key !== undefined && seen.has(key)) throw new GatewayError('internal', `The upstream went back to tool call ${key} after starting another; its calls cannot be told apart.`);
        if (key !== undefined) seen.add(key);
        open = { index: calls++, key, id };
        yield { type: 'tool_call', index: open.index, name: typeof fn.name === 'string' ? fn.name : '', ...(id !== undefined ? { id } : {}) };
      }
      const args = argumentsText(fn.arguments);
      if (args) yield { type: 'tool_arguments', index: open.index, text: args };
    }
    if (choice && typeof choice.finish_reason === 'string' && choice.finish_reason !== '' && !finish) finish = readFinish(choice);
    if (isRecord(chunk.usage)) usage = chunk.usage;
    // The usage chunk comes after the finish (or with it): then nothing more is owed.
    if (finish && isRecord(chunk.usage)) break;
  }
  if (!finish) throw new GatewayError('upstream_unreachable', 'The upstream stream ended early, before its finish_reason.');
  yield { type: 'finish', ...finish, usage: readOpenAIUsage(usage) };
}

/** One chunk as an object; an upstream error (an `error` event, or `{"error":…}` data) or malformed data throws. */
function readChunk(event: SSEEvent): Json {
  let value: unknown;
  try {
    value = JSON.parse(event.data);
  } catch {
    value = undefined;
  }
  if (event.event === 'error' || (isRecord(value) && value.error !== undefined && value.error !== null)) {
    throw new GatewayError('internal', `The upstream failed: ${upstreamErrorText(value) || clip(event.data)}`);
  }
  if (!isRecord(value)) throw new GatewayError('internal', `The upstream sent a stream event that is not a JSON object: ${clip(event.data)}`);
  return value;
}

/** The message of an upstream error body: `{error:{message}}` (OpenAI, vLLM, llama.cpp), `{error:"…"}` (Ollama) or `{message}`. */
function upstreamErrorText(value: unknown): string {
  if (!isRecord(value)) return '';
  if (typeof value.error === 'string') return value.error;
  const error = isRecord(value.error) ? value.error : value;
  return typeof error.message === 'string' ? error.message : '';
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
