/**
 * The Anthropic API family's descriptor: `x-api-key` (or `Authorization: Bearer`, SDK 1.x) keys,
 * the version header that marks a request as Anthropic's on a shared path (version.ts has its
 * rules), its error body, the `ping` event as keep-alive, and an `error` event for a stream that
 * fails after it began. Error bodies are `{type:'error', error:{type,message}, request_id}`; the
 * SDK keeps the whole body as `err.error` and picks its error class from the status.
 * @see https://docs.anthropic.com/en/api/errors
 * @module
 */
import { GatewayError } from '../../core/errors.ts';
import type { Usage } from '../../core/generation.ts';
import { encodeSSE, KEEP_ALIVE_MS, type SSEMessage } from '../../core/sse.ts';
import type { WireDescriptor } from '../../core/wire.ts';
import { bearerKey } from '../openai/wire.ts';
import { hasVersionHeader } from './version.ts';
import { toAnthropicErrorType, toAnthropicUsage } from './codes.ts';

/** The Anthropic error body: `{type:'error', error:{type,message}, request_id}`, its type from codes.ts. */
export function toAnthropicErrorBody(error: GatewayError, requestId: string) {
  // Anthropic names the field in the message text ("max_tokens: Field required"); there is no `param`.
  const message = error.param && !error.message.includes(error.param) ? `${error.param}: ${error.message}` : error.message;
  return { type: 'error', error: { type: toAnthropicErrorType(error), message }, request_id: requestId };
}

/**
 * The `error` event that ends a stream which failed after it began, with the request's id, as the
 * API sends it (none where the caller gave none). `usage` is an extra field the SDK ignores: what
 * the failed generation consumed up to there.
 */
export function anthropicErrorEvent(error: unknown, requestId: string | undefined, usage?: Usage): SSEMessage {
  const { request_id, ...body } = toAnthropicErrorBody(GatewayError.from(error), requestId ?? '');
  return { event: 'error', data: JSON.stringify({ ...body, ...(requestId !== undefined ? { request_id } : {}), ...(usage ? { usage: toAnthropicUsage(usage) } : {}) }) };
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
