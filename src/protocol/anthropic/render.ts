/**
 * `POST /messages`, rendered: the neutral generation's events as the message body or as the
 * named-event stream (`message_start` … `message_stop`).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import type { Generation, GenerationEvent, Usage } from '../../core/generation.ts';
import type { SSEMessage } from '../../core/sse.ts';
import { randomId } from '../../core/ids.ts';
import { toStream, toWhole, type AnswerWriter, type Step } from '../answer-writer.ts';
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

/**
 * A content block being written: what it holds so far (its text, its thinking, or a call's
 * arguments), and a call's id and name. One shape for all three: a token adds to `text`.
 */
interface Block {
  readonly type: 'thinking' | 'text' | 'tool_use';
  text: string;
  readonly id: string;
  readonly name: string;
}

/** The whole message: what a client makes of the stream's events. */
function messageBody(meta: MessageMeta, blocks: readonly Block[], finish: Extract<GenerationEvent, { type: 'finish' }>) {
  // No `citations` key without cited documents, as the API: the AI SDK's provider rejects a null.
  const content = blocks.map((block) =>
    block.type === 'thinking'
      ? { type: 'thinking', thinking: block.text, signature: SIGNATURE }
      : block.type === 'text'
        ? { type: 'text', text: block.text }
        : { type: 'tool_use', id: block.id, name: block.name, input: toInput(block.text, finish.reason === 'length') },
  );
  return {
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: toStopReason(finish.reason),
    stop_sequence: finish.stopSequence,
    stop_details: null,
    container: null,
    usage: toAnthropicUsage(finish.usage),
  };
}

type MessageBody = ReturnType<typeof messageBody>;

/**
 * Writes a generation as a message: the named-event stream (`stream`), then, from the same
 * blocks, the whole message as the last step. Every event carries `event: <type>`; the SDK drops
 * events without it. No `[DONE]`. A block is opened when its first piece arrives (closing the one
 * before): a `thinking` block (when shown) with `thinking_delta` fragments, a text block, or a
 * `tool_use` block per call whose arguments come as `input_json_delta` fragments; a `ping` follows
 * the first, as the API sends it. A reply of calls alone has no text block (the API refuses empty
 * text blocks sent back to it); an empty one has its empty text block. `start` writes the opening
 * event into `out`, `push` the events of each generation event; a delta (one a token) is written
 * as `event` would write it with only its text encoded; a whole answer encodes nothing but its body.
 */
function messageWriter(meta: MessageMeta, stream: boolean): AnswerWriter<MessageBody> {
  const event = (data: { type: string } & Record<string, unknown>): SSEMessage => ({ event: data.type, data: JSON.stringify(data) });
  const blocks: Block[] = [];
  /** The open block: the last one. */
  let open: Block | undefined;
  /** The open block's delta event before its fragment: as `event` writes it. */
  let deltaHead = '';
  const delta = (text: string): SSEMessage => ({ event: 'content_block_delta', data: `${deltaHead}${JSON.stringify(text)}}}` });
  /**
   * A call's arguments are already sent as fragments, and cannot be rewrapped: ones that are not a
   * JSON object (only a remote model's server can send such) end the stream with an error, where
   * the SDK would otherwise fail with a bare SyntaxError. Ones cut off by `max_tokens` are left to
   * the client, which parses a partial prefix as it does the real API's. A whole message, which
   * can rewrap them, gives them as `{"_raw": …}` (toInput).
   */
  const checkCall = () => {
    if (stream && open?.type === 'tool_use' && !isInputObject(open.text)) {
      const args = open.text;
      throw new GatewayError('internal', `The arguments of tool call '${open.name}' are not a JSON object: ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`);
    }
  };
  /** Opens a block (`wire`: its `content_block_start` form), its fragments as `deltaType` deltas of `field`. */
  function openBlock(out: Step<MessageBody>[], type: Block['type'], wire: Record<string, unknown>, deltaType: string, field: string, id = '', name = ''): void {
    checkCall();
    const index = blocks.length;
    const block: Block = { type, text: '', id, name };
    blocks.push(block);
    const closing = open;
    open = block;
    if (!stream) return;
    if (closing) out.push(event({ type: 'content_block_stop', index: index - 1 }));
    out.push(event({ type: 'content_block_start', index, content_block: wire }));
    if (index === 0) out.push(event({ type: 'ping' }));
    deltaHead = `{"type":"content_block_delta","index":${JSON.stringify(index)},"delta":{"type":${JSON.stringify(deltaType)},${JSON.stringify(field)}:`;
  }
  function start(usage: Usage, out: Step<MessageBody>[]): void {
    if (!stream) return;
    out.push(event({
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
        usage: toAnthropicUsage({ ...usage, completionTokens: 0 }),
      },
    }));
  }
  function push(item: GenerationEvent, out: Step<MessageBody>[]): void {
    if (item.type === 'reasoning') {
      if (!meta.showThinking) return;
      if (open?.type !== 'thinking') openBlock(out, 'thinking', { type: 'thinking', thinking: '', signature: SIGNATURE }, 'thinking_delta', 'thinking');
      open!.text += item.text;
      if (stream) out.push(delta(item.text));
      return;
    }
    if (item.type === 'text') {
      if (open?.type !== 'text') openBlock(out, 'text', { type: 'text', text: '' }, 'text_delta', 'text');
      open!.text += item.text;
      if (stream) out.push(delta(item.text));
      return;
    }
    if (item.type === 'tool_call') {
      const id = item.id ?? randomId('toolu_');
      openBlock(out, 'tool_use', { type: 'tool_use', id, name: item.name, input: {} }, 'input_json_delta', 'partial_json', id, item.name);
      return;
    }
    if (item.type === 'tool_arguments') {
      if (open?.type === 'tool_use') open.text += item.text;
      if (stream) out.push(delta(item.text));
      return;
    }
    if (item.reason !== 'length') checkCall();
    // An empty reply still has its (empty) text block, as before any tool use.
    if (!open || open.type === 'thinking') openBlock(out, 'text', { type: 'text', text: '' }, 'text_delta', 'text');
    if (stream) {
      out.push(event({ type: 'content_block_stop', index: blocks.length - 1 }));
      out.push(event({
        type: 'message_delta',
        delta: { stop_reason: toStopReason(item.reason), stop_sequence: item.stopSequence, stop_details: null, container: null },
        // Cumulative counts; the input counts repeat (or correct) the figures sent in message_start.
        usage: toAnthropicUsage(item.usage),
      }));
      out.push(event({ type: 'message_stop' }));
    }
    out.push({ final: messageBody(meta, blocks, item) });
  }
  return { start, push };
}

/** Drains the generation into the message body. */
export function toMessage(generation: Generation, meta: MessageMeta) {
  return toWhole(generation, messageWriter(meta, false));
}

/** The event stream (see messageWriter). A failure after the first byte ends it with one `error` event. */
export function toMessageEvents(generation: Generation, meta: MessageMeta): AsyncGenerator<SSEMessage> {
  return toStream(generation, messageWriter(meta, true), (error, usage) => anthropicErrorEvent(error, meta.requestId, usage));
}
