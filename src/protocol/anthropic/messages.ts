/**
 * `POST /messages`: request parsing into the neutral ChatRequest, and shaping of the message body
 * and the named-event stream (`message_start` … `message_stop`).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */
import type { ChatMessage, ChatRequest, ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { checkNumber, describe, invalid, isRecord, optionalBoolean, optionalNumber } from '../../core/fields.ts';
import type { FinishReason, Generation, Usage } from '../../core/generation.ts';
import type { SSEMessage } from '../../core/sse.ts';
import { toAnthropicErrorBody } from './errors.ts';
import { allowsSamplingParameters, type AnthropicVersion } from './version.ts';

export interface ParsedMessages {
  readonly chat: ChatRequest;
  readonly stream: boolean;
}

export function parseMessages(body: Readonly<Record<string, unknown>>, model: ModelInfo, version: AnthropicVersion): ParsedMessages {
  const maxTokens = body.max_tokens;
  if (maxTokens === undefined || maxTokens === null) throw invalid('max_tokens', 'max_tokens: Field required');
  const limit = model.maxOutputTokens ?? model.contextWindow;
  checkNumber(maxTokens, { integer: true, min: 1 }, 'max_tokens');
  if ((maxTokens as number) > limit) {
    throw invalid('max_tokens', `max_tokens: ${maxTokens} > ${limit}, which is the maximum allowed number of output tokens for ${model.id}`);
  }
  for (const key of ['temperature', 'top_p', 'top_k'] as const) {
    if (body[key] !== undefined && body[key] !== null && !allowsSamplingParameters(version)) {
      throw invalid(key, `${key}: not supported with anthropic-version ${version}, which removed sampling parameters; send anthropic-version 2023-06-01 to use it.`);
    }
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) throw invalid('tools', `tools: tool use is not supported by model '${model.id}'.`);
  if (isRecord(body.thinking) && body.thinking.type !== 'disabled') {
    throw invalid('thinking', `thinking: extended thinking is not supported by model '${model.id}'.`);
  }

  const system = parseSystem(body.system);
  const conversation = mergeTurns(parseTurns(body.messages));

  return {
    chat: {
      model: model.id,
      messages: system ? [{ role: 'system', content: system }, ...conversation] : conversation,
      maxTokens: maxTokens as number,
      temperature: optionalNumber(body, 'temperature', { min: 0, max: 1 }),
      topP: optionalNumber(body, 'top_p', { min: 0, max: 1 }),
      topK: optionalNumber(body, 'top_k', { integer: true, min: 0 }),
      stop: parseStopSequences(body.stop_sequences),
    },
    stream: optionalBoolean(body, 'stream') ?? false,
  };
}

function parseSystem(value: unknown): string {
  if (value === undefined || value === null) return '';
  return parseText(value, 'system');
}

function parseTurns(value: unknown): ChatMessage[] {
  if (value === undefined || value === null) throw invalid('messages', 'messages: Field required');
  if (!Array.isArray(value)) throw invalid('messages', `messages: Input should be a valid list, got ${describe(value)}`);
  if (value.length === 0) throw invalid('messages', 'messages: at least one message is required');
  return value.map((message, i) => {
    const at = `messages.${i}`;
    if (!isRecord(message)) throw invalid(at, `${at}: Input should be an object, got ${describe(message)}`);
    const role = message.role;
    // As the real API: a system prompt goes in the top-level `system`, never among the turns.
    if (role === 'system') {
      throw invalid(`${at}.role`, `messages: Unexpected role "system". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`);
    }
    if (role !== 'user' && role !== 'assistant') {
      throw invalid(`${at}.role`, `${at}.role: Input should be 'user' or 'assistant', got ${describe(role)}`);
    }
    if (message.content === undefined || message.content === null) throw invalid(`${at}.content`, `${at}.content: Field required`);
    return { role, content: parseText(message.content, `${at}.content`) };
  });
}

/** A string, or text blocks joined; any other block type is refused rather than dropped. */
function parseText(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalid(at, `${at}: Input should be a string or a list of content blocks, got ${describe(value)}`);
  return value
    .map((block, j) => {
      const blockAt = `${at}.${j}`;
      if (!isRecord(block)) throw invalid(blockAt, `${blockAt}: Input should be an object, got ${describe(block)}`);
      if (block.type !== 'text') {
        throw invalid(`${blockAt}.type`, `${blockAt}.type: content blocks of type ${describe(block.type)} are not supported: this model reads text only`);
      }
      if (typeof block.text !== 'string') throw invalid(`${blockAt}.text`, `${blockAt}.text: Field required`);
      return block.text;
    })
    .join('\n');
}

/** The real API merges consecutive turns of the same role; so do we, so templates see alternation. */
function mergeTurns(turns: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last && last.role === turn.role) merged[merged.length - 1] = { role: last.role, content: `${last.content}\n\n${turn.content}` };
    else merged.push(turn);
  }
  return merged;
}

function parseStopSequences(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) {
    throw invalid('stop_sequences', `stop_sequences: Input should be a list of strings, got ${describe(value)}`);
  }
  return (value as string[]).filter((s) => s.length > 0);
}

export function toStopReason(reason: FinishReason): 'end_turn' | 'max_tokens' | 'stop_sequence' {
  return reason === 'length' ? 'max_tokens' : reason === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
}

function toUsage(usage: Usage) {
  return { input_tokens: usage.promptTokens, output_tokens: usage.completionTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

interface MessageMeta {
  readonly id: string;
  readonly model: string;
  readonly requestId: string;
}

export async function toMessage(generation: Generation, meta: MessageMeta) {
  let text = '';
  for (;;) {
    const next = await generation.events.next();
    if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
    const event = next.value;
    if (event.type === 'text') {
      text += event.text;
      continue;
    }
    return {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [{ type: 'text', text, citations: null }],
      stop_reason: toStopReason(event.reason),
      stop_sequence: event.stopSequence,
      stop_details: null,
      container: null,
      usage: toUsage(event.usage),
    };
  }
}

/** Every event carries `event: <type>`; the SDK drops events without it. No `[DONE]`. */
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
      usage: toUsage({ promptTokens: generation.promptTokens, completionTokens: 0 }),
    },
  });
  yield event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '', citations: null } });
  yield event({ type: 'ping' });
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return;
      const item = next.value;
      if (item.type === 'text') {
        yield event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: item.text } });
        continue;
      }
      yield event({ type: 'content_block_stop', index: 0 });
      yield event({
        type: 'message_delta',
        delta: { stop_reason: toStopReason(item.reason), stop_sequence: item.stopSequence, stop_details: null, container: null },
        // Cumulative counts; input_tokens repeats (or corrects) the figure sent in message_start.
        usage: { input_tokens: item.usage.promptTokens, output_tokens: item.usage.completionTokens },
      });
      yield event({ type: 'message_stop' });
      return;
    }
  } catch (error) {
    // `usage` is an extra field the SDK ignores: what the failed generation consumed up to here.
    const { promptTokens, completionTokens } = generation.usage();
    yield event({ ...toAnthropicErrorBody(GatewayError.from(error), meta.requestId), usage: { input_tokens: promptTokens, output_tokens: completionTokens } });
  } finally {
    await generation.events.return?.(undefined);
  }
}
