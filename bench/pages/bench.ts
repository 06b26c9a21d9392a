/**
 * The main benchmark page. It starts the product exactly as an app does (`startInference`: the
 * product service worker at scope / plus its engine worker), a direct engine handle on the same
 * engine code (`createWorkerEngine`: comlink over a MessagePort to a second engine worker, which
 * the fetch shim also uses), transformers.js called directly in a plain worker (the engine's own
 * use, no product code), and the browser's floor in a same-origin iframe controlled by a bare
 * service worker (bench/floor-sw.js, scope /bench/floor/). Every timing is taken here, in loops
 * that run inside the page (performance.now(), cross-origin isolated), and paths are interleaved
 * round by round. The result goes to bench/run.ts as one POST.
 * @module
 */
import { wrap } from 'comlink';
import { createWorkerEngine, installFetchShim, startInference, type Inference } from '../../src/client/index.ts';
import { BUILD } from '../../src/rpc/control-messages.ts';
import { spawnEngineWorker, type EngineWorker } from '../../src/client/spawn-worker.ts';
import type { ChatRequest, Engine } from '../../src/core/engine.ts';
import { createGateway } from '../../src/gateway/index.ts';
import type { EngineHostApi } from '../../src/rpc/contract.ts';
import { linkEngine } from '../../src/rpc/engine-link.ts';
import type { Floor, FloorLatencyPath, FloorStreamPath } from './floor.ts';
import { byProfile, config, fail, finish, log } from './lib/channel.ts';
import { FLOOR_ANSWER } from './lib/floor-answer.ts';
import { spawnRawEngine, type RawEngine } from './lib/raw-engine.ts';
import { rotate, summarize, timeEach, type Summary } from './lib/stats.ts';
import { createSyntheticProducer, FAST_PACE_MS, FAST_PACED_MODEL, PACE_MS, PACED_MODEL, SYNTHETIC_MODEL, YIELDING_PACED_MODEL } from './lib/synthetic-engine.ts';

const nativeFetch = globalThis.fetch.bind(globalThis);

/**
 * Message traffic of the page's MessagePorts, counted only while `traffic.on` (one diagnostic call
 * per path, outside every timed loop): how chatty the product's RPC is per request.
 */
const traffic = { on: false, sent: 0, received: 0 };
{
  const proto = MessagePort.prototype;
  const post = proto.postMessage;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  const wrapped = new WeakMap<object, EventListener>();
  proto.postMessage = function (this: MessagePort, ...args: Parameters<MessagePort['postMessage']>) {
    if (traffic.on) traffic.sent++;
    return post.apply(this, args as never);
  } as MessagePort['postMessage'];
  proto.addEventListener = function (this: MessagePort, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (type !== 'message' || typeof listener !== 'function') return add.call(this, type, listener as EventListenerOrEventListenerObject, options);
    let counted = wrapped.get(listener);
    if (!counted) {
      const inner = listener;
      counted = function (this: MessagePort, event: Event) {
        if (traffic.on) traffic.received++;
        return inner.call(this, event);
      };
      wrapped.set(listener, counted);
    }
    return add.call(this, type, counted, options);
  } as MessagePort['addEventListener'];
  proto.removeEventListener = function (this: MessagePort, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
    return remove.call(this, type, ((listener && wrapped.get(listener)) ?? listener) as EventListenerOrEventListenerObject, options);
  } as MessagePort['removeEventListener'];
  // `port.onmessage = …` too (it also starts the port, as before).
  const handler = Object.getOwnPropertyDescriptor(proto, 'onmessage')!;
  const own = new WeakMap<MessagePort, unknown>();
  Object.defineProperty(proto, 'onmessage', {
    configurable: true,
    enumerable: handler.enumerable,
    get(this: MessagePort) {
      return own.has(this) ? own.get(this) : handler.get!.call(this);
    },
    set(this: MessagePort, fn: ((event: MessageEvent) => unknown) | null) {
      own.set(this, fn);
      handler.set!.call(
        this,
        typeof fn === 'function'
          ? function (this: MessagePort, event: MessageEvent) {
              if (traffic.on) traffic.received++;
              return fn.call(this, event);
            }
          : fn,
      );
    },
  });
}

async function countMessages(run: () => Promise<unknown>): Promise<{ sent: number; received: number }> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  Object.assign(traffic, { on: true, sent: 0, received: 0 });
  await run();
  // Late messages of the call (a cancel, a proxy release) land within a few milliseconds.
  await new Promise((resolve) => setTimeout(resolve, 50));
  traffic.on = false;
  return { sent: traffic.sent, received: traffic.received };
}
const device = config.device;
const CHAT_MODEL = 'tiny-chat';
const EMBED_MODEL = 'tiny-embed';
/** The fetch shim answers a virtual origin, so it never catches the service worker path's fetches. */
const SHIM_BASE = 'https://llm.local/v1';
const signal = new AbortController().signal;
const PROMPT = [{ role: 'user' as const, content: 'Tell me about the river.' }];
const EMBED_TEXT = 'The quick brown fox jumps over the lazy dog.';
const JSON_HEADERS = { 'content-type': 'application/json' };
/** CPU the engine-like floor worker spends per answer (about tiny-chat's 1-token request on WASM). */
const BUSY_MS = 2;

const WORDS = 'river stone light water cloud market garden window music paper forest silver morning letter bridge winter'.split(' ');
/**
 * 256 distinct short texts (8 to 14 words), the same in every run. WebGPU on SwiftShader embeds
 * 256 texts in tens of seconds, so its short section (and its smoke run) uses the first 16.
 */
const TEXT_COUNT = device === 'webgpu' && config.profile !== 'full' ? 16 : 256;
/** The reduced path list of the short WebGPU section: base64 through the SW, direct, transformers.js. */
const REDUCED = device === 'webgpu' && config.profile !== 'full';
const TEXTS = Array.from({ length: TEXT_COUNT }, (_, i) => {
  const n = 8 + (i % 7);
  return `Text ${i}: ` + Array.from({ length: n }, (_, j) => WORDS[(i * 7 + j * 3 + (i >> 4)) % WORDS.length]).join(' ') + '.';
});

const sections = new Set(config.sections ?? ['latency', 'stream', 'embeddings', 'burst']);
const want = (name: string) => sections.has(name);

// ---------------------------------------------------------------------------------------------
// Helpers

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
const chatBody = (maxTokens: number, stream = false, model = CHAT_MODEL) => ({
  model,
  messages: PROMPT,
  max_tokens: maxTokens,
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});
const chatRequest = (maxTokens: number): ChatRequest => ({ model: CHAT_MODEL, messages: PROMPT, maxTokens, stop: [] });

const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
/** What a client does with `encoding_format: base64`: bytes to a Float32Array. */
function decodeBase64(text: string): Float32Array {
  const bytes = fromBase64 ? fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
}

interface EmbeddingsBody {
  data: { index: number; embedding: string | number[] }[];
  usage: { prompt_tokens: number };
}

/** Reads an SSE body to its end as a client does; counts events; returns the parsed JSON events when asked. */
async function readSSE(response: Response, onEvent?: (data: string) => void): Promise<{ events: number; reads: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let events = 0;
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      events++;
      onEvent?.(event.slice(event.indexOf('data: ') + 6));
    }
  }
  return { events, reads };
}

async function drain(events: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of events) n++;
  return n;
}

function expectOk(response: Response, what: string): Response {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status}`);
  return response;
}

// ---------------------------------------------------------------------------------------------
// Memory

interface MemorySample {
  readonly label: string;
  readonly pageHeapBytes?: number;
  /** measureUserAgentSpecificMemory total (page, same-origin iframes, dedicated workers). */
  readonly totalBytes?: number;
  /** Bytes per realm: `Window`, or a worker's script name. */
  readonly byRealm?: Record<string, number>;
  readonly error?: string;
}
const memory: MemorySample[] = [];
const workerNames: [RegExp, string][] = [
  [/\/main-[^/]*\.js$/, 'engine worker (product)'],
  [/\/raw-engine-[^/]*\.js$/, 'raw transformers.js worker'],
  [/\/floor-worker-[^/]*\.js$/, 'floor worker'],
  [/\/synthetic-worker-[^/]*\.js$/, 'synthetic producer worker'],
];

type UASM = { bytes: number; breakdown: { bytes: number; attribution: { url: string; scope: string }[] }[] };
async function sampleMemory(label: string): Promise<void> {
  const pageHeapBytes = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize;
  const measure = (performance as unknown as { measureUserAgentSpecificMemory?: () => Promise<UASM> }).measureUserAgentSpecificMemory;
  if (!measure) {
    memory.push({ label, pageHeapBytes, error: 'measureUserAgentSpecificMemory unavailable' });
    return;
  }
  try {
    const result = await Promise.race([measure.call(performance), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out after 30 s')), 30_000))]);
    // One entry per realm; workers of the same script (the product's engine workers) are told
    // apart by size: #1 is the largest.
    const realms: [string, number][] = [];
    for (const entry of result.breakdown) {
      if (entry.attribution.length === 0) {
        realms.push(['unattributed', entry.bytes]);
        continue;
      }
      for (const a of entry.attribution) {
        const name = a.scope === 'Window' ? (a.url.includes('/bench/floor/') ? 'floor page' : 'page') : (workerNames.find(([re]) => re.test(a.url))?.[1] ?? `${a.scope} ${a.url}`);
        realms.push([name, entry.bytes / entry.attribution.length]);
      }
    }
    const byRealm: Record<string, number> = {};
    for (const name of new Set(realms.map(([n]) => n))) {
      const same = realms.filter(([n]) => n === name).sort((a, b) => b[1] - a[1]);
      same.forEach(([, bytes], i) => {
        const key = same.length > 1 && name !== 'unattributed' ? `${name} #${i + 1}` : name;
        byRealm[key] = (byRealm[key] ?? 0) + bytes;
      });
    }
    memory.push({ label, pageHeapBytes, totalBytes: result.bytes, byRealm });
  } catch (error) {
    memory.push({ label, pageHeapBytes, error: String(error) });
  }
}

// ---------------------------------------------------------------------------------------------
// Setup

interface Runtime {
  inference: Inference;
  direct: Engine & { terminate(): void };
  /** A third product engine worker, never given a model: its comlink `ping` is the product's RPC round trip. */
  idle: EngineWorker;
  raw: RawEngine;
  floor: Floor;
}

async function openFloor(): Promise<Floor> {
  const frame = document.createElement('iframe');
  frame.src = '/bench/floor/';
  const loaded = new Promise<void>((resolve) => frame.addEventListener('load', () => resolve(), { once: true }));
  document.body.append(frame);
  await loaded;
  const floor = (frame.contentWindow as Window & { floor: Floor }).floor;
  await floor.ready;
  return floor;
}

async function setup(): Promise<Runtime> {
  await log(`setup: device ${device}, profile ${config.profile}, crossOriginIsolated ${crossOriginIsolated}`);
  const inference = await startInference({ engine: { device } });
  await inference.load(CHAT_MODEL);
  await inference.load(EMBED_MODEL);
  const direct = createWorkerEngine({ device });
  installFetchShim({ engine: direct, baseUrl: SHIM_BASE });
  const idle = spawnEngineWorker({ device });
  await idle.api.ping();
  const raw = spawnRawEngine();
  await raw.load(device, { chat: CHAT_MODEL, embedding: EMBED_MODEL });
  const floor = await openFloor();

  // The two service workers must each control their own page only.
  const product = navigator.serviceWorker.controller?.scriptURL ?? '';
  if (!new URL(product).pathname.endsWith('/sw.js')) throw new Error(`The bench page is controlled by ${product}, not the product's /sw.js.`);
  if (!floor.controller()?.endsWith('/bench/floor-sw.js')) throw new Error(`The floor page is controlled by ${floor.controller()}, not the bare floor service worker.`);

  // Every path gives the same answer: the engines are loaded and the comparisons are like for like.
  const viaSw = await (await nativeFetch('/v1/chat/completions', post(chatBody(1)))).json();
  const viaShim = await (await fetch(`${SHIM_BASE}/chat/completions`, post(chatBody(1)))).json();
  let directText = '';
  for await (const e of direct.chat(chatRequest(1), { signal })) if (e.type === 'token') directText += e.text;
  if (viaSw.usage?.completion_tokens !== 1 || viaSw.choices[0].message.content !== directText || viaShim.choices[0].message.content !== directText) {
    throw new Error(`Chat paths disagree: sw ${JSON.stringify(viaSw)}, shim ${JSON.stringify(viaShim)}, direct '${directText}'.`);
  }
  const swVector = decodeBase64((await (await nativeFetch('/v1/embeddings', post({ model: EMBED_MODEL, input: EMBED_TEXT, encoding_format: 'base64' }))).json()).data[0].embedding);
  const directVector = (await direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })).embeddings[0]!;
  const rawVector = (await raw.embed([EMBED_TEXT]))[0]!;
  const diff = (a: Float32Array, b: Float32Array) => Math.max(...Array.from(a, (v, i) => Math.abs(v - b[i]!)));
  if (swVector.length !== directVector.length || diff(swVector, directVector) !== 0) throw new Error('The service worker and direct embeddings differ.');
  checks.rawVsProductEmbeddingMaxAbsDiff = diff(rawVector, directVector);
  // MessagePort messages the page sends and receives for one request on each in-page path.
  const shimChat = async () => (await fetch(`${SHIM_BASE}/chat/completions`, post(chatBody(1)))).json();
  const shimEmbed = async () => (await fetch(`${SHIM_BASE}/embeddings`, post({ model: EMBED_MODEL, input: EMBED_TEXT, encoding_format: 'base64' }))).json();
  checks.messagesPerRequest = {
    'chat 1 token, direct': await countMessages(() => drain(direct.chat(chatRequest(1), { signal }))),
    'chat 1 token, fetch shim': await countMessages(shimChat),
    'chat 40 tokens streamed, direct': await countMessages(() => drain(direct.chat(chatRequest(40), { signal }))),
    'embed 1 text, direct': await countMessages(() => direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })),
    'embed 1 text, fetch shim': await countMessages(shimEmbed),
    'comlink ping': await countMessages(() => idle.api.ping()),
  };
  await log(`setup done; product controller ${product}, floor controller ${floor.controller()}`);
  return { inference, direct, idle, raw, floor };
}

const checks: Record<string, unknown> = {};

// ---------------------------------------------------------------------------------------------
// A. Per-request latency

interface LatencyPath {
  readonly name: string;
  readonly block: 'fast' | 'engine';
  /** Runs before each block (a fresh floor port: the floor service worker may have been restarted). */
  readonly before?: () => Promise<void>;
  run(count: number): Promise<number[]>;
}

interface LatencyResult extends Summary {
  readonly name: string;
  /** Median of each round's block: the spread shows drift over the run. */
  readonly roundMedians: number[];
  readonly samples: number[];
}

function latencyPaths({ direct, idle, raw, floor }: Runtime): LatencyPath[] {
  const floorBody = JSON.stringify(chatBody(1));
  const chatInit = post(chatBody(1));
  const fl = (name: string, path: FloorLatencyPath, busyMs = 0): LatencyPath => ({
    name,
    block: busyMs ? 'engine' : 'fast',
    before: path.startsWith('sw') ? () => floor.refresh() : undefined,
    run: (count) => floor.latency(path, count, floorBody, busyMs),
  });
  const embedInit = post({ model: EMBED_MODEL, input: EMBED_TEXT, encoding_format: 'base64' });
  const embedJson = async (response: Response) => decodeBase64(((await expectOk(response, 'embeddings').json()) as EmbeddingsBody).data[0]!.embedding as string);
  // The product's own code alone, in the page: the gateway over an engine that answers at once
  // (one token; a vector computed beforehand), so no transport, RPC or model is timed.
  const vector = direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal }).then((r) => r.embeddings[0]!);
  const instant: Engine = {
    listModels: () => direct.listModels(),
    async *chat() {
      yield { type: 'start', promptTokens: 9 };
      yield { type: 'token', text: 'x' };
      yield { type: 'end', reason: 'length' };
    },
    embed: async () => ({ embeddings: [(await vector).slice()], promptTokens: 11, inputTokens: [11] }),
  };
  const gatewayAlone = createGateway({ engine: instant, baseUrl: SHIM_BASE, readBodyWhole: true });
  const viaGateway = (path: string, init: RequestInit) => gatewayAlone.fetch(new Request(`${SHIM_BASE}${path}`, init));
  return [
    fl('floor: async call in the page', 'inpage'),
    fl('floor: page ⇄ bare worker (MessagePort)', 'worker'),
    {
      // The fetch shape with no transport and no product code: what any in-page fetch shim pays.
      name: 'floor: in-page Request + Response (the fetch shape alone)',
      block: 'fast',
      run: (n) =>
        timeEach(n, async () => {
          const request = new Request(`${SHIM_BASE}/chat/completions`, chatInit);
          JSON.parse(await request.text());
          return new Response(FLOOR_ANSWER, { headers: JSON_HEADERS }).json();
        }),
    },
    fl('floor: bare SW, constant JSON', 'sw-const'),
    fl('floor: bare SW relaying to a bare worker', 'sw-relay'),
    // The same with a worker that works like an engine (2 ms of CPU per answer): the caller waits
    // idle meanwhile, as it does for a model.
    fl(`floor: page ⇄ bare worker busy ${BUSY_MS} ms`, 'worker', BUSY_MS),
    fl(`floor: bare SW relaying to a bare worker busy ${BUSY_MS} ms`, 'sw-relay', BUSY_MS),
    { name: 'rpc: comlink ping to a product engine worker', block: 'fast', run: (n) => timeEach(n, () => idle.api.ping()) },
    { name: 'models: GET /v1/models via SW', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await nativeFetch('/v1/models'), 'models').json()) },
    { name: 'models: GET /v1/models via fetch shim', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await fetch(`${SHIM_BASE}/models`), 'models').json()) },
    { name: 'chat 1 token: direct (createWorkerEngine)', block: 'engine', run: (n) => timeEach(n, () => drain(direct.chat(chatRequest(1), { signal }))) },
    { name: 'chat 1 token: fetch shim', block: 'engine', run: (n) => timeEach(n, async () => expectOk(await fetch(`${SHIM_BASE}/chat/completions`, chatInit), 'chat').json()) },
    { name: 'chat 1 token: SW', block: 'engine', run: (n) => timeEach(n, async () => expectOk(await nativeFetch('/v1/chat/completions', chatInit), 'chat').json()) },
    { name: 'chat 1 token: raw transformers.js worker', block: 'engine', run: (n) => timeEach(n, () => raw.generate(PROMPT, 1)) },
    { name: 'chat 1 token: diag: the gateway alone in the page (instant engine)', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await viaGateway('/chat/completions', chatInit), 'chat').json()) },
    { name: 'embed 1 text: direct (createWorkerEngine)', block: 'engine', run: (n) => timeEach(n, () => direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })) },
    { name: 'embed 1 text: fetch shim (base64)', block: 'engine', run: (n) => timeEach(n, async () => embedJson(await fetch(`${SHIM_BASE}/embeddings`, embedInit))) },
    { name: 'embed 1 text: SW (base64)', block: 'engine', run: (n) => timeEach(n, async () => embedJson(await nativeFetch('/v1/embeddings', embedInit))) },
    { name: 'embed 1 text: raw transformers.js worker', block: 'engine', run: (n) => timeEach(n, () => raw.embed([EMBED_TEXT])) },
    { name: 'embed 1 text: diag: the gateway alone in the page (instant engine)', block: 'fast', run: (n) => timeEach(n, async () => embedJson(await viaGateway('/embeddings', embedInit))) },
  ];
}

/**
 * The overhead formula sample by sample: the four paths it names (SW, direct, bare SW relay to a
 * busy worker, page ⇄ that worker), one request each, back to back in a rotating order, many
 * times. Drift and bursts of other work then hit all four of a sample alike; the result is one
 * overhead value per sample, (SW − direct) − (relay − worker).
 */
async function pairedOverhead(paths: LatencyPath[], kind: string, samples: number): Promise<number[]> {
  const named = (prefix: string) => paths.find((p) => p.name.startsWith(prefix))!;
  const quad = [named(`${kind}: SW`), named(`${kind}: direct`), named(`floor: bare SW relaying to a bare worker busy`), named(`floor: page ⇄ bare worker busy`)];
  await quad[2]!.before?.();
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = new Map<LatencyPath, number>();
    for (const path of rotate(quad, i)) t.set(path, (await path.run(1))[0]!);
    const [sw, direct, relay, worker] = quad.map((p) => t.get(p)!) as [number, number, number, number];
    out.push(sw - direct - (relay - worker));
  }
  return out;
}

async function latency(runtime: Runtime): Promise<LatencyResult[]> {
  const paths = latencyPaths(runtime);
  const rounds = byProfile({ quick: 2, short: 3, full: 16 });
  const size = { fast: byProfile({ quick: 30, short: 50, full: 100 }), engine: byProfile({ quick: 15, short: 8, full: 40 }) };
  const warmup = byProfile({ quick: 10, short: 5, full: 40 });
  const samples = new Map(paths.map((p) => [p.name, [] as number[]]));
  const medians = new Map(paths.map((p) => [p.name, [] as number[]]));
  // A fresh browser settles for several seconds (every path, the floor included, runs about twice
  // as slow in the first rounds): warm up every path for a while, not just a few requests.
  const settleMs = byProfile({ quick: 0, short: 3000, full: 15000 });
  const warmStart = performance.now();
  let passes = 0;
  do {
    for (const path of paths) {
      await path.before?.();
      await path.run(warmup);
    }
    passes++;
  } while (performance.now() - warmStart < settleMs);
  await log(`latency: warmed up in ${passes} passes, ${((performance.now() - warmStart) / 1000).toFixed(1)} s`);
  for (let round = 0; round < rounds; round++) {
    for (const path of rotate(paths, round)) {
      await path.before?.();
      await path.run(3);
      const times = await path.run(size[path.block]);
      samples.get(path.name)!.push(...times);
      medians.get(path.name)!.push(summarize(times).median);
    }
    await log(`latency: round ${round + 1}/${rounds}`);
  }
  const results: LatencyResult[] = paths.map((p) => ({ name: p.name, ...summarize(samples.get(p.name)!), roundMedians: medians.get(p.name)!, samples: samples.get(p.name)! }));
  const n = byProfile({ quick: 30, short: 30, full: 400 });
  for (const kind of ['chat 1 token', 'embed 1 text']) {
    const overhead = await pairedOverhead(paths, kind, n);
    results.push({ name: `${kind}: paired overhead`, ...summarize(overhead), roundMedians: [], samples: overhead });
    await log(`latency: paired overhead, ${kind}: median ${summarize(overhead).median.toFixed(3)} ms`);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// B1. Streaming at the engine's real rate

interface StreamRun {
  readonly tokens: number;
  readonly totalMs: number;
  readonly firstTokenMs: number;
  readonly lastTokenMs: number;
}

async function streamSSE(fetcher: typeof fetch, url: string, maxTokens: number, model = CHAT_MODEL): Promise<StreamRun> {
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  let tokens = 0;
  const response = expectOk(await fetcher(url, post(chatBody(maxTokens, true, model))), 'stream');
  await readSSE(response, (data) => {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[]; usage?: { completion_tokens: number } };
    if (chunk.choices[0]?.delta?.content) {
      last = performance.now();
      if (!first) first = last;
    }
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  });
  return { tokens, totalMs: performance.now() - t0, firstTokenMs: first - t0, lastTokenMs: last - t0 };
}

async function streamDirect(engine: Engine, maxTokens: number, model = CHAT_MODEL): Promise<StreamRun> {
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  let tokens = 0;
  for await (const event of engine.chat({ ...chatRequest(maxTokens), model }, { signal })) {
    if (event.type !== 'token') continue;
    tokens++;
    last = performance.now();
    if (!first) first = last;
  }
  return { tokens, totalMs: performance.now() - t0, firstTokenMs: first - t0, lastTokenMs: last - t0 };
}

async function streamRaw(raw: RawEngine, maxTokens: number): Promise<StreamRun> {
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  const tokens = await raw.generate(PROMPT, maxTokens, () => {
    last = performance.now();
    if (!first) first = last;
  });
  return { tokens, totalMs: performance.now() - t0, firstTokenMs: first - t0, lastTokenMs: last - t0 };
}

async function streaming({ direct, raw }: Runtime) {
  // tiny-chat ends every answer after 40 tokens (scripts/tiny-models/tiny-chat.ts): the longest
  // real completion there is. The paced synthetic producer streams a long one (burst section).
  const maxTokens = 40;
  const rounds = byProfile({ quick: 2, short: 3, full: 20 });
  const paths: [string, () => Promise<StreamRun>][] = [
    ['stream: direct (createWorkerEngine)', () => streamDirect(direct, maxTokens)],
    ['stream: fetch shim (SSE)', () => streamSSE(fetch, `${SHIM_BASE}/chat/completions`, maxTokens)],
    ['stream: SW (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', maxTokens)],
    ['stream: raw transformers.js worker', () => streamRaw(raw, maxTokens)],
  ];
  const runs = new Map(paths.map(([name]) => [name, [] as StreamRun[]]));
  for (const [, run] of paths) await run();
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of rotate(paths, round)) runs.get(name)!.push(await run());
    await log(`streaming: round ${round + 1}/${rounds}`);
  }
  return { maxTokens, paths: paths.map(([name]) => summarizeStream(name, runs.get(name)!)) };
}

function summarizeStream(name: string, r: StreamRun[]) {
  return {
    name,
    tokens: r.map((x) => x.tokens),
    /** Tokens per second over the whole request (request to last byte). */
    tokensPerSec: summarize(r.map((x) => (x.tokens / x.totalMs) * 1000)),
    /** Tokens per second between the first and the last token (the decode rate as delivered). */
    decodeTokensPerSec: summarize(r.map((x) => ((x.tokens - 1) / (x.lastTokenMs - x.firstTokenMs)) * 1000)),
    firstTokenMs: summarize(r.map((x) => x.firstTokenMs)),
    totalMs: summarize(r.map((x) => x.totalMs)),
  };
}

// ---------------------------------------------------------------------------------------------
// C. Embedding throughput and dynamic batching

async function embedRequest(fetcher: typeof fetch, url: string, input: string | string[], encoding: 'base64' | 'float'): Promise<{ vectors: (Float32Array | number[])[]; tokens: number }> {
  const body = (await expectOk(await fetcher(url, post({ model: EMBED_MODEL, input, encoding_format: encoding })), 'embeddings').json()) as EmbeddingsBody;
  const vectors = body.data.map((d, i) => {
    if (d.index !== i) throw new Error(`embeddings: data[${i}].index is ${d.index}`);
    return typeof d.embedding === 'string' ? decodeBase64(d.embedding) : d.embedding;
  });
  return { vectors, tokens: body.usage.prompt_tokens };
}

async function embeddings(runtime: Runtime) {
  const { direct, raw } = runtime;
  const sw = '/v1/embeddings';
  const shim = `${SHIM_BASE}/embeddings`;
  const n = TEXTS.length;
  const one = (fetcher: typeof fetch, url: string, enc: 'base64' | 'float') => () => embedRequest(fetcher, url, TEXTS, enc);
  const many = (fetcher: typeof fetch, url: string, enc: 'base64' | 'float') => () => Promise.all(TEXTS.map((t) => embedRequest(fetcher, url, t, enc)));
  // The gateway alone: the product's HTTP shaping of an N-text request in the page, over an engine
  // that answers at once with vectors computed beforehand (no RPC, no model).
  const computed = await direct.embed({ model: EMBED_MODEL, input: TEXTS }, { signal });
  const models = await direct.listModels();
  const instant: Engine = {
    listModels: async () => models,
    chat: () => {
      throw new Error('not used');
    },
    embed: async () => ({ ...computed, embeddings: computed.embeddings.map((v) => v.slice()) }),
  };
  const instantGateway = createGateway({ engine: instant, baseUrl: SHIM_BASE });
  const viaInstant = ((url: string, init: RequestInit) => instantGateway.fetch(new Request(url, init))) as typeof fetch;
  const batchPaths: [string, () => Promise<unknown>][] = [
    [`1 request × ${n} texts: SW, base64`, one(nativeFetch, sw, 'base64')],
    [`1 request × ${n} texts: SW, float`, one(nativeFetch, sw, 'float')],
    [`1 request × ${n} texts: fetch shim, base64`, one(fetch, shim, 'base64')],
    [`1 request × ${n} texts: fetch shim, float`, one(fetch, shim, 'float')],
    [`1 request × ${n} texts: direct (createWorkerEngine)`, () => direct.embed({ model: EMBED_MODEL, input: TEXTS }, { signal })],
    [`1 request × ${n} texts: raw transformers.js, one call`, () => raw.embed(TEXTS)],
    // Where the product's engine side spends its time: its adapter embeds in batches of 32 and
    // tokenizes every text once more, alone, for the usage counts.
    [`diag: raw transformers.js, ${n} texts in calls of 32`, () => raw.embed(TEXTS, 32)],
    [`diag: raw tokenizer.encode of the ${n} texts one by one`, () => raw.tokenize(TEXTS)],
    [`diag: the gateway alone in the page (instant engine), base64`, one(viaInstant, shim, 'base64')],
    [`diag: the gateway alone in the page (instant engine), float`, one(viaInstant, shim, 'float')],
  ];
  const reference: { vectors: Float32Array[]; tokens: number[] } = { vectors: [], tokens: [] };
  const concurrentPaths: [string, () => Promise<unknown>][] = [
    [`${n} concurrent 1-text requests: SW, base64`, many(nativeFetch, sw, 'base64')],
    [`${n} concurrent 1-text requests: SW, float`, many(nativeFetch, sw, 'float')],
    [`${n} concurrent 1-text requests: fetch shim, base64`, many(fetch, shim, 'base64')],
    [`${n} concurrent 1-text calls: direct (createWorkerEngine)`, () => Promise.all(TEXTS.map((t) => direct.embed({ model: EMBED_MODEL, input: [t] }, { signal })))],
    [
      `${n} sequential 1-text calls: direct (createWorkerEngine)`,
      async () => {
        const vectors: Float32Array[] = [];
        const tokens: number[] = [];
        for (const t of TEXTS) {
          const r = await direct.embed({ model: EMBED_MODEL, input: [t] }, { signal });
          vectors.push(r.embeddings[0]!);
          tokens.push(r.promptTokens);
        }
        if (reference.vectors.length === 0) Object.assign(reference, { vectors, tokens });
      },
    ],
    [
      `${n} sequential 1-text calls: raw transformers.js`,
      async () => {
        for (const t of TEXTS) await raw.embed([t]);
      },
    ],
    [`floor: ${n} concurrent requests, bare SW relaying to a bare worker (no engine)`, () => runtime.floor.concurrent('sw-relay', n, JSON.stringify({ model: EMBED_MODEL, input: 'x' }))],
    [`floor: ${n} concurrent requests, bare SW constant JSON (no engine)`, () => runtime.floor.concurrent('sw-const', n, JSON.stringify({ model: EMBED_MODEL, input: 'x' }))],
    [
      `${n} sequential 1-text requests: SW, base64`,
      async () => {
        for (const t of TEXTS) await embedRequest(nativeFetch, sw, t, 'base64');
      },
    ],
  ];
  const rounds = byProfile({ quick: 1, short: 2, full: 12 });
  const concurrentRounds = byProfile({ quick: 1, short: 1, full: 6 });
  const kept = (name: string) => !REDUCED || (/SW, base64|direct|raw|floor/.test(name) && !/^diag|sequential 1-text requests: SW|concurrent 1-text calls: direct/.test(name));
  // How many engine calls the service worker's requests took (the host's counters): fewer calls
  // than requests is what batching merged. Read outside the timed part.
  const embedCounts = async () => {
    const model = (await runtime.inference.status())?.find((m) => m.model === EMBED_MODEL);
    return { requests: model?.requests ?? 0, engineCalls: model?.engineCalls ?? 0 };
  };
  const measure = async (all: [string, () => Promise<unknown>][], count: number) => {
    const paths = all.filter(([name]) => kept(name));
    const merging = new Map(paths.filter(([name]) => name.includes(': SW')).map(([name]) => [name, { requests: 0, engineCalls: 0 }]));
    const before = async (name: string) => {
      if (name.startsWith('floor')) await runtime.floor.refresh();
    };
    const times = new Map(paths.map(([name]) => [name, [] as number[]]));
    for (const [name, run] of paths) {
      await before(name);
      const t0 = performance.now();
      await run();
      await log(`embeddings warm-up: ${name}: ${(performance.now() - t0).toFixed(0)} ms`);
    }
    for (let round = 0; round < count; round++) {
      for (const [name, run] of rotate(paths, round)) {
        await before(name);
        const counts = merging.has(name) ? await embedCounts() : undefined;
        const t0 = performance.now();
        const out = await run();
        // Floor rows time themselves inside the floor page.
        times.get(name)!.push(typeof out === 'number' ? out : performance.now() - t0);
        if (counts) {
          const after = await embedCounts();
          const total = merging.get(name)!;
          total.requests += after.requests - counts.requests;
          total.engineCalls += after.engineCalls - counts.engineCalls;
        }
      }
      await log(`embeddings: round ${round + 1}/${count}`);
    }
    return paths.map(([name]) => {
      const ms = summarize(times.get(name)!);
      // `rounds`: each round's time, in round order (every round runs every path once: paired samples).
      return { name, ms, textsPerSec: summarize(times.get(name)!.map((t) => (n / t) * 1000)), rounds: times.get(name)!, ...(merging.has(name) ? { merging: merging.get(name)! } : {}) };
    });
  };
  const batch = await measure(batchPaths, rounds);
  const concurrent = await measure(concurrentPaths, concurrentRounds);

  // Dynamic batching is exact: each concurrent request gets its own vectors (bit for bit the
  // unbatched ones), in order, with its own usage. 256 one-text requests, and 64 requests of 1–4
  // texts each, all in flight at once through the service worker.
  type Requester = (texts: string[]) => Promise<{ vectors: (Float32Array | number[])[]; tokens: number }>;
  const viaSw: Requester = (texts) => embedRequest(nativeFetch, sw, texts.length === 1 ? texts[0]! : texts, 'base64');
  const viaDirect: Requester = async (texts) => {
    const r = await direct.embed({ model: EMBED_MODEL, input: texts }, { signal });
    return { vectors: [...r.embeddings], tokens: r.promptTokens };
  };
  type Reply = { vectors: (Float32Array | number[])[]; tokens: number };
  const compare = (replies: Reply[], references: Reply[]) => {
    let identical = 0;
    let compared = 0;
    let maxAbsDiff = 0;
    let usageExact = 0;
    replies.forEach((reply, k) => {
      const ref = references[k]!;
      if (reply.vectors.length !== ref.vectors.length) throw new Error(`batching: request ${k} got ${reply.vectors.length} vectors for ${ref.vectors.length} texts`);
      reply.vectors.forEach((v, j) => {
        const expected = ref.vectors[j]!;
        compared++;
        let same = v.length === expected.length;
        for (let d = 0; d < expected.length; d++) {
          const diff = Math.abs((v[d] as number) - (expected[d] as number));
          if (diff !== 0) same = false;
          maxAbsDiff = Math.max(maxAbsDiff, diff);
        }
        if (same) identical++;
      });
      if (reply.tokens === ref.tokens) usageExact++;
    });
    return { requests: replies.length, vectors: compared, bitIdentical: identical, maxAbsDiff, usageExact };
  };
  /** Requests of `sizes` texts (consecutive texts), all in flight at once, vs each one sent alone (one at a time, direct). */
  const exactness = async (sizes: number[], request: Requester) => {
    let offset = 0;
    const requests = sizes.map((size) => TEXTS.slice(offset, (offset += size)));
    const alone: Reply[] = [];
    for (const texts of requests) alone.push(await viaDirect(texts));
    const before = await embedCounts();
    const replies = await Promise.all(requests.map((texts) => request(texts)));
    const after = await embedCounts();
    const merging = request === viaSw ? { merging: { requests: after.requests - before.requests, engineCalls: after.engineCalls - before.engineCalls } } : {};
    return { ...compare(replies, alone), ...merging };
  };
  const sizes: number[] = [];
  for (let left = Math.min(160, n), i = 0; left > 0; i++) {
    const s = Math.min(left, 1 + (i % 4));
    sizes.push(s);
    left -= s;
  }
  const exact = {
    [`SW: ${n} concurrent one-text requests`]: await exactness(TEXTS.map(() => 1), viaSw),
    [`SW: ${sizes.length} concurrent requests of 1–4 texts`]: await exactness(sizes, viaSw),
    [`direct: ${n} concurrent one-text calls`]: await exactness(TEXTS.map(() => 1), viaDirect),
  };
  // Not the batcher: the engine itself. The texts of each multi-text request above, embedded in
  // one call, vs the same texts one call each (what merging different requests does to a vector).
  let cursor = 0;
  const multi = sizes.map((size) => TEXTS.slice(cursor, (cursor += size)));
  const oneByOne = multi.map((texts) => ({
    vectors: texts.map((_, j) => reference.vectors[TEXTS.indexOf(texts[j]!)]!),
    tokens: texts.reduce((sum, t) => sum + reference.tokens[TEXTS.indexOf(t)]!, 0),
  }));
  const together: Reply[] = [];
  for (const texts of multi) together.push(await viaDirect(texts));
  const engineBatch = compare(together, oneByOne);
  return { texts: n, batch, concurrent, exact, engineBatch };
}

// ---------------------------------------------------------------------------------------------
// B2. Per-chunk cost at burst speed (the synthetic producer)

async function burst(runtime: Runtime) {
  const n = byProfile({ quick: 1000, short: 1000, full: 5000 });
  const rounds = byProfile({ quick: 2, short: 2, full: 8 });
  const producer = createSyntheticProducer();
  const worker = new Worker(new URL('./workers/synthetic-worker.ts', import.meta.url), { type: 'module', name: 'bench-synthetic-producer' });
  const connect = () => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ type: 'CONNECT', port: port1 }, [port1]);
    return port2;
  };
  const linked = linkEngine(wrap<EngineHostApi>(connect()));
  const gatewayInPage = createGateway({ engine: producer, baseUrl: SHIM_BASE });
  const gatewayOverWorker = createGateway({ engine: linked, baseUrl: SHIM_BASE });
  const request: ChatRequest = { model: SYNTHETIC_MODEL, messages: PROMPT, maxTokens: n, stop: [] };
  const body = JSON.stringify(chatBody(n, false, SYNTHETIC_MODEL));
  const streamBody = JSON.stringify({ ...JSON.parse(body), stream: true });
  const viaGateway = (g: { fetch(r: Request): Promise<Response> }) => async () => {
    const { events } = await readSSE(await g.fetch(new Request(`${SHIM_BASE}/chat/completions`, { method: 'POST', headers: JSON_HEADERS, body: streamBody })));
    return events;
  };

  // The product's service worker, re-linked to the synthetic producer's worker: the real host
  // steps down (its engine worker stops), and this page offers the producer's port instead,
  // through the same control message the host uses.
  await runtime.inference.stop();
  await new Promise((resolve) => setTimeout(resolve, 100));
  navigator.serviceWorker.controller!.postMessage({ type: 'HOST_GONE' });

  // tiny-chat streamed by one and the same engine worker (the idle one, now given the model),
  // directly and through the service worker: the streaming section's SW and direct paths use two
  // different workers, so this tells the worker apart from the route.
  await runtime.idle.api.load(CHAT_MODEL);
  const idlePort = runtime.idle.connect();
  navigator.serviceWorker.controller!.postMessage({ type: 'ENGINE_PORT', port: idlePort, build: BUILD }, [idlePort]);
  const sameLink = linkEngine(wrap<EngineHostApi>(runtime.idle.connect()));
  const sameTokens = 40;
  const samePaths: [string, () => Promise<StreamRun>][] = [
    ['one worker: tiny-chat direct', () => streamDirect(sameLink, sameTokens)],
    ['one worker: tiny-chat via SW (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', sameTokens)],
  ];
  const sameRuns = new Map(samePaths.map(([name]) => [name, [] as StreamRun[]]));
  for (const [, run] of samePaths) await run();
  for (let round = 0; round < byProfile({ quick: 2, short: 3, full: 20 }); round++) {
    for (const [name, run] of rotate(samePaths, round)) sameRuns.get(name)!.push(await run());
  }
  await log('one worker: done');
  const sameWorker = { maxTokens: sameTokens, paths: samePaths.map(([name]) => summarizeStream(name, sameRuns.get(name)!)) };
  sameLink.sever('done');
  navigator.serviceWorker.controller!.postMessage({ type: 'HOST_GONE' });

  const port = connect();
  navigator.serviceWorker.controller!.postMessage({ type: 'ENGINE_PORT', port, build: BUILD }, [port]);
  const viaSw = async () => {
    const response = expectOk(await nativeFetch('/v1/chat/completions', { method: 'POST', headers: JSON_HEADERS, body: streamBody }), 'burst via SW');
    return (await readSSE(response)).events;
  };

  const floorPath = (path: FloorStreamPath) => async () => {
    if (path !== 'worker-stream') await runtime.floor.refresh();
    return runtime.floor.stream(path, n);
  };
  // Each path: [name, run, expected events]. SSE paths carry a role chunk, the n content chunks,
  // a finish chunk and [DONE].
  const paths: [string, () => Promise<unknown>, number | null][] = [
    ['burst: synthetic producer in the page (for await)', () => drain(producer.chat(request, { signal })), n + 2],
    ['burst: synthetic worker via product RPC (direct)', () => drain(linked.chat(request, { signal })), n + 2],
    ['burst: product gateway in the page, producer in the page', viaGateway(gatewayInPage), n + 3],
    ['burst: fetch-shim path (gateway in page → RPC → worker)', viaGateway(gatewayOverWorker), n + 3],
    ['burst: SW path (product SW → RPC → worker)', viaSw, n + 3],
    ['floor burst: bare worker → page, one message per chunk', floorPath('worker-stream'), null],
    ['floor burst: bare SW relaying a bare worker, one message per chunk', floorPath('sw-relay-stream'), null],
    ['floor burst: bare SW producing the chunks itself', floorPath('sw-const-stream'), null],
  ];
  const times = new Map(paths.map(([name]) => [name, [] as number[]]));
  const outputs = new Map<string, unknown>();
  for (const [name, run] of paths) outputs.set(name, await run());
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of rotate(paths, round)) {
      // Floor streams time themselves from inside the floor page, after the port refresh.
      const t0 = performance.now();
      const out = await run();
      const ms = typeof out === 'object' && out !== null && 'ms' in out ? (out as { ms: number }).ms : performance.now() - t0;
      times.get(name)!.push(ms);
    }
    await log(`burst: round ${round + 1}/${rounds}`);
  }
  for (const [name, , expected] of paths) {
    const out = outputs.get(name);
    const count = typeof out === 'number' ? out : (out as { chunks: number }).chunks;
    if (expected !== null && count !== expected) throw new Error(`${name}: ${count} events, expected ${expected}`);
  }

  // A long completion at a steady rate: the paced producer (PACE_MS of CPU per token), and the
  // same at about tiny-chat's rate; each beside the bare floor streaming at the same pace.
  const pacedTokens = byProfile({ quick: 100, short: 200, full: 400 });
  const pacedRounds = byProfile({ quick: 1, short: 2, full: 6 });
  const gatewayFetch = ((url: string, init: RequestInit) => gatewayOverWorker.fetch(new Request(url, init))) as typeof fetch;
  const floorRun = (path: 'worker-stream' | 'sw-relay-stream', paceMs: number, yieldEach: boolean) => async (): Promise<StreamRun> => {
    if (path !== 'worker-stream') await runtime.floor.refresh();
    const { ms, chunks } = await runtime.floor.stream(path, pacedTokens, paceMs, yieldEach);
    // The floor times the whole stream only: first and last token are not told apart.
    return { tokens: chunks, totalMs: ms, firstTokenMs: 0, lastTokenMs: ms };
  };
  const pacedSection = async (model: string, paceMs: number, yieldEach = false) => {
    const paths: [string, () => Promise<StreamRun>][] = [
      ['paced stream: synthetic worker via product RPC (direct)', () => streamDirect(linked, pacedTokens, model)],
      ['paced stream: fetch-shim path (SSE)', () => streamSSE(gatewayFetch, `${SHIM_BASE}/chat/completions`, pacedTokens, model)],
      ['paced stream: SW path (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', pacedTokens, model)],
      ['floor paced: bare worker → page', floorRun('worker-stream', paceMs, yieldEach)],
      ['floor paced: bare SW relaying the bare worker', floorRun('sw-relay-stream', paceMs, yieldEach)],
    ];
    const runs = new Map(paths.map(([name]) => [name, [] as StreamRun[]]));
    for (const [, run] of paths) await run();
    for (let round = 0; round < pacedRounds; round++) {
      for (const [name, run] of rotate(paths, round)) runs.get(name)!.push(await run());
      await log(`paced stream (${paceMs} ms per token): round ${round + 1}/${pacedRounds}`);
    }
    return { maxTokens: pacedTokens, paceMs, yieldEach, paths: paths.map(([name]) => summarizeStream(name, runs.get(name)!)) };
  };
  const paced = await pacedSection(PACED_MODEL, PACE_MS);
  const pacedFast = await pacedSection(FAST_PACED_MODEL, FAST_PACE_MS);
  const pacedYielding = await pacedSection(YIELDING_PACED_MODEL, FAST_PACE_MS, true);

  return {
    chunks: n,
    paths: paths.map(([name]) => {
      const ms = summarize(times.get(name)!);
      const out = outputs.get(name);
      return { name, ms, usPerChunk: (ms.median / n) * 1000, chunksPerSec: (n / ms.median) * 1000, reads: typeof out === 'object' && out ? (out as { reads: number }).reads : undefined };
    }),
    paced,
    pacedFast,
    pacedYielding,
    sameWorker,
  };
}

// ---------------------------------------------------------------------------------------------

async function environment() {
  // Timer resolution: the smallest non-zero step of performance.now().
  let step = Infinity;
  for (let i = 0; i < 2000; i++) {
    const a = performance.now();
    let b = performance.now();
    while (b === a) b = performance.now();
    step = Math.min(step, b - a);
  }
  let adapter: string | undefined;
  try {
    const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info?: { vendor: string; architecture: string; description: string } } | null> } }).gpu;
    const a = await gpu?.requestAdapter();
    adapter = a ? `${a.info?.vendor ?? '?'} ${a.info?.architecture ?? ''} ${a.info?.description ?? ''}`.trim() : 'none';
  } catch (error) {
    adapter = `error: ${error}`;
  }
  return { userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency, crossOriginIsolated, timerResolutionMs: step, webgpuAdapter: adapter, build: BUILD };
}

async function main(): Promise<void> {
  const env = await environment();
  const runtime = await setup();
  await sampleMemory('after setup');
  const result: Record<string, unknown> = { device, profile: config.profile, env };
  if (want('latency')) {
    result.latency = await latency(runtime);
    await sampleMemory('after latency');
  }
  if (want('stream')) {
    result.streaming = await streaming(runtime);
    await sampleMemory('after streaming');
  }
  if (want('embeddings')) {
    result.embeddings = await embeddings(runtime);
    await sampleMemory('after embeddings');
  }
  if (want('burst')) {
    result.burst = await burst(runtime);
    await sampleMemory('after burst');
  }
  result.memory = memory;
  result.checks = checks;
  await finish(result);
}

main().catch(fail);
