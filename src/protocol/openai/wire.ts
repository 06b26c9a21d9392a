/**
 * The OpenAI API family's descriptor (chat completions, Responses, conversations, embeddings,
 * models): `Authorization: Bearer` keys, its error body, a comment as keep-alive, and a
 * `data: {"error":…}` event for a stream that fails after it began. Error bodies are
 * `{error:{message,type,param,code}}`, the inverse of openai-node's status → class table, so each
 * failure surfaces as the SDK's own typed error.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @module
 */
import { GatewayError, type GatewayErrorCode } from '../../core/errors.ts';
import type { Usage } from '../../core/generation.ts';
import { encodeSSEComment, KEEP_ALIVE_MS, type SSEMessage } from '../../core/sse.ts';
import type { WireDescriptor } from '../../core/wire.ts';

const WIRE: Record<GatewayErrorCode, { type: string; code: string | null }> = {
  invalid_request: { type: 'invalid_request_error', code: null },
  context_length_exceeded: { type: 'invalid_request_error', code: 'context_length_exceeded' },
  authentication: { type: 'invalid_request_error', code: 'invalid_api_key' },
  permission: { type: 'invalid_request_error', code: 'permission_denied' },
  not_found: { type: 'invalid_request_error', code: 'unknown_url' },
  resource_not_found: { type: 'invalid_request_error', code: null },
  model_not_found: { type: 'invalid_request_error', code: 'model_not_found' },
  method_not_allowed: { type: 'invalid_request_error', code: 'method_not_allowed' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  queue_full: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  internal: { type: 'server_error', code: null },
  model_unavailable: { type: 'service_unavailable_error', code: 'model_unavailable' },
  engine_unavailable: { type: 'service_unavailable_error', code: 'engine_unavailable' },
  device_lost: { type: 'service_unavailable_error', code: 'device_lost' },
  insufficient_storage: { type: 'server_error', code: 'insufficient_storage' },
  upstream_unreachable: { type: 'server_error', code: 'upstream_unreachable' },
  upstream_timeout: { type: 'server_error', code: 'upstream_timeout' },
  // Its type follows the upstream's status, its code is the upstream's own (see errorType).
  upstream_error: { type: 'server_error', code: null },
  aborted: { type: 'invalid_request_error', code: 'request_aborted' },
};

/** An upstream's status as OpenAI names its errors: openai-node picks its class from the status alone (PROTOCOL §9.1). */
function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 503) return 'service_unavailable_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

export function toOpenAIErrorBody(error: GatewayError) {
  if (error.upstream) return { error: { message: error.message, type: errorType(error.status), param: error.param ?? null, code: error.upstream.code ?? null } };
  const { type, code } = WIRE[error.code];
  return { error: { message: error.message, type, param: error.param ?? null, code } };
}

/**
 * The event that ends a stream which failed after it began. No `event:` line: every openai-node
 * version throws APIError for a `data: {"error":…}` event. `usage` is an extra field the SDKs
 * ignore: what the failed generation consumed up to there.
 */
export function openAIErrorEvent(error: unknown, usage?: Usage): SSEMessage {
  return { data: JSON.stringify({ ...toOpenAIErrorBody(GatewayError.from(error)), ...(usage ? { usage: toOpenAIUsage(usage) } : {}) }) };
}

/**
 * Chat completions usage: `prompt_tokens` includes the cached ones, as OpenAI counts them; a
 * thinking model's adds `completion_tokens_details.reasoning_tokens`, as OpenAI's reasoning models do.
 */
export function toOpenAIUsage({ promptTokens, completionTokens, cachedTokens, reasoningTokens }: Usage) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
}

/** The key as every OpenAI SDK sends it. */
export function bearerKey(headers: Headers): string | undefined {
  return /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1]?.trim() || undefined;
}

export const OPENAI: WireDescriptor = {
  flavour: 'openai',
  // The default family: a request no other family claims is OpenAI's.
  claims: () => false,
  credentials: bearerKey,
  missingKey: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
  wrongKey: (redacted) => `Incorrect API key provided: ${redacted}.`,
  errorBody: (error) => toOpenAIErrorBody(error),
  // OpenAI streams have no ping event: a comment, which openai-node and every SSE reader skip.
  keepAlive: { message: encodeSSEComment('keep-alive'), everyMs: KEEP_ALIVE_MS },
  lateError: (error, _requestId, usage) => openAIErrorEvent(error, usage),
};
