/**
 * The Messages API's client side: how the gateway speaks it to a remote server that has it (the
 * hosted API, another inpage-llm). The neutral request goes out as a Messages body (its system
 * prompt hoisted, its turns made to alternate, its calls as `tool_use` blocks); the answer, whole
 * or streamed, comes back as neutral events. Field paths in its refusals are those of the neutral
 * request's messages, which are the caller's own for a chat completion.
 * @see https://docs.anthropic.com/en/api/messages
 * @module
 */
import type { ChatMessage, ChatRequest } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { describe, invalid, isRecord } from '../../core/fields.ts';
import type { GenerationEvent } from '../../core/generation.ts';
import type { UpstreamModel } from '../../core/remote-state.ts';
import type { SSEEvent } from '../../core/sse.ts';
import { appendTurn } from '../../core/turns.ts';
import type { UpstreamClient, UpstreamRequestOptions } from '../../core/wire.ts';
import { readAnthropicUsage, readErrorType, readStopReason, usageOfCounts, type AnthropicCounts } from './codes.ts';

type Json = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Json[];
}

/** The version asked of the server when the caller did not speak this API (and so sent none). */
const ANTHROPIC_VERSION = '2023-06-01';

/** Why a field cannot go, in the refusals' words. */
const WHY = 'the upstream speaks the Anthropic Messages API';

export const ANTHROPIC_CLIENT: UpstreamClient = {
  flavour: 'anthropic',
  chatPath: '/messages',
  countPath: '/messages/count_tokens',
  namesStopSequence: true,
  headers(apiKey, caller) {
    const headers = new Headers({ 'content-type': 'application/json' });
    // Only a caller that spoke this API has a version and betas of its own to keep.
    headers.set('anthropic-version', caller?.get('anthropic-version') ?? ANTHROPIC_VERSION);
    const beta = caller?.get('anthropic-beta');
    if (beta) headers.set('anthropic-beta', beta);
    if (apiKey) headers.set('x-api-key', apiKey);
    return headers;
  },
  chatBody: toMessagesBody,
  countBody(request, model) {
    const { max_tokens: _cap, stream: _stream, stop_sequences: _stops, temperature: _t, top_p: _p, top_k: _k, metadata: _m, output_config: _o, ...count } = toMessagesBody(request, { model, stream: false, defaultMaxTokens: 1 });
    return count;
  },
  readCount(answer) {
    const count = isRecord(answer) ? answer.input_tokens : undefined;
    if (typeof count !== 'number') throw new GatewayError('internal', 'The upstream answered the token count without an input_tokens count.');
    return count;
  },
  answer: fromMessage,
  events: fromMessageEvents,
  listedModel,
};

/** A model in the Messages API's list: `created_at`, `display_name`, and its limits where it gives them. */
function listedModel(listing: readonly unknown[], id: string): UpstreamModel | undefined {
  const entry = listing.find((item) => isRecord(item) && item.id === id);
  if (!isRecord(entry)) return undefined;
  const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);
  const created = typeof entry.created_at === 'string' ? Date.parse(entry.created_at) : NaN;
  const contextWindow = count(entry.max_input_tokens);
  const maxOutputTokens = count(entry.max_tokens);
  return {
    ...(Number.isFinite(created) ? { created: Math.floor(created / 1000) } : {}),
    ...(typeof entry.display_name === 'string' && entry.display_name ? { displayName: entry.display_name } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  };
}

/**
 * The neutral request as a Messages body for `model`. `defaultMaxTokens` is used when the caller
 * set no cap (the API requires one). A 400 naming the field for what the API has no form of.
 */
export function toMessagesBody(request: ChatRequest, { model, stream, defaultMaxTokens }: UpstreamRequestOptions): Json {
  if (request.logitBias) throw invalid('logit_bias', `logit_bias is not supported for this model: ${WHY}, which has no token ids to bias.`);
  const { system, turns } = toTurns(request.messages);
  const body: Json = { model, max_tokens: request.maxTokensSet ? request.maxTokens : defaultMaxTokens, messages: turns };
  if (system) body.system = system;
  const output = toOutputConfig(request.output);
  if (output) body.output_config = output;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  // OpenAI takes 0..2, Anthropic 0..1. Both default to 1 and mean the same thing (the softmax
  // temperature), so a value up to 1 carries over as is; above it, 1 is the closest Anthropic has.
  // Scaling (t / 2) would instead make every ordinary request (t = 0.7, 1) colder than asked.
  if (request.temperature !== undefined) body.temperature = Math.min(Math.max(request.temperature, 0), 1);
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.user) body.metadata = { user_id: request.user };
  // A thinking budget, where the API can take it (at least 1024, below the cap); the server's
  // default (no thinking) otherwise, rather than a refusal of what the caller asked validly.
  const budget = request.thinkingBudget;
  if (budget !== undefined && budget >= 1024 && budget < (body.max_tokens as number)) body.thinking = { type: 'enabled', budget_tokens: budget };
  Object.assign(body, toTools(request));
  if (stream) body.stream = true;
  // OpenAI servers cache a prompt's beginning by themselves (`prompt_cache_key` only routes it);
  // Anthropic caches only up to a block marked `cache_control`: a caller that asks for caching
  // gets its whole prompt marked, so the next turn reads it from the upstream's cache.
  if (request.promptCacheKey) markForCaching(turns);
  return body;
}

/** Marks the last block of the last turn as the end of what Anthropic is to cache. */
function markForCaching(turns: Turn[]): void {
  const last = turns.at(-1)?.content.at(-1);
  if (last) last.cache_control = { type: 'ephemeral' };
}

/**
 * JSON output as Anthropic's structured output (`output_config.format`), which enforces a schema
 * while decoding as OpenAI's `json_schema` does. A bare JSON object has no counterpart: it needs a schema.
 */
function toOutputConfig(output: ChatRequest['output']): Json | undefined {
  if (!output) return undefined;
  if (output.kind === 'json_object') {
    throw invalid('response_format', `response_format of type 'json_object' is not supported for this model: ${WHY}, whose structured output needs a schema: use 'json_schema'.`);
  }
  if (Object.keys(output.schema).length === 0) throw invalid('response_format.json_schema.schema', `Missing required parameter: 'response_format.json_schema.schema'.`);
  return { format: { type: 'json_schema', schema: output.schema } };
}

/** System messages become the top-level `system`; the rest become alternating turns. */
function toTurns(messages: readonly ChatMessage[]): { system: string; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'system') {
      system.push(message.content);
      return;
    }
    const turn: Turn = message.role === 'tool' ? { role: 'user', content: [toolResult(message)] } : { role: message.role, content: message.role === 'user' ? userBlocks(message) : assistantBlocks(message, `messages[${i}]`) };
    // Anthropic refuses empty text blocks, so a turn with nothing left in it is left out.
    if (turn.content.length === 0) return;
    // Anthropic wants the roles to alternate: consecutive tool results (and the user message after
    // them) are one user turn there, as are any other neighbours of the same role (a turn of
    // blocks holds any two in order).
    appendTurn(turns, turn, (last, next) => ({ role: last.role, content: [...last.content, ...next.content] }));
  });
  return { system: system.filter((text) => text !== '').join('\n\n'), turns };
}

const text = (value: string): Json[] => (value ? [{ type: 'text', text: value }] : []);

function userBlocks(message: ChatMessage): Json[] {
  if (!message.parts) return text(message.content);
  return message.parts.flatMap((part) => (part.type === 'text' ? text(part.text) : [imageBlock(part.url)]));
}

/** An image by URL: a `data:` URL as base64 bytes, any other as a URL source. */
function imageBlock(url: string): Json {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } } : { type: 'image', source: { type: 'url', url } };
}

/** Text first, then one `tool_use` block per call, their ids kept so that the results find them. */
function assistantBlocks(message: ChatMessage, at: string): Json[] {
  return [...text(message.content), ...(message.toolCalls ?? []).map((call, k) => ({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments, `${at}.tool_calls[${k}].function.arguments`) }))];
}

/** Anthropic takes a call's input as an object; '' (a call without arguments, as some clients send it) is {}. */
function toolInput(args: string, at: string): Json {
  if (args === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    // Reported below, with the field named.
  }
  if (!isRecord(input)) throw invalid(at, `Invalid '${at}': expected a JSON object in a string, as the model produced it, but got ${describe(args)}.`);
  return input;
}

function toolResult(message: ChatMessage): Json {
  // `content` is optional there, and Anthropic refuses empty text: an empty result goes without it.
  return { type: 'tool_result', tool_use_id: message.toolCallId, ...(message.content ? { content: message.content } : {}) };
}

/** `tools` and `tool_choice`; a choice is sent only where it is not the API's default. */
function toTools(request: ChatRequest): Json {
  if (!request.tools || request.tools.length === 0) return {};
  const tools = request.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: tool.parameters,
  }));
  const choice = request.toolChoice ?? 'auto';
  let toolChoice: Json | undefined = choice === 'none' ? { type: 'none' } : choice === 'required' ? { type: 'any' } : typeof choice === 'object' ? { type: 'tool', name: choice.name } : undefined;
  // Anthropic puts this switch on the choice ('none' has none: no calls, nothing to parallelise).
  if (request.parallelToolCalls === false && toolChoice?.type !== 'none') toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return toolChoice ? { tools, tool_choice: toolChoice } : { tools };
}

/**
 * A whole message as neutral events: text, each call with its id and arguments, the finish.
 * Thinking and server-tool blocks have no neutral form for a remote model's answer: only text and
 * client tool calls cross.
 */
export function fromMessage(message: unknown): GenerationEvent[] {
  if (!isRecord(message) || message.type !== 'message' || !Array.isArray(message.content)) {
    throw new GatewayError('internal', 'The upstream answered with something that is not an Anthropic message.');
  }
  const events: GenerationEvent[] = [];
  let calls = 0;
  for (const block of message.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string' && block.text) events.push({ type: 'text', text: block.text });
    if (block.type === 'tool_use') {
      const index = calls++;
      events.push({ type: 'tool_call', index, name: String(block.name), id: String(block.id) });
      events.push({ type: 'tool_arguments', index, text: JSON.stringify(block.input ?? {}) });
    }
  }
  const counts: AnthropicCounts = {};
  readAnthropicUsage(message.usage, counts);
  events.push({ type: 'finish', ...readStopReason(message.stop_reason, message.stop_sequence), usage: usageOfCounts(counts) });
  return events;
}

/**
 * The named-event stream as neutral events, each yielded as soon as it can be made, the finish at
 * `message_stop`. An `error` event, data that is not a JSON object, or an end before message_stop throws.
 */
export async function* fromMessageEvents(events: AsyncIterable<SSEEvent>): AsyncGenerator<GenerationEvent> {
  const counts: AnthropicCounts = {};
  /** Anthropic numbers all content blocks; the neutral events number tool calls alone: block index -> call index. */
  const callIndex = new Map<number, number>();
  let finish: ReturnType<typeof readStopReason> | undefined;
  for await (const event of events) {
    let data: Json;
    try {
      const parsed: unknown = JSON.parse(event.data);
      if (!isRecord(parsed)) throw new TypeError('not an object');
      data = parsed;
    } catch {
      throw new GatewayError('internal', `The upstream sent an event that is not a JSON object: ${event.data.slice(0, 200)}`);
    }
    const type = data.type ?? event.event;
    if (type === 'error') {
      const error = isRecord(data.error) ? data.error : {};
      const message = typeof error.message === 'string' ? error.message : 'The upstream failed while streaming.';
      throw new GatewayError('upstream_error', message, { upstream: { status: readErrorType(error.type) } });
    }
    if (type === 'message_start') {
      readAnthropicUsage(isRecord(data.message) ? data.message.usage : undefined, counts);
    } else if (type === 'content_block_start') {
      const block = isRecord(data.content_block) ? data.content_block : {};
      if (block.type !== 'tool_use' || typeof data.index !== 'number') continue;
      const index = callIndex.size;
      callIndex.set(data.index, index);
      yield { type: 'tool_call', index, name: String(block.name), id: String(block.id) };
    } else if (type === 'content_block_delta') {
      const delta = isRecord(data.delta) ? data.delta : {};
      if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text) yield { type: 'text', text: delta.text };
      const index = typeof data.index === 'number' ? callIndex.get(data.index) : undefined;
      // Fragments of a server tool's input (no entry in callIndex) stay upstream, as do thinking deltas.
      if (delta.type === 'input_json_delta' && index !== undefined && typeof delta.partial_json === 'string' && delta.partial_json) yield { type: 'tool_arguments', index, text: delta.partial_json };
    } else if (type === 'message_delta') {
      readAnthropicUsage(data.usage, counts);
      const delta = isRecord(data.delta) ? data.delta : {};
      if (delta.stop_reason && !finish) finish = readStopReason(delta.stop_reason, delta.stop_sequence);
    } else if (type === 'message_stop') {
      // A server that never sent a stop_reason still ends its answer here.
      yield { type: 'finish', ...(finish ?? { reason: 'stop', stopSequence: null }), usage: usageOfCounts(counts) };
      return;
    }
    // `ping` and whatever else Anthropic adds carry nothing for the neutral events.
  }
  throw new GatewayError('upstream_unreachable', 'The upstream stream ended early: it closed before message_stop.');
}
