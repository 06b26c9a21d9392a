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
import { flavourOf, toErrorAnswer } from '../gateway/flavour.ts';

const NO_HEADERS = new Headers();

export function refuse(incoming: IncomingMessage, outgoing: ServerResponse, error: GatewayError, basePath: string): void {
  const requestId = randomId('req_');
  const { status, headers, body } = toErrorAnswer(error, flavourOfIncoming(incoming, basePath), requestId);
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

/** The gateway's flavour rule on Node's raw request: `/messages` or an Anthropic version header. */
function flavourOfIncoming(incoming: IncomingMessage, basePath: string): ReturnType<typeof flavourOf> {
  const pathname = (incoming.url ?? '').replace(/^[a-z][a-z\d+.-]*:\/\/[^/]*/i, '').split('?', 1)[0]!;
  const path = pathname === basePath ? '' : pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : null;
  const version = incoming.headers['anthropic-version'] ?? incoming.headers['vendor-version'];
  return flavourOf(path, version === undefined ? NO_HEADERS : new Headers({ 'anthropic-version': String(version) }));
}
