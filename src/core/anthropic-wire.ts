/**
 * The Anthropic wire shapes that both the local endpoints (protocol/anthropic/) and the remote
 * models' forwarding and translation (remote/) write: error bodies and the mid-stream error event.
 * Error bodies are `{type:'error', error:{type,message}, request_id}`. The SDK keeps the whole
 * body as `err.error` and picks its error class from the status.
 * @see https://docs.anthropic.com/en/api/errors
 * @module
 */
import { GatewayError, type GatewayErrorCode } from './errors.ts';
import type { Usage } from './generation.ts';
import type { SSEMessage } from './sse.ts';

const TYPES: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  resource_not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'request_too_large',
  queue_full: 'rate_limit_error',
  internal: 'api_error',
  model_unavailable: 'api_error',
  engine_unavailable: 'overloaded_error',
  device_lost: 'overloaded_error',
  insufficient_storage: 'api_error',
  upstream_unreachable: 'api_error',
  upstream_timeout: 'timeout_error',
  aborted: 'invalid_request_error',
};

export function toAnthropicErrorBody(error: GatewayError, requestId: string) {
  // Anthropic names the field in the message text ("max_tokens: Field required"); there is no `param`.
  const message = error.param && !error.message.includes(error.param) ? `${error.param}: ${error.message}` : error.message;
  return { type: 'error', error: { type: TYPES[error.code], message }, request_id: requestId };
}

/**
 * The `error` event that ends a stream which failed after it began, with the request's id
 * (PROTOCOL §8.4; none where the caller gave none). `usage` is an extra field the SDK ignores: what the failed generation consumed
 * up to there.
 */
export function anthropicErrorEvent(error: unknown, requestId: string | undefined, usage?: Usage): SSEMessage {
  const { request_id, ...body } = toAnthropicErrorBody(GatewayError.from(error), requestId ?? '');
  return { event: 'error', data: JSON.stringify({ ...body, ...(requestId !== undefined ? { request_id } : {}), ...(usage ? { usage: toAnthropicUsage(usage) } : {}) }) };
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
