/**
 * The floor page: loaded at /bench/floor/ (inside the main bench page, as a same-origin iframe) and
 * controlled by the bare service worker bench/floor-sw.js, never by the product's. It owns a bare
 * worker and runs the floor measurements in its own loops; the main page calls `window.floor` to
 * interleave them with the product's paths. No product code is imported here.
 * @module
 */
import { timeEach } from './lib/stats.ts';

export type FloorLatencyPath = 'inpage' | 'worker' | 'sw-const' | 'sw-relay';
/** CPU the bare worker spends before answering (engine-like), in ms. */
export type BusyMs = number;
export type FloorStreamPath = 'worker-stream' | 'sw-relay-stream' | 'sw-const-stream';

export interface Floor {
  readonly ready: Promise<void>;
  /** The script URL of the service worker controlling this page. */
  controller(): string | null;
  /** Hands the service worker a fresh port to the worker (an idle service worker may have been restarted). */
  refresh(): Promise<void>;
  latency(path: FloorLatencyPath, count: number, body: string, busyMs?: BusyMs): Promise<number[]>;
  /** Time for `n` requests all in flight at once (the floor of n concurrent one-text requests). */
  concurrent(path: FloorLatencyPath, n: number, body: string): Promise<number>;
  /** Time for `n` chunks, from the request to the last byte, and how many reads delivered them. */
  /** `paceMs`: the worker spends that much CPU before each chunk (not for `sw-const-stream`). */
  stream(path: FloorStreamPath, n: number, paceMs?: number, yieldEach?: boolean): Promise<{ ms: number; reads: number; chunks: number }>;
}

declare global {
  interface Window {
    floor: Floor;
  }
}

const CONSTANT = { id: 'chatcmpl-floor', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'x' } }] };
const worker = new Worker(new URL('./workers/floor-worker.ts', import.meta.url), { type: 'module', name: 'bench-floor' });

function connect(): MessagePort {
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ type: 'CONNECT' }, [port1]);
  return port2;
}

// The page's own port to the worker (the "bare direct" path).
const direct = connect();
let nextId = 0;
const pending = new Map<number, (data: { body?: string; chunk?: string; done?: boolean }) => void>();
direct.onmessage = (event) => pending.get(event.data.id)?.(event.data);

function ask(body: string, busyMs = 0): Promise<unknown> {
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, (data) => {
      pending.delete(id);
      resolve(JSON.parse(data.body!));
    });
    direct.postMessage({ id, body, busyMs });
  });
}

async function inpage(_body: string): Promise<unknown> {
  return CONSTANT;
}

async function refresh(): Promise<void> {
  const sw = navigator.serviceWorker.controller;
  if (!sw) throw new Error('The floor page is not controlled by the floor service worker.');
  const ack = new MessageChannel();
  const answered = new Promise<void>((resolve) => (ack.port1.onmessage = () => resolve()));
  sw.postMessage({ type: 'PORT' }, [connect(), ack.port2]);
  await answered;
  ack.port1.close();
}

async function start(): Promise<void> {
  const container = navigator.serviceWorker;
  const controlled = container.controller?.scriptURL.endsWith('/bench/floor-sw.js')
    ? Promise.resolve()
    : new Promise<void>((resolve) => container.addEventListener('controllerchange', () => resolve(), { once: true }));
  await container.register('/bench/floor-sw.js', { scope: '/bench/floor/' });
  await controlled;
  await refresh();
}

async function readAll(response: Response): Promise<{ reads: number; chunks: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let reads = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    text += decoder.decode(value, { stream: true });
  }
  return { reads, chunks: text.split('\n\n').length - 2 };
}

function once(path: FloorLatencyPath, body: string, busyMs = 0): () => Promise<unknown> {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
  switch (path) {
    case 'inpage':
      return () => inpage(body);
    case 'worker':
      return () => ask(body, busyMs);
    case 'sw-const':
      return async () => (await fetch('/bench/floor/const', init)).json();
    case 'sw-relay':
      return async () => (await fetch(`/bench/floor/relay?busy=${busyMs}`, init)).json();
  }
}

window.floor = {
  ready: start(),
  controller: () => navigator.serviceWorker.controller?.scriptURL ?? null,
  refresh,
  latency(path, count, body, busyMs) {
    return timeEach(count, once(path, body, busyMs));
  },
  async concurrent(path, n, body) {
    const run = once(path, body);
    const t0 = performance.now();
    await Promise.all(Array.from({ length: n }, run));
    return performance.now() - t0;
  },
  async stream(path, n, paceMs = 0, yieldEach = false) {
    const t0 = performance.now();
    if (path === 'worker-stream') {
      let chunks = 0;
      await new Promise<void>((resolve) => {
        const id = nextId++;
        pending.set(id, (data) => {
          if (data.done) {
            pending.delete(id);
            resolve();
          } else chunks++;
        });
        direct.postMessage({ id, stream: n, paceMs, yieldEach });
      });
      return { ms: performance.now() - t0, reads: chunks, chunks };
    }
    const url = path === 'sw-relay-stream' ? `/bench/floor/stream?n=${n}&pace=${paceMs}&yield=${yieldEach ? 1 : 0}` : `/bench/floor/stream-const?n=${n}`;
    const read = await readAll(await fetch(url));
    return { ms: performance.now() - t0, ...read };
  },
};
