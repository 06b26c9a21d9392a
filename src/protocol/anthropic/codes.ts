/**
 * The Anthropic family's names for the neutral facts, each table read both ways: an error's
 * `type`, a finish's `stop_reason`, and the usage object. The renderers (wire.ts, render.ts)
 * write with them and the client side (client.ts) reads a remote server's answers with them, so
 * an answer passed through this gateway says what it said.
 * @see https://docs.anthropic.com/en/api/errors
 * @see https://docs.anthropic.com/en/api/messages
 * @module
 */
import type { GatewayError, GatewayErrorCode } from '../../core/errors.ts';
import { isRecord } from '../../core/fields.ts';
import type { FinishReason, Usage } from '../../core/generation.ts';

/**
 * The error types with their HTTP statuses, both ways. `answers`: the statuses whose errors are
 * given the type (any other: `api_error` from 500 up, `invalid_request_error` below it). `readAs`:
 * the status an `error` event of the type is passed on with, since it comes mid-stream with no
 * status of its own; 500 where absent.
 */
const ERROR_TYPES = {
  invalid_request_error: { answers: [400], readAs: 400 },
  authentication_error: { answers: [401], readAs: 401 },
  billing_error: { answers: [402] },
  permission_error: { answers: [403], readAs: 403 },
  not_found_error: { answers: [404], readAs: 404 },
  timeout_error: { answers: [408, 504] },
  conflict_error: { answers: [409] },
  request_too_large: { answers: [413], readAs: 413 },
  rate_limit_error: { answers: [429], readAs: 429 },
  api_error: { answers: [500] },
  // Read as the 503 of a busy engine here (below), which OpenAI's callers know as a service_unavailable_error.
  overloaded_error: { answers: [529], readAs: 503 },
} as const satisfies Record<string, { readonly answers: readonly number[]; readonly readAs?: number }>;

export type AnthropicErrorType = keyof typeof ERROR_TYPES;

/**
 * Codes whose type is not the one of their status: an engine that is busy or being rebuilt
 * (503) is an overloaded server, which the SDK's callers retry.
 */
const TYPE_BY_CODE: Readonly<Partial<Record<GatewayErrorCode, AnthropicErrorType>>> = {
  engine_unavailable: 'overloaded_error',
  device_lost: 'overloaded_error',
};

const TYPE_BY_STATUS = new Map<number, AnthropicErrorType>(
  (Object.entries(ERROR_TYPES) as [AnthropicErrorType, { answers: readonly number[] }][]).flatMap(([type, { answers }]) => answers.map((status) => [status, type] as const)),
);

/** The type of an error answered with `status` (an upstream's error passed on has only its status). */
export function errorTypeOfStatus(status: number): AnthropicErrorType {
  return TYPE_BY_STATUS.get(status) ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** A failure's `type`, as an Anthropic error body carries it. */
export function toAnthropicErrorType(error: GatewayError): AnthropicErrorType {
  return TYPE_BY_CODE[error.code] ?? errorTypeOfStatus(error.status);
}

/** And back: the status an upstream's `error` event of this type is passed on with. */
export function readErrorType(type: unknown): number {
  const entry = typeof type === 'string' && Object.hasOwn(ERROR_TYPES, type) ? (ERROR_TYPES[type as AnthropicErrorType] as { readAs?: number }) : undefined;
  return entry?.readAs ?? 500;
}

/** Each neutral finish as `stop_reason`. */
const STOP_REASONS = { stop: 'end_turn', length: 'max_tokens', stop_sequence: 'stop_sequence', tool_calls: 'tool_use', refusal: 'refusal' } as const satisfies Record<FinishReason, string>;

/**
 * And back (a Map, not an object literal: a server's 'constructor' must not find
 * Object.prototype's), with two more the API may send; anything else reads as a stop.
 */
const FROM_STOP_REASONS = new Map<unknown, FinishReason>([
  ...(Object.entries(STOP_REASONS) as [FinishReason, string][]).map(([neutral, wire]) => [wire, neutral] as const),
  // A server-tool loop paused: the turn ends here for a client that cannot resume it.
  ['pause_turn', 'stop'],
  // The reply ran out of room too, only against the context window instead of max_tokens.
  ['model_context_window_exceeded', 'length'],
]);

export function toStopReason(reason: FinishReason): (typeof STOP_REASONS)[FinishReason] {
  return STOP_REASONS[reason];
}

/** A `stop_reason` and `stop_sequence` as the neutral finish: a stop sequence without its string is a plain stop. */
export function readStopReason(stopReason: unknown, stopSequence: unknown): { reason: FinishReason; stopSequence: string | null } {
  const reason = FROM_STOP_REASONS.get(stopReason) ?? 'stop';
  return reason === 'stop_sequence' && typeof stopSequence === 'string' ? { reason, stopSequence } : { reason: reason === 'stop_sequence' ? 'stop' : reason, stopSequence: null };
}

/**
 * Anthropic counts input read from the cache apart: `input_tokens` are those read afresh, and the
 * prompt is their sum with `cache_read_input_tokens` (nothing is written to a cache on request:
 * every prompt is kept as it is read, so `cache_creation_input_tokens` is 0).
 */
export function toAnthropicUsage(usage: Usage) {
  return {
    input_tokens: usage.promptTokens - usage.cachedTokens,
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: usage.cachedTokens,
    // A thinking model's thinking tokens (within `output_tokens`), as the API reports them.
    ...(usage.reasoningTokens !== undefined ? { output_tokens_details: { thinking_tokens: usage.reasoningTokens } } : {}),
  };
}

/** The counts a server's usage reports have given so far, by their keys (`readAnthropicUsage`). */
export type AnthropicCounts = Record<string, number>;

/**
 * And back: a usage report into `counts`. Reports are cumulative: each replaces the one before;
 * a count left out or null (message_delta often has output_tokens alone) keeps its last value.
 */
export function readAnthropicUsage(usage: unknown, counts: AnthropicCounts): void {
  if (!isRecord(usage)) return;
  for (const key of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens']) {
    if (typeof usage[key] === 'number') counts[key] = usage[key];
  }
}

/** The counts as neutral usage: the prompt is every input count, what was read from the cache its `cachedTokens`. */
export function usageOfCounts(counts: AnthropicCounts): Usage {
  const count = (key: string) => counts[key] ?? 0;
  return { promptTokens: count('input_tokens') + count('cache_creation_input_tokens') + count('cache_read_input_tokens'), completionTokens: count('output_tokens'), cachedTokens: count('cache_read_input_tokens') };
}
