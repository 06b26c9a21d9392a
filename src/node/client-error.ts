/**
 * Requests Node's HTTP parser refuses before any handler sees them (a NUL byte in a header, both
 * Content-Length and Transfer-Encoding, headers past 16 KB) and requests that ran out of time:
 * answered with a JSON body in the OpenAI error shape, like everything else the server says,
 * where Node answers them with an empty one. The statuses stay Node's own (400, 431, 413, 408).
 * @module
 */
import type { Socket } from 'node:net';
import { GatewayError } from '../core/errors.ts';
import { toOpenAIErrorBody } from '../protocol/openai/wire.ts';

const STATUS_TEXT: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/**
 * The `clientError` listener. `responding(socket)`: whether a response on that connection has
 * already sent its headers, so nothing may be written into it.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, responding: (socket: Socket) => boolean): void {
  // A client that went away (or never wrote a byte) has nobody to read an answer.
  if (error.code === 'ECONNRESET' || !socket.writable || responding(socket)) {
    socket.destroy();
    return;
  }
  const [status, message] = describe(error);
  // There is no request, hence no flavour to read: the OpenAI shape, as for the adapter's own refusals.
  const body = JSON.stringify(toOpenAIErrorBody(new GatewayError(status === 413 || status === 431 ? 'request_too_large' : 'invalid_request', message)));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-should-retry: false\r\nconnection: close\r\n\r\n${body}`,
  );
}

function describe(error: Error & { code?: string }): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'The request headers are too large (Node allows 16 KB in all).'];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, 'The chunk extensions of the request body are too large.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'The request was not received in time: its headers, or the whole of it, took longer than this server waits.'];
    default:
      return [400, `The request is not valid HTTP: ${reasonOf(error)}.`];
  }
}

/** The parser's reason (`Invalid header value char`), without Node's `Parse Error:` prefix. */
function reasonOf(error: Error & { reason?: unknown }): string {
  const reason = typeof error.reason === 'string' && error.reason ? error.reason : error.message;
  return reason.replace(/^Parse Error:\s*/i, '').replace(/\.$/, '');
}
