/**
 * A model host that misbehaves on demand, as real ones do: a hub-layout server
 * (`/<repo>/resolve/main/<file>`) on its own origin (CORS, as the Hugging Face hub answers) serving
 * the tiny embedding model, where each file can be set to be cut off midway, served with one byte
 * flipped, or held halfway until the test lets it go. It records every request, so a test can tell
 * what a load fetched again.
 */
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tinyModelFiles } from '../src/tiny-models/generate.ts';

export type Fault = 'cut' | 'flip' | 'hold';

export interface ModelServer {
  /** The server's origin with a trailing slash: a `transformersRemoteHost`. */
  readonly url: string;
  /** The repo id its model answers under. */
  readonly repo: string;
  /** Every file path requested for its content, in order (size probes, `Range: bytes=0-0`, are left out). */
  readonly requests: string[];
  /** Each file's size and SRI hash, as a model entry's `files` takes them. */
  readonly files: Record<string, { bytes: number; integrity: string }>;
  fault(file: string, fault: Fault | undefined): void;
  /** Sends the rest of every held file. */
  release(): void;
  close(): Promise<void>;
}

export async function serveModel(repo = 'test/faulty-embed'): Promise<ModelServer> {
  const contents = new Map<string, Uint8Array>();
  for (const [path, content] of tinyModelFiles()) {
    if (path.startsWith('tiny-embed/')) contents.set(path.slice('tiny-embed/'.length), typeof content === 'string' ? new TextEncoder().encode(content) : content);
  }
  const files = Object.fromEntries(
    [...contents].map(([path, bytes]) => [path, { bytes: bytes.byteLength, integrity: `sha256-${createHash('sha256').update(bytes).digest('base64')}` }]),
  );
  const faults = new Map<string, Fault>();
  const requests: string[] = [];
  let held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const prefix = `/${repo}/resolve/main/`;

  const server = createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    // The size probe's Range header makes its request preflighted.
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET' });
      return void res.end();
    }
    const path = decodeURIComponent(new URL(req.url!, 'http://x').pathname);
    const file = path.startsWith(prefix) ? path.slice(prefix.length) : '';
    const body = contents.get(file);
    const type = file.endsWith('.json') ? 'application/json' : 'application/octet-stream';
    // A size probe, answered as the hub answers it (transformers.js sends one per file).
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range && body) {
      const [from, to] = [Number(range[1]), Math.min(Number(range[2]), body.byteLength - 1)];
      res.writeHead(206, { 'content-type': type, 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${body.byteLength}`, 'access-control-expose-headers': 'content-range' });
      return void res.end(body.subarray(from, to + 1));
    }
    requests.push(file || path);
    if (!body) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found');
    res.writeHead(200, { 'content-type': type, 'content-length': body.byteLength, 'cache-control': 'no-store' });
    const half = Math.floor(body.byteLength / 2);
    switch (faults.get(file)) {
      case 'cut':
        // Half the file, then the connection drops (as a flaky network or a proxy timeout does).
        res.write(body.subarray(0, half), () => setTimeout(() => res.destroy(), 100));
        return;
      case 'flip': {
        const copy = body.slice();
        copy[half]! ^= 0x01;
        return void res.end(copy);
      }
      case 'hold':
        res.write(body.subarray(0, half));
        held.push(() => finish(res, body.subarray(half)));
        return;
      default:
        res.end(body);
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    repo,
    requests,
    files,
    fault: (file, fault) => (fault ? faults.set(file, fault) : faults.delete(file)),
    release() {
      for (const send of held) send();
      held = [];
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function finish(res: ServerResponse, rest: Uint8Array): void {
  if (!res.destroyed) res.end(rest);
}
