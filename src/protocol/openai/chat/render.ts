/**
 * `POST /chat/completions`, rendered: the neutral generation's events as one `chat.completion`
 * body or as the `chat.completion.chunk` stream.
 * @see https://platform.openai.com/docs/api-reference/chat
 * @module
 */
import type { Generation, GenerationEvent, Usage } from '../../../core/generation.ts';
import type { SSEMessage } from '../../../core/sse.ts';
import { randomId } from '../../../core/ids.ts';
import { toStream, toWhole, type AnswerWriter, type Step } from '../../answer-writer.ts';
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

type Call = { id: string; type: 'function'; function: { name: string; arguments: string } };

/** The whole `chat.completion` body: what a client makes of the stream's chunks. */
function completionBody(meta: CompletionMeta, content: string, reasoning: string, calls: readonly Call[], finish: Extract<GenerationEvent, { type: 'finish' }>) {
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
    choices: [{ index: 0, message, logprobs: null, finish_reason: toFinishReason(finish.reason) }],
    usage: toOpenAIUsage(finish.usage),
  };
}

type CompletionBody = ReturnType<typeof completionBody>;

/**
 * Writes a generation as a chat completion: the chunk sequence (with `stream`; each chunk with
 * `usage: null`, and a usage chunk at the end, where `includeUsage`), then, from the same pieces,
 * the whole body as the last step. A role chunk opens the stream; `reasoning_content` chunks carry
 * a thinking model's thinking, content chunks the text, tool call chunks the calls (the first of
 * each with its index, id and name, then its argument fragments); a finish chunk, the usage chunk
 * when asked for, and `[DONE]` close it. `start` writes the opening chunk into `out`, `push` the
 * chunks of each generation event; the caller reads the generation, so a token costs one
 * asynchronous step. A piece of text, thinking or arguments (one a token) is written as `chunk`
 * would write it with only its text encoded; a whole answer (no `stream`) encodes nothing but its
 * body.
 */
function completionWriter(meta: CompletionMeta, stream?: { readonly includeUsage: boolean }): AnswerWriter<CompletionBody> {
  const includeUsage = stream?.includeUsage === true;
  const chunk = (choices: unknown[], usage?: unknown): SSEMessage => ({
    data: JSON.stringify({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    }),
  });
  const choice = (delta: object, finish: string | null = null) => ({ index: 0, delta, logprobs: null, finish_reason: finish });
  /** A piece's chunk around its delta (`{"content":…}`, …): as `chunk([choice(delta)])` writes it. */
  const before = `{"id":${JSON.stringify(meta.id)},"object":"chat.completion.chunk","created":${JSON.stringify(meta.created)},"model":${JSON.stringify(meta.model)},"choices":[{"index":0,"delta":`;
  const after = `},"logprobs":null,"finish_reason":null}]${includeUsage ? ',"usage":null' : ''}}`;
  const piece = (head: string, text: string, tail = ''): SSEMessage => ({ data: head + JSON.stringify(text) + tail + after });
  const textHead = `${before}{"content":`;
  const thoughtHead = `${before}{"reasoning_content":`;

  let content = '';
  let reasoning = '';
  const calls: Call[] = [];
  /** Each call's argument chunk before its fragment, by its index. */
  const argumentHeads: string[] = [];
  const argumentHead = (index: number) => (argumentHeads[index] ??= `${before}{"tool_calls":[{"index":${JSON.stringify(index)},"function":{"arguments":`);

  function start(_usage: Usage, out: Step<CompletionBody>[]): void {
    if (stream) out.push(chunk([choice({ role: 'assistant', content: '' })]));
  }
  function push(item: GenerationEvent, out: Step<CompletionBody>[]): void {
    if (item.type === 'text') {
      content += item.text;
      if (stream) out.push(piece(textHead, item.text));
      return;
    }
    if (item.type === 'reasoning') {
      reasoning += item.text;
      if (stream) out.push(piece(thoughtHead, item.text));
      return;
    }
    if (item.type === 'tool_call') {
      const call: Call = { id: item.id ?? randomId('call_'), type: 'function', function: { name: item.name, arguments: '' } };
      calls[item.index] = call;
      if (stream) out.push(chunk([choice({ tool_calls: [{ index: item.index, id: call.id, type: 'function', function: { name: item.name, arguments: '' } }] })]));
      return;
    }
    if (item.type === 'tool_arguments') {
      const call = calls[item.index];
      if (call) call.function.arguments += item.text;
      if (stream) out.push(piece(argumentHead(item.index), item.text, '}}]'));
      return;
    }
    if (stream) {
      out.push(chunk([choice({}, toFinishReason(item.reason))]));
      if (includeUsage) out.push(chunk([], toOpenAIUsage(item.usage)));
      out.push({ data: '[DONE]' });
    }
    out.push({ final: completionBody(meta, content, reasoning, calls, item) });
  }
  return { start, push };
}

/** Drains the generation into one `chat.completion` body. */
export function toChatCompletion(generation: Generation, meta: CompletionMeta) {
  return toWhole(generation, completionWriter(meta));
}

/**
 * The chunk sequence (see completionWriter), then `[DONE]`. A failure after the first byte
 * becomes an in-band `{"error":…, "usage":…}` event.
 */
export function toChatCompletionChunks(generation: Generation, meta: CompletionMeta, includeUsage: boolean): AsyncGenerator<SSEMessage> {
  return toStream(generation, completionWriter(meta, { includeUsage }), openAIErrorEvent);
}
