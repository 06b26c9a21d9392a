/**
 * OpenAI Chat Completions over an upstream that speaks only the Anthropic Messages API: the
 * request body one way, the message body and the event stream the other. Pure data in, data out;
 * the gateway does the HTTP.
 * @see https://platform.openai.com/docs/api-reference/chat
 * @see https://docs.anthropic.com/en/api/messages
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import { describe, invalid, isRecord } from '../../core/fields.ts';
import { randomId } from '../../core/ids.ts';
import type { SSEEvent, SSEMessage } from '../../core/sse.ts';
import { openAIErrorEvent, toOpenAIUsage } from '../../protocol/openai/wire.ts';

type Block = Record<string, unknown>;
interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * OpenAI chat completion request body -> Anthropic Messages request body for `upstreamModel`.
 * `defaultMaxTokens` is used when the caller gave no max_tokens / max_completion_tokens (Anthropic
 * requires one). Throws GatewayError('invalid_request', message, { param }) for what cannot be translated.
 */
export function toAnthropicMessagesRequest(body: Record<string, unknown>, upstreamModel: string, defaultMaxTokens: number): Record<string, unknown> {
  const why = 'the upstream speaks the Anthropic Messages API';
  const outputConfig = toOutputConfig(body.response_format, why);
  if (typeof body.n === 'number' && body.n > 1) throw invalid('n', `'n' > 1 is not supported for this model (${why}): ask for one choice per request.`);
  if (body.logprobs === true) throw invalid('logprobs', `logprobs are not supported for this model: ${why}, which has no token probabilities.`);
  // An empty map biases nothing, and null is none; anything else would be dropped unapplied.
  if (body.logit_bias !== undefined && body.logit_bias !== null && !(isRecord(body.logit_bias) && Object.keys(body.logit_bias).length === 0)) {
    throw invalid('logit_bias', `logit_bias is not supported for this model: ${why}, which has no token ids to bias.`);
  }

  const { system, turns } = translateMessages(body.messages);
  const request: Record<string, unknown> = { model: upstreamModel, max_tokens: maxTokens(body, defaultMaxTokens), messages: turns };
  if (system) request.system = system;
  if (outputConfig) request.output_config = outputConfig;

  const stop = body.stop;
  const stops = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter((s): s is string => typeof s === 'string' && s !== '');
  if (stops.length > 0) request.stop_sequences = stops;
  const temperature = optionalNumber(body, 'temperature');
  // OpenAI takes 0..2, Anthropic 0..1. Both default to 1 and mean the same thing (the softmax
  // temperature), so a value up to 1 carries over as is; above it, 1 is the closest Anthropic has.
  // Scaling (t / 2) would instead make every ordinary request (t = 0.7, 1) colder than asked.
  if (temperature !== undefined) request.temperature = Math.min(Math.max(temperature, 0), 1);
  const topP = optionalNumber(body, 'top_p');
  if (topP !== undefined) request.top_p = topP;
  // `safety_identifier` is the newer name OpenAI gives the same opaque end-user id.
  const user = body.safety_identifier ?? body.user;
  if (typeof user === 'string' && user) request.metadata = { user_id: user };
  Object.assign(request, translateTools(body));
  if (body.stream === true) request.stream = true;
  // OpenAI servers cache a prompt's beginning by themselves (`prompt_cache_key` only routes it);
  // Anthropic caches only up to a block marked `cache_control`: a caller that asks for caching
  // gets its whole prompt marked, so the next turn reads it from the upstream's cache.
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '') markForCaching(turns);
  return request;
}

/** Marks the last block of the last turn as the end of what Anthropic is to cache. */
function markForCaching(turns: Turn[]): void {
  const last = turns.at(-1)?.content.at(-1);
  if (last) last.cache_control = { type: 'ephemeral' };
}

function optionalNumber(body: Record<string, unknown>, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(key, `Invalid type for '${key}': expected a number, but got ${describe(value)}.`);
  return value;
}

function maxTokens(body: Record<string, unknown>, fallback: number): number {
  // max_completion_tokens is the current name, max_tokens the deprecated one; the current one wins.
  const key = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const value = optionalNumber(body, key);
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw invalid(key, `Invalid '${key}': expected an integer of at least 1, but got ${value}.`);
  return value;
}

/**
 * OpenAI's `json_schema` response format as Anthropic's structured output (`output_config.format`),
 * which enforces the schema while decoding as OpenAI's does. `json_object` has no counterpart:
 * Anthropic's needs a schema.
 */
function toOutputConfig(format: unknown, why: string): Record<string, unknown> | undefined {
  if (!isRecord(format) || format.type === 'text' || format.type === undefined) return undefined;
  if (format.type === 'json_schema' && isRecord(format.json_schema) && isRecord(format.json_schema.schema)) {
    return { format: { type: 'json_schema', schema: format.json_schema.schema } };
  }
  if (format.type === 'json_schema') throw invalid('response_format.json_schema.schema', `Missing required parameter: 'response_format.json_schema.schema'.`);
  throw invalid('response_format', `response_format of type ${describe(format.type)} is not supported for this model: ${why}, whose structured output needs a schema: use 'json_schema'.`);
}

/** System and developer messages become the top-level `system`; the rest become alternating turns. */
function translateMessages(messages: unknown): { system: string; turns: Turn[] } {
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages', `Invalid 'messages': expected a non-empty array, but got ${describe(messages)}.`);
  const system: string[] = [];
  const turns: Turn[] = [];
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(message)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(message)}.`);
    const { role } = message;
    if (role === 'system' || role === 'developer') {
      system.push(textOf(message.content, `${at}.content`));
      return;
    }
    let turn: Turn;
    if (role === 'user') turn = { role, content: userBlocks(message.content, `${at}.content`) };
    else if (role === 'assistant') turn = { role, content: assistantBlocks(message, at) };
    else if (role === 'tool') turn = { role: 'user', content: [toolResult(message, at)] };
    else throw invalid(`${at}.role`, `Invalid value: ${describe(role)}. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`);
    // Anthropic refuses empty text blocks, so a turn with nothing left in it is left out.
    if (turn.content.length === 0) return;
    // Anthropic wants the roles to alternate: consecutive tool results (and the user message after
    // them) are one user turn there, as are any other neighbours of the same role.
    const last = turns.at(-1);
    if (last?.role === turn.role) last.content.push(...turn.content);
    else turns.push(turn);
  });
  return { system: system.filter((text) => text !== '').join('\n\n'), turns };
}

/** A string, or an array of text parts (their texts joined by newlines, as the local engines read them). */
function textOf(content: unknown, at: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw invalid(at, `Invalid type for '${at}': expected a string or an array of text parts, but got ${describe(content)}.`);
  return content.map((part, j) => partText(part, `${at}[${j}]`)).join('\n');
}

function partText(part: unknown, at: string): string {
  if (!isRecord(part)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(part)}.`);
  // A refusal part is what an assistant said earlier, so it goes back as its text.
  const key = part.type === 'text' ? 'text' : part.type === 'refusal' ? 'refusal' : undefined;
  if (!key) throw invalid(`${at}.type`, `Content parts of type ${describe(part.type)} cannot be sent to this model: only text is accepted here.`);
  if (typeof part[key] !== 'string') throw invalid(`${at}.${key}`, `Missing required parameter: '${at}.${key}'.`);
  return part[key];
}

const text = (value: string): Block[] => (value ? [{ type: 'text', text: value }] : []);

function userBlocks(content: unknown, at: string): Block[] {
  if (typeof content === 'string') return text(content);
  if (!Array.isArray(content)) throw invalid(at, `Invalid type for '${at}': expected a string or an array of content parts, but got ${describe(content)}.`);
  return content.flatMap((part, j): Block[] => {
    const partAt = `${at}[${j}]`;
    if (isRecord(part) && part.type === 'image_url') return [imageBlock(part.image_url, `${partAt}.image_url`)];
    if (isRecord(part) && part.type !== 'text') {
      throw invalid(`${partAt}.type`, `Content parts of type ${describe(part.type)} cannot be sent to this model: the upstream speaks the Anthropic Messages API, which takes text and images only.`);
    }
    return text(partText(part, partAt));
  });
}

function imageBlock(image: unknown, at: string): Block {
  const url = isRecord(image) ? image.url : undefined;
  if (typeof url !== 'string') throw invalid(`${at}.url`, `Missing required parameter: '${at}.url'.`);
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalid(`${at}.url`, `Invalid '${at}.url': expected an http(s) URL or a base64 data URL.`);
}

/** Text first, then one `tool_use` block per call, their ids kept so that the results find them. */
function assistantBlocks(message: Record<string, unknown>, at: string): Block[] {
  const blocks = text(textOf(message.content, `${at}.content`));
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) throw invalid(`${at}.tool_calls`, `Invalid type for '${at}.tool_calls': expected an array, but got ${describe(calls)}.`);
  calls.forEach((call, k) => {
    const callAt = `${at}.tool_calls[${k}]`;
    const fn = isRecord(call) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== 'string') throw invalid(`${callAt}.id`, `Missing required parameter: '${callAt}.id'.`);
    if (!isRecord(fn) || typeof fn.name !== 'string') throw invalid(`${callAt}.function.name`, `Missing required parameter: '${callAt}.function.name'.`);
    blocks.push({ type: 'tool_use', id: call.id, name: fn.name, input: toolInput(fn.arguments, `${callAt}.function.arguments`) });
  });
  return blocks;
}

/** Anthropic takes a call's input as an object; '' (a call without arguments, as some clients send it) is {}. */
function toolInput(args: unknown, at: string): Record<string, unknown> {
  if (args === '') return {};
  let input: unknown;
  try {
    input = typeof args === 'string' ? JSON.parse(args) : undefined;
  } catch {
    // Reported below, with the field named.
  }
  if (!isRecord(input)) throw invalid(at, `Invalid '${at}': expected a JSON object in a string, as the model produced it, but got ${describe(args)}.`);
  return input;
}

function toolResult(message: Record<string, unknown>, at: string): Block {
  if (typeof message.tool_call_id !== 'string') throw invalid(`${at}.tool_call_id`, `Missing required parameter: '${at}.tool_call_id'.`);
  const content = textOf(message.content, `${at}.content`);
  // `content` is optional there, and Anthropic refuses empty text: an empty result goes without it.
  return { type: 'tool_result', tool_use_id: message.tool_call_id, ...(content ? { content } : {}) };
}

/** `tools`, `tool_choice` and `parallel_tool_calls`. */
function translateTools(body: Record<string, unknown>): Record<string, unknown> {
  const { tools: list, tool_choice: choice } = body;
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalid('tools', `Invalid type for 'tools': expected an array, but got ${describe(list)}.`);
  if (!Array.isArray(list) || list.length === 0) {
    // As OpenAI: a choice among no tools is a mistake worth naming, not something to drop.
    if (choice !== undefined && choice !== null) throw invalid('tool_choice', `Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.`);
    return {};
  }
  const tools = list.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool) || tool.type !== 'function') throw invalid(`${at}.type`, `Invalid value: ${describe(isRecord(tool) ? tool.type : tool)}. Only tools of type 'function' can be sent to this model.`);
    const fn = tool.function;
    if (!isRecord(fn) || typeof fn.name !== 'string') throw invalid(`${at}.function.name`, `Missing required parameter: '${at}.function.name'.`);
    return {
      name: fn.name,
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      // OpenAI lets a function take no parameters at all; Anthropic requires an object schema.
      input_schema: fn.parameters ?? { type: 'object', properties: {} },
    };
  });

  let toolChoice: Record<string, unknown> | undefined;
  if (choice === 'auto' || choice === 'none') toolChoice = { type: choice };
  else if (choice === 'required') toolChoice = { type: 'any' };
  else if (isRecord(choice) && choice.type === 'function' && isRecord(choice.function) && typeof choice.function.name === 'string') toolChoice = { type: 'tool', name: choice.function.name };
  else if (choice !== undefined && choice !== null) {
    throw invalid('tool_choice', `Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {"type": "function", "function": {"name": ...}}, but got ${describe(choice)}.`);
  }
  // Anthropic puts this switch on the choice ('none' has none: no calls, nothing to parallelise).
  if (body.parallel_tool_calls === false && toolChoice?.type !== 'none') toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return toolChoice ? { tools, tool_choice: toolChoice } : { tools };
}

/** A Map, not an object literal: an upstream's 'constructor' must not find Object.prototype's. */
const FINISH_REASONS = new Map<unknown, string>([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  // A server-tool loop paused: the turn ends here for a client that cannot resume it.
  ['pause_turn', 'stop'],
  ['max_tokens', 'length'],
  // The reply ran out of room too, only against the context window instead of max_tokens.
  ['model_context_window_exceeded', 'length'],
  ['tool_use', 'tool_calls'],
  ['refusal', 'content_filter'],
]);

function finishReason(stopReason: unknown): string {
  return FINISH_REASONS.get(stopReason) ?? 'stop';
}

/** Anthropic counts cached input apart from `input_tokens`; OpenAI's prompt_tokens include it. */
function inputTokens(usage: Record<string, unknown>): number {
  const count = (key: string) => (typeof usage[key] === 'number' ? usage[key] : 0);
  return count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens');
}

/** What Anthropic read from its cache: OpenAI's `prompt_tokens_details.cached_tokens`. */
function cacheReads(usage: Record<string, unknown>): number {
  return typeof usage.cache_read_input_tokens === 'number' ? usage.cache_read_input_tokens : 0;
}

/**
 * An Anthropic Message JSON (as the upstream sent it) -> an OpenAI chat.completion object; `model`
 * is the id to report. Throws GatewayError('internal', ...) when the JSON is not a message.
 */
export function fromAnthropicMessage(message: unknown, model: string): Record<string, unknown> {
  if (!isRecord(message) || message.type !== 'message' || !Array.isArray(message.content)) {
    throw new GatewayError('internal', 'The upstream answered with something that is not an Anthropic message.');
  }
  let content = '';
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  // Thinking and server-tool blocks have no place in a chat completion: only text and client tool calls cross.
  for (const block of message.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') content += block.text;
    if (block.type === 'tool_use') calls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
  }
  const usage = isRecord(message.usage) ? message.usage : {};
  const completion = typeof usage.output_tokens === 'number' ? usage.output_tokens : 0;
  return {
    id: randomId('chatcmpl-'),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: content || (calls.length > 0 ? null : ''), refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        logprobs: null,
        finish_reason: finishReason(message.stop_reason),
      },
    ],
    usage: toOpenAIUsage({ promptTokens: inputTokens(usage), completionTokens: completion, cachedTokens: cacheReads(usage) }),
  };
}

/**
 * Takes in a stream's usage counts. They are cumulative, so each replaces, never adds to, the one
 * before; one left out or null (message_delta often has output_tokens alone) keeps its last value.
 * Returns the output count.
 */
function count(usage: Record<string, unknown>, input: Record<string, unknown>, output: number): number {
  for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) {
    if (typeof usage[key] === 'number') input[key] = usage[key];
  }
  return typeof usage.output_tokens === 'number' ? usage.output_tokens : output;
}

/**
 * OpenAI's name for an Anthropic error type where it has one (overloaded: the type this project's
 * own 503s carry); any other failure mid-stream is the server's.
 */
const ERROR_TYPES = new Map<unknown, string>([
  ['invalid_request_error', 'invalid_request_error'],
  ['rate_limit_error', 'rate_limit_error'],
  ['overloaded_error', 'service_unavailable_error'],
]);

/** openai-node throws an APIError for a plain `data:` event whose JSON has a top-level `error`. */
function errorChunk(message: string, type = 'server_error'): SSEMessage {
  return { data: JSON.stringify({ error: { message, type, param: null, code: null } }) };
}

/**
 * The upstream's Anthropic SSE events (decoded, see createSSEParser in src/core/sse.ts) -> OpenAI
 * SSE messages ({data}, no event names), yielded as soon as each can be produced (no buffering),
 * ending with {data:'[DONE]'}. An upstream `error` event, a stream cut short, or a failure reading
 * `events` (a GatewayError thrown there keeps its code) ends it with an in-band error chunk
 * instead, without `[DONE]`: the response has already started, so no status can say it.
 */
export async function* fromAnthropicStream(events: AsyncIterable<SSEEvent>, model: string, options: { includeUsage: boolean }): AsyncGenerator<SSEMessage> {
  const id = randomId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], usage?: unknown): SSEMessage => ({
    data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...(options.includeUsage ? { usage: usage ?? null } : {}) }),
  });
  const choice = (delta: object, finish: string | null = null) => chunk([{ index: 0, delta, logprobs: null, finish_reason: finish }]);

  let started = false;
  let finished = false;
  /** The input counters as last reported (message_start, then maybe message_delta), and the output count. */
  const input: Record<string, unknown> = {};
  let completion = 0;
  /** Anthropic numbers all content blocks; OpenAI numbers tool calls alone: block index -> call index. */
  const callIndex = new Map<number, number>();
  try {
    for await (const event of events) {
      let data: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(event.data);
        if (!isRecord(parsed)) throw new TypeError('not an object');
        data = parsed;
      } catch {
        yield errorChunk(`The upstream sent an event that is not a JSON object: ${event.data.slice(0, 200)}`);
        return;
      }
      const type = data.type ?? event.event;
      if (type === 'error') {
        const error = isRecord(data.error) ? data.error : {};
        const message = typeof error.message === 'string' ? error.message : 'The upstream failed while streaming.';
        yield errorChunk(message, ERROR_TYPES.get(error.type));
        return;
      }
      // The role chunk opens the stream; it is due before any content even from an upstream that skipped message_start.
      if (!started && type !== 'ping') {
        started = true;
        yield choice({ role: 'assistant', content: '' });
      }
      if (type === 'message_start') {
        const usage = isRecord(data.message) && isRecord(data.message.usage) ? data.message.usage : {};
        completion = count(usage, input, completion);
      } else if (type === 'content_block_start') {
        const block = isRecord(data.content_block) ? data.content_block : {};
        if (block.type !== 'tool_use' || typeof data.index !== 'number') continue;
        const index = callIndex.size;
        callIndex.set(data.index, index);
        yield choice({ tool_calls: [{ index, id: String(block.id), type: 'function', function: { name: String(block.name), arguments: '' } }] });
      } else if (type === 'content_block_delta') {
        const delta = isRecord(data.delta) ? data.delta : {};
        if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text) yield choice({ content: delta.text });
        const index = typeof data.index === 'number' ? callIndex.get(data.index) : undefined;
        // Fragments of a server tool's input (no entry in callIndex) stay upstream, as do thinking deltas.
        if (delta.type === 'input_json_delta' && index !== undefined && typeof delta.partial_json === 'string' && delta.partial_json) {
          yield choice({ tool_calls: [{ index, function: { arguments: delta.partial_json } }] });
        }
      } else if (type === 'message_delta') {
        completion = count(isRecord(data.usage) ? data.usage : {}, input, completion);
        const stopReason = isRecord(data.delta) ? data.delta.stop_reason : undefined;
        if (stopReason && !finished) {
          finished = true;
          yield choice({}, finishReason(stopReason));
        }
      } else if (type === 'message_stop') {
        // The SDK's stream helper needs a finish_reason even from an upstream that never sent a stop_reason.
        if (!finished) yield choice({}, 'stop');
        // Usage waits for the end: a later message_delta may still correct the counts.
        if (options.includeUsage) yield chunk([], toOpenAIUsage({ promptTokens: inputTokens(input), completionTokens: completion, cachedTokens: cacheReads(input) }));
        yield { data: '[DONE]' };
        return;
      }
      // `ping` and whatever else Anthropic adds carry nothing for an OpenAI client.
    }
    yield errorChunk('The upstream stream ended early: it closed before message_stop.');
  } catch (error) {
    yield openAIErrorEvent(error);
  }
}
