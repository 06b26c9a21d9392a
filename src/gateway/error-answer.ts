/**
 * A failure as the answer its caller's SDK reads: the status, its family's error body (the
 * request's WireDescriptor, decided once in src/protocol/wires.ts) and the retry advice.
 * @module
 */
import { jsonResponse } from '../core/context.ts';
import type { GatewayError } from '../core/errors.ts';
import type { WireDescriptor } from '../core/wire.ts';

export function renderError(error: GatewayError, wire: WireDescriptor, requestId: string): Response {
  const { status, headers, body } = toErrorAnswer(error, wire, requestId);
  return jsonResponse(body, status, headers);
}

/**
 * An error answer as plain parts, for a runtime that writes it without a Response: the Node server
 * refuses some requests before they become one (a foreign Host or Origin, a full server).
 */
export function toErrorAnswer(error: GatewayError, wire: WireDescriptor, requestId: string): { status: number; headers: Record<string, string>; body: unknown } {
  const headers: Record<string, string> = {};
  if (error.upstream) {
    // An upstream's own answer: its retry advice as it gave it, none where it gave none.
    if (error.upstream.retryAfter !== undefined) headers['retry-after'] = error.upstream.retryAfter;
    if (error.upstream.shouldRetry !== undefined) headers['x-should-retry'] = error.upstream.shouldRetry;
    if (error.upstream.url !== undefined) headers['x-inpage-llm-upstream'] = error.upstream.url;
  } else {
    // Tell the SDKs not to retry what cannot succeed on retry (they retry 408/409/429/5xx by default).
    headers['x-should-retry'] = String(error.retryable);
    if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  }
  return { status: error.status, headers, body: wire.errorBody(error, requestId) };
}
