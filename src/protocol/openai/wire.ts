/**
 * The OpenAI API family's descriptor (chat completions, Responses, conversations, embeddings,
 * models): `Authorization: Bearer` keys, its error body, a comment as keep-alive, and a
 * `data: {"error":…}` event for a stream that fails after it began. Error bodies are
 * `{error:{message,type,param,code}}`, the inverse of openai-node's status → class table, so each
 * failure surfaces as the SDK's own typed error.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import type { Usage } from '../../core/generation.ts';
import { encodeSSEComment, KEEP_ALIVE_MS, type SSEMessage } from '../../core/sse.ts';
import type { WireDescriptor } from '../../core/wire.ts';
import { toOpenAIError, toOpenAIUsage } from './codes.ts';

export { toOpenAIUsage };

/** The OpenAI error body: `{error:{message,type,param,code}}`, its type and code from codes.ts. */
export function toOpenAIErrorBody(error: GatewayError) {
  const { type, code } = toOpenAIError(error);
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
