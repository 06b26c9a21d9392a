/**
 * Which protocol answers a request, so that even errors come in the shape the caller's SDK reads.
 * `/messages` is Anthropic's; `/models` is shared, told apart by the Anthropic version header
 * (the OpenAI SDK never sends one, and both SDKs now send `Authorization: Bearer`).
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import { hasVersionHeader } from '../protocol/anthropic/version.ts';
import { toAnthropicErrorBody } from '../protocol/anthropic/errors.ts';
import { toOpenAIErrorBody } from '../protocol/openai/errors.ts';
import { jsonResponse } from '../core/context.ts';

export type Flavour = 'openai' | 'anthropic';

export function flavourOf(path: string | null, headers: Headers): Flavour {
  if (path === '/messages' || path?.startsWith('/messages/') || path?.startsWith('/v1/messages')) return 'anthropic';
  return hasVersionHeader(headers) ? 'anthropic' : 'openai';
}

export function renderError(error: GatewayError, flavour: Flavour, requestId: string): Response {
  const body = flavour === 'anthropic' ? toAnthropicErrorBody(error, requestId) : toOpenAIErrorBody(error);
  const response = jsonResponse(body, error.status);
  // Tell the SDKs not to retry what cannot succeed on retry (they retry 408/409/429/5xx by default).
  response.headers.set('x-should-retry', String(error.retryable));
  if (error.retryAfter !== undefined) response.headers.set('retry-after', String(error.retryAfter));
  return response;
}
