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
 * refuses some requests before they become one (a foreign Host or Origin, a full server). Its
 * status and headers are the error's own (src/core/errors.ts), its body the family's.
 */
export function toErrorAnswer(error: GatewayError, wire: WireDescriptor, requestId: string): { status: number; headers: Record<string, string>; body: unknown } {
  return { status: error.status, headers: error.answerHeaders, body: wire.errorBody(error, requestId) };
}
