/**
 * `POST /messages`, rendered: the neutral generation's events as the message body or as the
 * named-event stream (`message_start` … `message_stop`).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import type { Generation } from '../../core/generation.ts';
import type { SSEMessage } from '../../core/sse.ts';
import { randomId } from '../../core/ids.ts';
import { toAnthropicUsage, toStopReason } from './codes.ts';
import { anthropicErrorEvent } from './wire.ts';

/** The finish as this API names it, from the family's table (codes.ts). */
export { toStopReason };

/**
 * A call's arguments as the `input` object. Arguments cut short (by `max_tokens`) read as `{}`; any
 * other that is not a JSON object (a remote model's server sent it: a local model's calls are held
 * to their schema) is passed on as `{"_raw": "<the text>"}` rather than faked as `{}`, so the tool
 * sees what the model wrote and the agent loop can report it back. No arguments at all are `{}`.
 */
function toInput(text: string, cut: boolean): Record<string, unknown> {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not JSON: below.
  }
  return cut ? {} : { _raw: text };
}

/** Whether complete arguments are what `input` must be (none at all count: they mean `{}`). */
function isInputObject(text: string): boolean {
  try {
    const value = text.trim() === '' ? {} : (JSON.parse(text) as unknown);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}


interface MessageMeta {
  readonly id: string;
  readonly model: string;
  readonly requestId: string;
  /** Show the thinking as `thinking` blocks (the request enabled it); else it is left out. */
  readonly showThinking?: boolean;
}

/** A local model's thinking carries no signature: nothing here can verify one. */
const SIGNATURE = '';

export async function toMessage(generation: Generation, meta: MessageMeta) {
  let text = '';
  let thinking = '';
  const calls: { type: 'tool_use'; id: string; name: string; arguments: string }[] = [];
  for (;;) {
    const next = await generation.events.next();
    if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
    const event = next.value;
    if (event.type === 'text') {
      text += event.text;
      continue;
    }
    if (event.type === 'reasoning') {
      thinking += event.text;
      continue;
    }
    if (event.type === 'tool_call') {
      calls[event.index] = { type: 'tool_use', id: event.id ?? randomId('toolu_'), name: event.name, arguments: '' };
      continue;
    }
    if (event.type === 'tool_arguments') {
      calls[event.index]!.arguments += event.text;
      continue;
    }
    // A reply of calls alone has no text block: the API refuses empty text blocks sent back to it.
    // No `citations` key without cited documents, as the API: the AI SDK's provider rejects a null.
    const blocks = [
      ...(meta.showThinking && thinking ? [{ type: 'thinking', thinking, signature: SIGNATURE }] : []),
      ...(text || calls.length === 0 ? [{ type: 'text', text }] : []),
      ...calls.map(({ id, name, arguments: args }) => ({ type: 'tool_use', id, name, input: toInput(args, event.reason === 'length') })),
    ];
    return {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: blocks,
      stop_reason: toStopReason(event.reason),
      stop_sequence: event.stopSequence,
      stop_details: null,
      container: null,
      usage: toAnthropicUsage(event.usage),
    };
  }
}

/**
 * Every event carries `event: <type>`; the SDK drops events without it. No `[DONE]`. A block is
 * opened when its first piece arrives: a `thinking` block (when shown) with `thinking_delta`
 * fragments, a text block, or a `tool_use` block per call whose arguments come as
 * `input_json_delta` fragments.
 */
export async function* toMessageEvents(generation: Generation, meta: MessageMeta): AsyncGenerator<SSEMessage> {
  const event = (data: { type: string } & Record<string, unknown>): SSEMessage => ({ event: data.type, data: JSON.stringify(data) });
  yield event({
    type: 'message_start',
    message: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: toAnthropicUsage({ ...generation.usage(), completionTokens: 0 }),
    },
  });
  /** Blocks opened so far; the last one is open. */
  let blocks = 0;
  let open: 'thinking' | 'text' | 'tool_use' | undefined;
  /** The open tool_use block's call, its arguments so far. */
  let call: { name: string; args: string } | undefined;
  /**
   * A call's arguments are already sent as fragments, and cannot be rewrapped: ones that are not a
   * JSON object (only a remote model's server can send such) end the stream with an error, where
   * the SDK would otherwise fail with a bare SyntaxError. Ones cut off by `max_tokens` are left to
   * the client, which parses a partial prefix as it does the real API's.
   */
  const checkCall = () => {
    if (call && !isInputObject(call.args)) throw new GatewayError('internal', `The arguments of tool call '${call.name}' are not a JSON object: ${call.args.length > 200 ? `${call.args.slice(0, 200)}…` : call.args}`);
  };
  /** The events that open a block (closing the one before); a `ping` follows the first, as the API sends it. */
  const start = (block: Record<string, unknown>): SSEMessage[] => {
    checkCall();
    call = undefined;
    const out = open ? [event({ type: 'content_block_stop', index: blocks - 1 })] : [];
    open = block.type as 'thinking' | 'text' | 'tool_use';
    out.push(event({ type: 'content_block_start', index: blocks++, content_block: block }));
    if (blocks === 1) out.push(event({ type: 'ping' }));
    return out;
  };
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return;
      const item = next.value;
      if (item.type === 'reasoning') {
        if (!meta.showThinking) continue;
        if (open !== 'thinking') for (const opening of start({ type: 'thinking', thinking: '', signature: SIGNATURE })) yield opening;
        yield event({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'thinking_delta', thinking: item.text } });
        continue;
      }
      if (item.type === 'text') {
        if (open !== 'text') for (const opening of start({ type: 'text', text: '' })) yield opening;
        yield event({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'text_delta', text: item.text } });
        continue;
      }
      if (item.type === 'tool_call') {
        for (const opening of start({ type: 'tool_use', id: item.id ?? randomId('toolu_'), name: item.name, input: {} })) yield opening;
        call = { name: item.name, args: '' };
        continue;
      }
      if (item.type === 'tool_arguments') {
        if (call) call.args += item.text;
        yield event({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'input_json_delta', partial_json: item.text } });
        continue;
      }
      if (item.reason !== 'length') checkCall();
      // An empty reply still has its (empty) text block, as before any tool use.
      if (!open || open === 'thinking') for (const opening of start({ type: 'text', text: '' })) yield opening;
      yield event({ type: 'content_block_stop', index: blocks - 1 });
      yield event({
        type: 'message_delta',
        delta: { stop_reason: toStopReason(item.reason), stop_sequence: item.stopSequence, stop_details: null, container: null },
        // Cumulative counts; the input counts repeat (or correct) the figures sent in message_start.
        usage: toAnthropicUsage(item.usage),
      });
      yield event({ type: 'message_stop' });
      return;
    }
  } catch (error) {
    yield anthropicErrorEvent(error, meta.requestId, generation.usage());
  } finally {
    await generation.events.return?.(undefined);
  }
}
