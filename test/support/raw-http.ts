/**
 * HTTP/1.1 by hand over a socket, for what `fetch` will not send: a forged `Host`, malformed
 * requests, headers that stop halfway, a body promised and never sent.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Record<string, string>;
  readonly body: string;
  /** From the connection to the end of the answer (the server closing the connection). */
  readonly ms: number;
}

/**
 * Writes `text` to the server of `url` and reads until the server closes the connection (send
 * `Connection: close`, or rely on the server to). `keepOpen`: do not end our side after writing,
 * for requests the server must answer without having read all of them. `socket` sees the
 * connection once it is open, to write more or cut it.
 */
export function rawExchange(url: string, text: string, { keepOpen = false, socket: onSocket }: { keepOpen?: boolean; socket?: (socket: Socket) => void } = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => {
      if (keepOpen) socket.write(text);
      else socket.end(text);
      onSocket?.(socket);
    });
    let received = '';
    socket.on('data', (data) => (received += data.toString('utf8')));
    // A reset after the answer (the server closed with our unsent bytes pending) still leaves the answer.
    socket.on('error', (error) => received === '' && reject(error));
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(statusLine)?.[1]), headers, body: rest.join('\r\n\r\n'), ms: performance.now() - started });
    });
  });
}

/** A request's bytes: `lines` are the request line and headers, without the blank line. */
export function rawRequest(lines: readonly string[], body = ''): string {
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Sends a request whose chunked body is `chunks` pieces of 64 KiB, `delayMs` apart, reading
 * nothing until all of it is written (as curl does), then reads the answer to the end of the
 * connection. `error`: what the connection failed with, if it did (a reset under the writes loses
 * an answer not read yet).
 */
export function rawUpload(url: string, head: readonly string[], { chunks, delayMs = 0 }: { chunks: number; delayMs?: number }): Promise<{ status: number; error?: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let received = '';
    let error: string | undefined;
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), async () => {
      socket.pause();
      socket.write(`${[...head, 'Transfer-Encoding: chunked'].join('\r\n')}\r\n\r\n`);
      const piece = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 'x'), Buffer.from('\r\n')]);
      for (let i = 0; i < chunks && !socket.destroyed && error === undefined; i++) {
        if (!socket.write(piece)) await new Promise((resolve) => socket.once('drain', resolve));
        if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
      socket.resume();
    });
    socket.on('data', (data) => (received += data.toString('utf8')));
    socket.on('error', (e) => (error ??= e.message));
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(received)?.[1]), ...(error !== undefined ? { error } : {}) }));
  });
}
