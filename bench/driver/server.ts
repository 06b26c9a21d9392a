/**
 * The bench server: the bench build as static files, cross-origin isolated (COOP/COEP on every
 * response: 5 µs timers, measureUserAgentSpecificMemory), plus the pages' POST channel
 * (`/__bench/log|result|error`, bench/pages/lib/channel.ts), their only way out with no DevTools.
 * @module
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { OUT_DIR, REAL_MODELS, ROOT } from './paths.ts';

/** What the page of the task in progress posts. */
export interface PageListener {
  /** The task's page path (`/bench/pages/x.html`): an error status for it fails the task at once. */
  readonly page?: string;
  onLog(message: string): void;
  onResult(result: unknown): void;
  onError(message: string): void;
}

export interface BenchServer {
  readonly origin: string;
  /** Routes the pages' posts to `listener` (none: dropped). */
  listen(listener: PageListener | undefined): void;
  /** Serves the files of `dir` (a folder outside the build: data a task reads) under the URL prefix `prefix` (`/bench/x/`). */
  mount(prefix: string, dir: string): void;
  close(): void;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.gguf': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** URL prefixes served from packages' own files: onnxruntime-web's builds, llama.cpp's wasm (wllama). */
const BENCH_RUNTIMES: Record<string, string> = {
  '/bench/runtime/ort/': join(ROOT, 'node_modules/onnxruntime-web/dist/'),
  '/bench/runtime/wllama/': join(ROOT, 'node_modules/@wllama/wllama/esm/wasm/'),
};

function fileFor(pathname: string, mounts: ReadonlyMap<string, string>): string | undefined {
  if (pathname === '/bench/floor/' || pathname === '/bench/floor/index.html') return join(OUT_DIR, 'bench/pages/floor.html');
  // The bare floor service worker is served from its source: it has no imports and no build step.
  if (pathname === '/bench/floor-sw.js') return join(ROOT, 'bench/floor-sw.js');
  // The CPU-path comparison's runtimes that the product does not ship (cpu-paths-run.ts).
  const runtime = [...Object.entries(BENCH_RUNTIMES), ...mounts].find(([prefix]) => pathname.startsWith(prefix));
  if (runtime) {
    const file = normalize(join(runtime[1], decodeURIComponent(pathname.slice(runtime[0].length))));
    return file.startsWith(runtime[1]) ? file : undefined;
  }
  const path = normalize(join(OUT_DIR, decodeURIComponent(pathname)));
  if (!path.startsWith(OUT_DIR)) return undefined;
  // The real-shaped models sit beside the bundled ones, where the engines look for local models.
  if (pathname.startsWith('/inpage-llm/models/') && !existsSync(path)) {
    const generated = normalize(join(REAL_MODELS, decodeURIComponent(pathname.slice('/inpage-llm/models/'.length))));
    if (generated.startsWith(REAL_MODELS) && existsSync(generated)) return generated;
  }
  if (existsSync(path) && statSync(path).isDirectory()) return join(path, 'index.html');
  return path;
}

/** A post from a page, handed to the listener of the moment it has arrived whole. */
function receive(req: IncomingMessage, res: ServerResponse, kind: string, current: () => PageListener | undefined): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    res.writeHead(204).end();
    const message = JSON.parse(body) as { message?: string; result?: unknown };
    const listener = current();
    if (kind === 'log') listener?.onLog(message.message ?? '');
    else if (kind === 'result') listener?.onResult(message.result);
    else if (kind === 'error') listener?.onError(message.message ?? 'unknown error');
  });
}

function serveFile(req: IncomingMessage, res: ServerResponse, url: URL, listener: PageListener | undefined, mounts: ReadonlyMap<string, string>): void {
  const file = fileFor(url.pathname, mounts);
  if (!file || !existsSync(file) || req.method !== 'GET') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    // A page that cannot load posts nothing: without this the task would wait out its timeout.
    if (listener?.page === url.pathname) listener.onError(`the server has no page ${url.pathname} (404; is the bench build current?)`);
    return;
  }
  const stat = statSync(file);
  const etag = `W/"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`;
  // Hashed build assets are immutable; everything else (pages, /inpage-llm-sw.js, /inpage-llm/) is revalidated:
  // a warm load reads bodies from the HTTP cache after a 304.
  res.setHeader('cache-control', url.pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
  res.setHeader('etag', etag);
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': stat.size });
  createReadStream(file).pipe(res);
}

export async function startServer(): Promise<BenchServer> {
  let listener: PageListener | undefined;
  const mounts = new Map<string, string>();
  // A task's configuration travels in its page's URL, and the prefix-cache task's carries its whole
  // workload (ten turns' and six tool results' texts): past Node's default 16 KiB of headers.
  const server = createServer({ maxHeaderSize: 1024 * 1024 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-embedder-policy', 'require-corp');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    if (req.method === 'POST' && url.pathname.startsWith('/__bench/')) receive(req, res, url.pathname.slice('/__bench/'.length), () => listener);
    else if (url.pathname === '/favicon.ico') res.writeHead(204).end();
    else serveFile(req, res, url, listener, mounts);
  });
  // A request Node's parser refuses (headers past the limit: 431) never reaches the handler above;
  // the page then never loads and never posts, so the task is failed here instead of timing out.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    listener?.onError(`the bench server refused a request: ${status} (${error.code ?? error.message})`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    origin: `http://localhost:${(server.address() as AddressInfo).port}`,
    listen: (next) => (listener = next),
    mount: (prefix, dir) => void mounts.set(prefix, dir.endsWith(sep) ? dir : dir + sep),
    close: () => server.close(),
  };
}
