/**
 * `POST /messages`, rendered: the neutral generation's events as the message body or as the
 * named-event stream (`message_start` … `message_stop`).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import type { FinishReason, Generation } from '../../core/generation.ts';
import type { SSEMessage } from '../../core/sse.ts';
import { randomId } from '../../core/ids.ts';
import { anthropicErrorEvent, toAnthropicUsage } from './wire.ts';

export function toStopReason(reason: FinishReason): 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' {
  return reason === 'length' ? 'max_tokens' : reason === 'stop_sequence' ? 'stop_sequence' : reason === 'tool_calls' ? 'tool_use' : 'end_turn';
}

/** A call's arguments as the `input` object; arguments cut short (by `max_tokens`) read as `{}`. */
function toInput(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
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
      calls[event.index] = { type: 'tool_use', id: randomId('toolu_'), name: event.name, arguments: '' };
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
      ...calls.map(({ id, name, arguments: args }) => ({ type: 'tool_use', id, name, input: toInput(args) })),
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
  /** The events that open a block (closing the one before); a `ping` follows the first, as the API sends it. */
  const start = (block: Record<string, unknown>): SSEMessage[] => {
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
        for (const opening of start({ type: 'tool_use', id: randomId('toolu_'), name: item.name, input: {} })) yield opening;
        continue;
      }
      if (item.type === 'tool_arguments') {
        yield event({ type: 'content_block_delta', index: blocks - 1, delta: { type: 'input_json_delta', partial_json: item.text } });
        continue;
      }
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
