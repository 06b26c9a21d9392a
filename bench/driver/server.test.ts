// The bench server fails a task whose page cannot load at once, instead of leaving the driver to
// wait out the task's timeout (up to three hours) for posts that never come.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type BenchServer } from './server.ts';

let server: BenchServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

function listening(page: string): { errors: string[] } {
  const errors: string[] = [];
  server.listen({ page, onLog: () => {}, onResult: () => {}, onError: (message) => errors.push(message) });
  return { errors };
}

/** A raw GET whose one header is `bytes` long; resolves to the status line. */
function rawGet(path: string, bytes: number): Promise<string> {
  const { port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer.split('\r\n')[0]!));
    // The server may answer and close before it has read all we wrote: the reset comes after its answer.
    socket.on('error', (error) => (answer ? resolve(answer.split('\r\n')[0]!) : reject(error)));
    socket.write(`GET ${path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\nx-big: ${'a'.repeat(bytes)}\r\n\r\n`);
  });
}

describe('the bench server', () => {
  it('fails the task when its page is missing', async () => {
    const { errors } = listening('/bench/pages/no-such-page.html');
    expect((await fetch(`${server.origin}/bench/pages/other-missing.html`)).status).toBe(404);
    expect(errors).toEqual([]);
    expect((await fetch(`${server.origin}/bench/pages/no-such-page.html?cfg=%7B%7D`)).status).toBe(404);
    expect(errors).toEqual([expect.stringContaining('no page /bench/pages/no-such-page.html (404')]);
  });

  it('fails the task when a request passes the header limit, and answers it 431', async () => {
    const { errors } = listening('/bench/pages/conversation.html');
    // Half a megabyte passes (a task's URL carries its workload); two do not.
    expect(await rawGet('/favicon.ico', 512 * 1024)).toBe('HTTP/1.1 204 No Content');
    expect(errors).toEqual([]);
    expect(await rawGet('/bench/pages/conversation.html', 2 * 1024 * 1024)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(errors).toEqual([expect.stringContaining('431 Request Header Fields Too Large (HPE_HEADER_OVERFLOW)')]);
  });
});
