/**
 * The Anthropic API family's descriptor: `x-api-key` (or `Authorization: Bearer`, SDK 1.x) keys,
 * the version header that marks a request as Anthropic's on a shared path (version.ts has its
 * rules), its error body, the `ping` event as keep-alive, and an `error` event for a stream that
 * fails after it began. Error bodies are `{type:'error', error:{type,message}, request_id}`; the
 * SDK keeps the whole body as `err.error` and picks its error class from the status.
 * @see https://docs.anthropic.com/en/api/errors
 * @module
 */
import { GatewayError, type GatewayErrorCode } from '../../core/errors.ts';
import type { Usage } from '../../core/generation.ts';
import { encodeSSE, KEEP_ALIVE_MS, type SSEMessage } from '../../core/sse.ts';
import type { WireDescriptor } from '../../core/wire.ts';
import { bearerKey } from '../openai/wire.ts';
import { hasVersionHeader } from './version.ts';

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
  // Its type follows the upstream's status (see errorType).
  upstream_error: 'api_error',
  aborted: 'invalid_request_error',
};

/** Anthropic's documented types by status (PROTOCOL §9.2), for an upstream's status passed on. */
function errorType(status: number): string {
  const types: Record<number, string> = {
    401: 'authentication_error',
    402: 'billing_error',
    403: 'permission_error',
    404: 'not_found_error',
    408: 'timeout_error',
    409: 'conflict_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    504: 'timeout_error',
    529: 'overloaded_error',
  };
  return types[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function toAnthropicErrorBody(error: GatewayError, requestId: string) {
  // Anthropic names the field in the message text ("max_tokens: Field required"); there is no `param`.
  const message = error.param && !error.message.includes(error.param) ? `${error.param}: ${error.message}` : error.message;
  const type = error.upstream ? errorType(error.status) : TYPES[error.code];
  return { type: 'error', error: { type, message }, request_id: requestId };
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

export const ANTHROPIC: WireDescriptor = {
  flavour: 'anthropic',
  // `/messages` is Anthropic's; on a shared path (`/models`) its version header tells it apart (the
  // OpenAI SDK never sends one, and both SDKs now send `Authorization: Bearer`).
  claims: (path, headers) => path === '/messages' || path?.startsWith('/messages/') === true || path?.startsWith('/v1/messages') === true || hasVersionHeader(headers),
  // SDK 0.x (and the spec) send x-api-key, SDK 1.x Authorization: Bearer. An empty x-api-key does
  // not hide a Bearer key sent alongside it.
  credentials: (headers) => headers.get('x-api-key')?.trim() || bearerKey(headers),
  missingKey: 'x-api-key header is required (or send the key as Authorization: Bearer <key>).',
  wrongKey: () => 'invalid x-api-key',
  errorBody: (error, requestId) => toAnthropicErrorBody(error, requestId),
  // Anthropic's own keep-alive: the `ping` event, which its SDK reads and ignores.
  keepAlive: { message: encodeSSE({ event: 'ping', data: JSON.stringify({ type: 'ping' }) }), everyMs: KEEP_ALIVE_MS },
  lateError: anthropicErrorEvent,
};
