/**
 * `POST /chat/completions`, rendered: the neutral generation's events as one `chat.completion`
 * body or as the `chat.completion.chunk` stream.
 * @see https://platform.openai.com/docs/api-reference/chat
 * @module
 */
import type { Generation } from '../../../core/generation.ts';
import type { SSEMessage } from '../../../core/sse.ts';
import { GatewayError } from '../../../core/errors.ts';
import { randomId } from '../../../core/ids.ts';
import { toFinishReason, toOpenAIUsage } from '../codes.ts';
import { openAIErrorEvent } from '../wire.ts';

/** The finish as this API names it, from the family's table (codes.ts). */
export { toFinishReason };

interface CompletionMeta {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** The model thinks: its message carries `reasoning_content` (null when it did not think), as vLLM's and SGLang's do. */
  readonly reasons?: boolean;
}

/** Drains the generation into one `chat.completion` body. */
export async function toChatCompletion(generation: Generation, meta: CompletionMeta) {
  let content = '';
  let reasoning = '';
  const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = [];
  for (;;) {
    const next = await generation.events.next();
    if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
    const event = next.value;
    if (event.type === 'text') {
      content += event.text;
      continue;
    }
    if (event.type === 'reasoning') {
      reasoning += event.text;
      continue;
    }
    if (event.type === 'tool_call') {
      calls[event.index] = { id: event.id ?? randomId('call_'), type: 'function', function: { name: event.name, arguments: '' } };
      continue;
    }
    if (event.type === 'tool_arguments') {
      calls[event.index]!.function.arguments += event.text;
      continue;
    }
    const message = {
      role: 'assistant' as const,
      content: calls.length > 0 ? content || null : content,
      ...(meta.reasons ? { reasoning_content: reasoning || null } : {}),
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
    return {
      id: meta.id,
      object: 'chat.completion',
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: toFinishReason(event.reason) }],
      usage: toOpenAIUsage(event.usage),
    };
  }
}

/**
 * The chunk sequence: a role chunk, `reasoning_content` chunks of a thinking model's thinking,
 * content chunks (or tool call chunks: the first of each call
 * with its index, id and name, then its argument fragments), a finish chunk, the usage chunk when
 * asked for, then `[DONE]`. A failure after the first byte becomes an in-band `{"error":…, "usage":…}` event.
 */
export async function* toChatCompletionChunks(generation: Generation, meta: CompletionMeta, includeUsage: boolean): AsyncGenerator<SSEMessage> {
  const chunk = (choices: unknown[], usage?: unknown) =>
    ({
      data: JSON.stringify({
        id: meta.id,
        object: 'chat.completion.chunk',
        created: meta.created,
        model: meta.model,
        choices,
        ...(includeUsage ? { usage: usage ?? null } : {}),
      }),
    }) satisfies SSEMessage;
  const choice = (delta: object, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });

  yield chunk([choice({ role: 'assistant', content: '' })]);
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return;
      const event = next.value;
      if (event.type === 'text') {
        yield chunk([choice({ content: event.text })]);
        continue;
      }
      if (event.type === 'reasoning') {
        yield chunk([choice({ reasoning_content: event.text })]);
        continue;
      }
      if (event.type === 'tool_call') {
        const call = { index: event.index, id: event.id ?? randomId('call_'), type: 'function', function: { name: event.name, arguments: '' } };
        yield chunk([choice({ tool_calls: [call] })]);
        continue;
      }
      if (event.type === 'tool_arguments') {
        yield chunk([choice({ tool_calls: [{ index: event.index, function: { arguments: event.text } }] })]);
        continue;
      }
      yield chunk([choice({}, toFinishReason(event.reason))]);
      if (includeUsage) yield chunk([], toOpenAIUsage(event.usage));
      yield { data: '[DONE]' };
      return;
    }
  } catch (error) {
    yield openAIErrorEvent(error, generation.usage());
  } finally {
    await generation.events.return?.(undefined);
  }
}
