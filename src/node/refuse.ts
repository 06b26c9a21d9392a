/**
 * Answers a request the Node server turns away before it becomes a fetch `Request` (a foreign Host
 * or Origin, a full server): the gateway's error body in the caller's flavour, written straight to
 * Node's response, without reading the request's body. The connection is closed after, so that
 * unread body is never read either.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../core/errors.ts';
import { randomId } from '../core/ids.ts';
import type { WireDescriptor } from '../core/wire.ts';
import { toErrorAnswer } from '../gateway/error-answer.ts';
import { wireOf } from '../protocol/wires.ts';

const NO_HEADERS = new Headers();

export function refuse(incoming: IncomingMessage, outgoing: ServerResponse, error: GatewayError, basePath: string): void {
  const requestId = randomId('req_');
  const { status, headers, body } = toErrorAnswer(error, wireOfIncoming(incoming, basePath), requestId);
  const text = JSON.stringify(body);
  outgoing.shouldKeepAlive = false;
  // Headers already set on `outgoing` (CORS) are kept: writeHead merges them in.
  outgoing.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
    'request-id': requestId,
  });
  outgoing.end(text);
}

/** The gateway's own rule (which family a request is) on Node's raw request. */
function wireOfIncoming(incoming: IncomingMessage, basePath: string): WireDescriptor {
  const pathname = (incoming.url ?? '').replace(/^[a-z][a-z\d+.-]*:\/\/[^/]*/i, '').split('?', 1)[0]!;
  const path = pathname === basePath ? '' : pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
  const version = incoming.headers['anthropic-version'] ?? incoming.headers['vendor-version'];
  return wireOf(path, version === undefined ? NO_HEADERS : new Headers({ 'anthropic-version': String(version) }));
}
