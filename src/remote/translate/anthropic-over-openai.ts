/**
 * Anthropic Messages over an upstream that speaks only OpenAI Chat Completions (vLLM, Ollama,
 * LM Studio, llama.cpp's server): the request goes out as a chat completion, and the answer,
 * whole or streamed, comes back as a Message. Pure translation: no fetch, no engine.
 *
 * Request paths in errors use the Anthropic notation of the local `/messages` parser
 * (`messages.2.content.0.type`), so a refused request reads the same for a local model and a remote one.
 * @see https://platform.openai.com/docs/api-reference/chat and https://docs.anthropic.com/en/api/messages
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import { describe, invalid, isRecord } from '../../core/fields.ts';
import { randomId } from '../../core/ids.ts';
import type { SSEEvent, SSEMessage } from '../../core/sse.ts';
import { anthropicErrorEvent } from '../../protocol/anthropic/wire.ts';
import { parseAnthropicToolChoice } from '../../core/tool-specs.ts';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Request: Anthropic -> OpenAI

/**
 * Anthropic Messages request body -> OpenAI chat completion request body, for `upstreamModel`.
 * Values are carried as they came (the upstream validates them); only what has no OpenAI form is
 * refused, with a 400 naming its path. Unknown top-level fields (and `thinking`) are dropped.
 */
export function toOpenAIChatRequest(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  // The one field Anthropic requires that OpenAI does not: without it the upstream would pick its own cap.
  if (body.max_tokens === undefined || body.max_tokens === null) throw invalid('max_tokens', 'max_tokens: Field required');
  const system = body.system === undefined || body.system === null ? '' : joinText(body.system, 'system');
  const out: Json = {
    model: upstreamModel,
    messages: [...(system ? [{ role: 'system', content: system }] : []), ...toMessages(body.messages)],
    max_tokens: body.max_tokens,
  };
  for (const key of ['temperature', 'top_p', 'top_k'] as const) {
    // top_k is not OpenAI's, but vLLM, llama.cpp and Ollama take it as an extension.
    if (body[key] !== undefined && body[key] !== null) out[key] = body[key];
  }
  if (Array.isArray(body.stop_sequences)) {
    // An empty stop string would end every reply at once on some servers; the local parser drops them too.
    const stop = body.stop_sequences.filter((s) => s !== '');
    if (stop.length > 0) out.stop = stop;
  }
  if (isRecord(body.metadata) && typeof body.metadata.user_id === 'string') out.user = body.metadata.user_id;
  Object.assign(out, toTools(body));
  const format = isRecord(body.output_config) ? body.output_config.format : undefined;
  if (isRecord(format)) {
    // Structured output: dropping it would return free text to a client that waits for JSON.
    if (format.type !== 'json_schema') throw invalid('output_config.format.type', `output_config.format.type: Input should be 'json_schema', got ${describe(format.type)}`);
    out.response_format = { type: 'json_schema', json_schema: { name: 'output', schema: format.schema, strict: true } };
  }
  if (body.stream === true) {
    // OpenAI sends usage only when asked, as a last chunk; message_delta needs it.
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}

function toMessages(value: unknown): Json[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid('messages', `messages: Input should be a non-empty list, got ${describe(value)}`);
  return value.flatMap((message, i): Json[] => {
    const at = `messages.${i}`;
    if (!isRecord(message)) throw invalid(at, `${at}: Input should be an object, got ${describe(message)}`);
    const { role, content } = message;
    // SDK 1.x types allow system turns among the messages; OpenAI has the same role.
    if (role === 'system') return [{ role: 'system', content: joinText(content, `${at}.content`) }];
    if (role !== 'user' && role !== 'assistant') throw invalid(`${at}.role`, `${at}.role: Input should be 'user' or 'assistant', got ${describe(role)}`);
    if (typeof content === 'string') return [{ role, content }];
    if (!Array.isArray(content)) throw invalid(`${at}.content`, `${at}.content: Input should be a string or a list of content blocks, got ${describe(content)}`);
    return role === 'user' ? userTurn(content, `${at}.content`) : [assistantTurn(content, `${at}.content`)];
  });
}

/**
 * A user turn's `tool_result` blocks become `tool` messages, placed first: OpenAI wants each result
 * right after the assistant message that made the call. Text and images follow as one user message.
 */
function userTurn(blocks: unknown[], at: string): Json[] {
  const results: Json[] = [];
  const parts: Json[] = [];
  blocks.forEach((value, j) => {
    const blockAt = `${at}.${j}`;
    const block = asBlock(value, blockAt);
    const type = block.type;
    if (type === 'text') parts.push({ type: 'text', text: textOf(block, blockAt) });
    else if (type === 'image') parts.push(imagePart(block, blockAt));
    else if (type === 'tool_result') results.push(toolMessage(block, blockAt));
    else throw unsupported(type, 'user', blockAt);
  });
  if (parts.length === 0 && results.length > 0) return results;
  // Text alone goes as one string: every OpenAI-compatible server takes that, not all take part lists.
  const textOnly = parts.every((part) => part.type === 'text');
  return [...results, { role: 'user', content: textOnly ? parts.map((part) => part.text).join('\n') : parts }];
}

function assistantTurn(blocks: unknown[], at: string): Json {
  const texts: string[] = [];
  const calls: Json[] = [];
  blocks.forEach((value, j) => {
    const blockAt = `${at}.${j}`;
    const block = asBlock(value, blockAt);
    const type = block.type;
    if (type === 'text') texts.push(textOf(block, blockAt));
    else if (type === 'tool_use') calls.push(toolCall(block, blockAt));
    // Thinking is signed for Anthropic's own models; an OpenAI upstream has no way to take it back.
    else if (type !== 'thinking' && type !== 'redacted_thinking') throw unsupported(type, 'assistant', blockAt);
  });
  const text = texts.join('\n');
  return calls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text };
}

function toolCall(block: Json, at: string): Json {
  if (typeof block.id !== 'string') throw invalid(`${at}.id`, `${at}.id: Field required`);
  if (typeof block.name !== 'string') throw invalid(`${at}.name`, `${at}.name: Field required`);
  return { id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } };
}

function toolMessage(block: Json, at: string): Json {
  if (typeof block.tool_use_id !== 'string') throw invalid(`${at}.tool_use_id`, `${at}.tool_use_id: Field required`);
  const text = block.content === undefined || block.content === null ? '' : joinText(block.content, `${at}.content`);
  // OpenAI has no error flag on a tool result: the model reads it in the text, as with the local engines.
  return { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `Error: ${text}` : text };
}

function imagePart(block: Json, at: string): Json {
  const source = block.source;
  if (!isRecord(source)) throw invalid(`${at}.source`, `${at}.source: Field required`);
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string') throw invalid(`${at}.source.media_type`, `${at}.source.media_type: Field required`);
    if (typeof source.data !== 'string') throw invalid(`${at}.source.data`, `${at}.source.data: Field required`);
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === 'url') {
    if (typeof source.url !== 'string') throw invalid(`${at}.source.url`, `${at}.source.url: Field required`);
    return { type: 'image_url', image_url: { url: source.url } };
  }
  throw invalid(`${at}.source.type`, `${at}.source.type: image sources of type ${describe(source.type)} cannot be sent to this model's upstream; send the image as base64 or a URL.`);
}

function asBlock(block: unknown, at: string): Json {
  if (!isRecord(block)) throw invalid(at, `${at}: Input should be an object, got ${describe(block)}`);
  return block;
}

function textOf(block: Json, at: string): string {
  if (typeof block.text !== 'string') throw invalid(`${at}.text`, `${at}.text: Field required`);
  return block.text;
}

/** A string, or text blocks joined (system prompts, tool results); any other block is refused. */
function joinText(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalid(at, `${at}: Input should be a string or a list of text blocks, got ${describe(value)}`);
  return value
    .map((value, k) => {
      const block = asBlock(value, `${at}.${k}`);
      if (block.type !== 'text') throw invalid(`${at}.${k}.type`, `${at}.${k}.type: only text blocks can go here to this model's upstream (OpenAI Chat Completions), got ${describe(block.type)}`);
      return textOf(block, `${at}.${k}`);
    })
    .join('\n');
}

function unsupported(type: unknown, role: string, at: string): GatewayError {
  return invalid(`${at}.type`, `${at}.type: content blocks of type ${describe(type)} in ${role} turns cannot be sent to this model's upstream (OpenAI Chat Completions).`);
}

/** `tools` and `tool_choice`. An empty `tools` list is the same as none. */
function toTools(body: Json): Json {
  const list = body.tools;
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalid('tools', `tools: Input should be a valid list, got ${describe(list)}`);
  const choice = toToolChoice(body.tool_choice);
  if (!Array.isArray(list) || list.length === 0) {
    // OpenAI servers refuse a tool_choice without tools; one that demands a call has no meaning without them.
    if (choice && choice.choice !== 'auto' && choice.choice !== 'none') throw invalid('tool_choice', 'tool_choice: a tool_choice that requires a tool call needs tools.');
    return {};
  }
  const tools = list.map((tool, i) => {
    const at = `tools.${i}`;
    if (!isRecord(tool)) throw invalid(at, `${at}: Input should be an object, got ${describe(tool)}`);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      throw invalid(`${at}.type`, `${at}.type: server tools (${describe(tool.type)}) are not available here; define a custom tool with an input_schema.`);
    }
    if (typeof tool.name !== 'string') throw invalid(`${at}.name`, `${at}.name: Field required`);
    if (!isRecord(tool.input_schema)) throw invalid(`${at}.input_schema`, `${at}.input_schema: Field required`);
    const description = typeof tool.description === 'string' ? { description: tool.description } : {};
    return { type: 'function', function: { name: tool.name, ...description, parameters: tool.input_schema } };
  });
  if (!choice) return { tools };
  return { tools, tool_choice: choice.choice, ...(choice.parallel ? {} : { parallel_tool_calls: false }) };
}

/** Anthropic's choice, read as the local endpoint reads it, in OpenAI's words; undefined when absent. */
function toToolChoice(value: unknown): { choice: unknown; parallel: boolean } | undefined {
  if (value === undefined || value === null) return undefined;
  const { choice, parallel } = parseAnthropicToolChoice(value);
  return { choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } }, parallel };
}

// ---------------------------------------------------------------------------------------------
// Response: OpenAI chat.completion -> Anthropic Message

/**
 * An OpenAI `chat.completion` -> an Anthropic Message reporting `model`. Tool call ids are kept as
 * the upstream made them, so the `tool_result` that answers one maps back to its `tool_call_id`.
 * Arguments that are not a JSON object are passed on as `{"_raw": "<the text>"}` rather than
 * faked as `{}`: the tool sees what the model wrote, and the agent loop can report it back.
 */
export function fromOpenAIChatCompletion(completion: unknown, model: string): Record<string, unknown> {
  const choice = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!isRecord(completion) || !isRecord(choice) || !isRecord(choice.message)) {
    const said = upstreamErrorText(completion);
    throw new GatewayError('internal', `The upstream's reply is not a chat completion${said ? `: ${said}` : '.'}`);
  }
  const message = choice.message;
  const text = contentText(message.content) + (typeof message.refusal === 'string' ? message.refusal : '');
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const toolUses = calls.map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    return { type: 'tool_use', id: callId(call.id), name: typeof fn.name === 'string' ? fn.name : '', input: toInput(argumentsText(fn.arguments)) };
  });
  // A reply with nothing at all still has its empty text block, as the local /messages answers
  // (the SDK's finalText() needs one); no `citations` key, as the API without cited documents.
  const content = [...(text || toolUses.length === 0 ? [{ type: 'text', text }] : []), ...toolUses];
  return { id: randomId('msg_'), type: 'message', role: 'assistant', model, content, ...toStop(choice), stop_details: null, container: null, usage: toUsage(completion.usage) };
}

function toInput(text: string): Json {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (isRecord(value)) return value;
  } catch {
    // Not JSON: fall through to the honest wrapper.
  }
  return { _raw: text };
}

/** Whether streamed arguments, complete, are what `input` must be (empty counts: it means `{}`). */
function isInputObject(text: string): boolean {
  try {
    return text.trim() === '' || isRecord(JSON.parse(text));
  } catch {
    return false;
  }
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

function callId(id: unknown): string {
  return typeof id === 'string' && id !== '' ? id : randomId('toolu_');
}

const STOP_REASONS: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', function_call: 'tool_use', content_filter: 'refusal' };

function toStop(choice: Json): { stop_reason: string; stop_sequence: string | null } {
  // vLLM names the stop string that matched in `stop_reason`; other servers only say `stop`.
  if (choice.finish_reason === 'stop' && typeof choice.stop_reason === 'string') return { stop_reason: 'stop_sequence', stop_sequence: choice.stop_reason };
  const reason = typeof choice.finish_reason === 'string' ? STOP_REASONS[choice.finish_reason] : undefined;
  return { stop_reason: reason ?? 'end_turn', stop_sequence: null };
}

/** OpenAI's `prompt_tokens` include cached ones; Anthropic counts those apart, in `cache_read_input_tokens`. */
function toUsage(usage: unknown) {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const source = isRecord(usage) ? usage : {};
  const cached = count(isRecord(source.prompt_tokens_details) ? source.prompt_tokens_details.cached_tokens : 0);
  return { input_tokens: Math.max(0, count(source.prompt_tokens) - cached), output_tokens: count(source.completion_tokens), cache_creation_input_tokens: 0, cache_read_input_tokens: cached };
}

/** The message of an upstream error body: `{error:{message}}` (OpenAI, vLLM, llama.cpp), `{error:"…"}` (Ollama) or `{message}`. */
function upstreamErrorText(value: unknown): string {
  if (!isRecord(value)) return '';
  if (typeof value.error === 'string') return value.error;
  const error = isRecord(value.error) ? value.error : value;
  return typeof error.message === 'string' ? error.message : '';
}

// ---------------------------------------------------------------------------------------------
// Stream: OpenAI chunks -> Anthropic events

/**
 * The upstream's chunks -> Anthropic events, each yielded as soon as it can be made. Blocks open as
 * their first piece arrives (text, or one `tool_use` per call `index`) and close when the next
 * begins or at the finish. message_delta waits for the usage chunk, which OpenAI sends after the
 * finish chunk. Any failure (an upstream error event, malformed data, an early end, a read that
 * throws) becomes one `error` event, and the stream ends there, without message_stop.
 *
 * Argument fragments pass through untouched; a call whose complete arguments are not a JSON object
 * (unless cut off by max_tokens, which the SDK parses as a partial prefix, as with the real API)
 * ends the stream with an error: those fragments are already sent and cannot be rewrapped, and the
 * SDK would otherwise fail with a bare SyntaxError.
 */
export async function* fromOpenAIStream(events: AsyncIterable<SSEEvent>, model: string, requestId?: string): AsyncGenerator<SSEMessage> {
  const emit = (data: { type: string } & Json): SSEMessage => ({ event: data.type, data: JSON.stringify(data) });
  yield emit({
    type: 'message_start',
    // OpenAI reports usage only at the end: message_delta carries the real counts.
    message: { id: randomId('msg_'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, stop_details: null, container: null, usage: toUsage(undefined) },
  });

  let blocks = 0; // blocks opened so far; the last one is open while `open` is set
  let open: { type: 'text' } | { type: 'tool_use'; key: number | undefined; id: string; name: string; args: string } | undefined;
  const seen = new Set<number>(); // tool call indices that already had their block
  let stop: ReturnType<typeof toStop> | undefined;
  let usage: unknown;

  type Open = NonNullable<typeof open>;
  /** The events that open a block, closing the one before. */
  const start = (block: Json, state: Open): SSEMessage[] => {
    const out = closing();
    open = state;
    out.push(emit({ type: 'content_block_start', index: blocks++, content_block: block }));
    return out;
  };
  const closing = (): SSEMessage[] => {
    if (!open) return [];
    if (open.type === 'tool_use' && stop?.stop_reason !== 'max_tokens' && !isInputObject(open.args)) {
      throw new GatewayError('internal', `The upstream sent arguments for tool call '${open.name}' that are not a JSON object: ${clip(open.args)}`);
    }
    open = undefined;
    return [emit({ type: 'content_block_stop', index: blocks - 1 })];
  };

  try {
    for await (const event of events) {
      if (event.data.trim() === '[DONE]') break;
      const chunk = readChunk(event);
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : undefined;
      const delta = choice && isRecord(choice.delta) ? choice.delta : {};

      const text = contentText(delta.content) + (typeof delta.refusal === 'string' ? delta.refusal : '');
      if (text) {
        if (open?.type !== 'text') yield* start({ type: 'text', text: '' }, { type: 'text' });
        yield emit({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'text_delta', text } });
      }

      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isRecord) : []) {
        const fn = isRecord(call.function) ? call.function : {};
        const key = typeof call.index === 'number' ? call.index : undefined;
        // A new call: a new index, or (servers that send whole calls without one) a new id.
        const fresh = open?.type !== 'tool_use' || (key !== undefined && key !== open.key) || (typeof call.id === 'string' && call.id !== '' && call.id !== open.id);
        if (fresh) {
          if (key !== undefined && seen.has(key)) throw new GatewayError('internal', `The upstream went back to tool call ${key} after starting another; its blocks cannot be reopened.`);
          if (key !== undefined) seen.add(key);
          const id = callId(call.id);
          const name = typeof fn.name === 'string' ? fn.name : '';
          yield* start({ type: 'tool_use', id, name, input: {} }, { type: 'tool_use', key, id, name, args: '' });
        }
        const args = argumentsText(fn.arguments);
        if (args && open?.type === 'tool_use') {
          open.args += args;
          yield emit({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'input_json_delta', partial_json: args } });
        }
      }

      if (choice && typeof choice.finish_reason === 'string' && choice.finish_reason !== '' && !stop) {
        stop = toStop(choice);
        // An empty reply still has its (empty) text block, as the local /messages sends it.
        if (blocks === 0) yield* start({ type: 'text', text: '' }, { type: 'text' });
        yield* closing();
      }
      if (isRecord(chunk.usage)) usage = chunk.usage;
      // The usage chunk comes after the finish (or with it): then nothing more is owed.
      if (stop && isRecord(chunk.usage)) break;
    }
    if (!stop) throw new GatewayError('upstream_unreachable', 'The upstream stream ended early, before its finish_reason.');
    yield emit({ type: 'message_delta', delta: { ...stop, stop_details: null, container: null }, usage: toUsage(usage) });
    yield emit({ type: 'message_stop' });
  } catch (error) {
    // As the gateway's own streams end: the error with the request's id (PROTOCOL §8.4).
    yield anthropicErrorEvent(error, requestId);
  }
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

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
