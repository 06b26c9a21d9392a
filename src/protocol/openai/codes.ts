/**
 * The OpenAI family's names for the neutral facts, each table read both ways: an error's `type`
 * and `code`, a finish's `finish_reason`, and the usage objects. The renderers (wire.ts,
 * chat/render.ts, responses/render.ts) write with them, and what reads a remote server (its
 * client side, chat/client.ts, and src/remote/upstream-errors.ts) reads with them, so an answer
 * passed through this gateway says what it said.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://platform.openai.com/docs/api-reference/chat/object
 * @module
 */
import type { GatewayError, GatewayErrorCode } from '../../core/errors.ts';
import { isRecord } from '../../core/fields.ts';
import type { FinishReason, Usage } from '../../core/generation.ts';

/**
 * The `error.code` each failure is answered with (its `type` follows its status: `errorType`). An
 * upstream's error passed on carries the upstream's own code instead, where it gave one.
 */
const CODES: Readonly<Record<GatewayErrorCode, string | null>> = {
  invalid_request: null,
  context_length_exceeded: 'context_length_exceeded',
  authentication: 'invalid_api_key',
  permission: 'permission_denied',
  not_found: 'unknown_url',
  resource_not_found: null,
  model_not_found: 'model_not_found',
  method_not_allowed: 'method_not_allowed',
  request_too_large: 'request_too_large',
  queue_full: 'rate_limit_exceeded',
  internal: null,
  model_unavailable: 'model_unavailable',
  engine_unavailable: 'engine_unavailable',
  device_lost: 'device_lost',
  insufficient_storage: 'insufficient_storage',
  upstream_unreachable: 'upstream_unreachable',
  upstream_timeout: 'upstream_timeout',
  upstream_error: null,
  aborted: 'request_aborted',
};

/**
 * An error's `type` by its status: openai-node picks its error class from the status alone, so
 * the type says what the status says (a 429 a rate limit, a 503 an unavailable service).
 */
export function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'service_unavailable_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** A failure's `type` and `code`, as an OpenAI error body carries them. */
export function toOpenAIError(error: GatewayError): { type: string; code: string | null } {
  return { type: errorType(error.status), code: error.upstream ? (error.upstream.code ?? null) : CODES[error.code] };
}

/**
 * The other way: the string `error.code` in a server's error body, kept to be passed on to
 * OpenAI-flavoured callers. vLLM and llama.cpp put the HTTP status there as a number: it says
 * nothing the status does not.
 */
export function readErrorCode(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null | undefined)?.error?.code;
  return typeof code === 'string' && code ? code : undefined;
}

/** Each neutral finish as `finish_reason`: a matched stop string is plain `stop`, a refusal `content_filter`. */
const FINISH_REASONS = { stop: 'stop', length: 'length', stop_sequence: 'stop', tool_calls: 'tool_calls', refusal: 'content_filter' } as const satisfies Record<FinishReason, string>;

/**
 * And back: each `finish_reason` as the neutral finish (a Map, not an object literal: a server's
 * 'constructor' must not find Object.prototype's). `stop` is a stop, and `function_call` (the
 * older API's) a call; anything else reads as a stop.
 */
const FROM_FINISH_REASONS = new Map<unknown, FinishReason>([
  ...(Object.entries(FINISH_REASONS) as [FinishReason, string][]).filter(([neutral]) => neutral !== 'stop_sequence').map(([neutral, wire]) => [wire, neutral] as const),
  ['function_call', 'tool_calls'],
]);

export function toFinishReason(reason: FinishReason): (typeof FINISH_REASONS)[FinishReason] {
  return FINISH_REASONS[reason];
}

/**
 * A choice's finish as the neutral one, and the stop string where the server names it (vLLM's
 * `stop_reason`, SGLang's `matched_stop`): a `stop` that names its string is a stop sequence.
 */
export function readFinish(choice: Readonly<Record<string, unknown>>): { reason: FinishReason; stopSequence: string | null } {
  const named = [choice.stop_reason, choice.matched_stop].find((value): value is string => typeof value === 'string' && value !== '');
  if (choice.finish_reason === 'stop' && named !== undefined) return { reason: 'stop_sequence', stopSequence: named };
  return { reason: FROM_FINISH_REASONS.get(choice.finish_reason) ?? 'stop', stopSequence: null };
}

/**
 * Chat completions usage: `prompt_tokens` includes the cached ones, as OpenAI counts them; a
 * thinking model's adds `completion_tokens_details.reasoning_tokens`, as OpenAI's reasoning models do;
 * a request with a prediction, `accepted_prediction_tokens` and `rejected_prediction_tokens`.
 */
export function toOpenAIUsage({ promptTokens, completionTokens, cachedTokens, reasoningTokens, prediction }: Usage) {
  const details = {
    ...(reasoningTokens !== undefined || prediction ? { reasoning_tokens: reasoningTokens ?? 0 } : {}),
    ...(prediction ? { accepted_prediction_tokens: prediction.accepted, rejected_prediction_tokens: prediction.rejected } : {}),
  };
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(Object.keys(details).length > 0 ? { completion_tokens_details: details } : {}),
  };
}

/** And back, as leniently as servers write it: a count that is missing or not a number is 0. */
export function readOpenAIUsage(usage: unknown): Usage {
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const source = isRecord(usage) ? usage : {};
  const details = isRecord(source.completion_tokens_details) ? source.completion_tokens_details : undefined;
  return {
    promptTokens: count(source.prompt_tokens),
    completionTokens: count(source.completion_tokens),
    cachedTokens: count(isRecord(source.prompt_tokens_details) ? source.prompt_tokens_details.cached_tokens : 0),
    ...(typeof details?.reasoning_tokens === 'number' ? { reasoningTokens: details.reasoning_tokens } : {}),
    ...(typeof details?.accepted_prediction_tokens === 'number' || typeof details?.rejected_prediction_tokens === 'number'
      ? { prediction: { accepted: count(details?.accepted_prediction_tokens), rejected: count(details?.rejected_prediction_tokens) } }
      : {}),
  };
}

/** Usage in Responses terms: `input_tokens` include the cached ones, as chat completions' prompt tokens do. */
export function toResponseUsage({ promptTokens, completionTokens, cachedTokens, reasoningTokens }: Usage) {
  return {
    input_tokens: promptTokens,
    input_tokens_details: { cached_tokens: cachedTokens },
    output_tokens: completionTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens ?? 0 },
    total_tokens: promptTokens + completionTokens,
  };
}
