/**
 * Which protocol answers a request, so that even errors come in the shape the caller's SDK reads.
 * `/messages` is Anthropic's; `/models` is shared, told apart by the Anthropic version header
 * (the OpenAI SDK never sends one, and both SDKs now send `Authorization: Bearer`).
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import { hasVersionHeader } from '../protocol/anthropic/version.ts';
import { toAnthropicErrorBody } from '../core/anthropic-wire.ts';
import { toOpenAIErrorBody } from '../core/openai-wire.ts';
import { jsonResponse } from '../core/context.ts';

export type Flavour = 'openai' | 'anthropic';

export function flavourOf(path: string | null, headers: Headers): Flavour {
  if (path === '/messages' || path?.startsWith('/messages/') || path?.startsWith('/v1/messages')) return 'anthropic';
  return hasVersionHeader(headers) ? 'anthropic' : 'openai';
}

export function renderError(error: GatewayError, flavour: Flavour, requestId: string): Response {
  const { status, headers, body } = toErrorAnswer(error, flavour, requestId);
  return jsonResponse(body, status, headers);
}

/**
 * An error answer as plain parts, for a runtime that writes it without a Response: the Node server
 * refuses some requests before they become one (a foreign Host or Origin, a full server).
 */
export function toErrorAnswer(error: GatewayError, flavour: Flavour, requestId: string): { status: number; headers: Record<string, string>; body: unknown } {
  const body = flavour === 'anthropic' ? toAnthropicErrorBody(error, requestId) : toOpenAIErrorBody(error);
  // Tell the SDKs not to retry what cannot succeed on retry (they retry 408/409/429/5xx by default).
  const headers: Record<string, string> = { 'x-should-retry': String(error.retryable) };
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  return { status: error.status, headers, body };
}
