/**
 * `npm run bench`: builds the app with the benchmark pages (`vite build --mode bench`), serves it
 * cross-origin isolated (COOP/COEP) from a tiny static server, runs the benchmark pages in Debian's
 * chromium (the flags of playwright.config.ts: WebGPU through SwiftShader), collects what the pages
 * POST back, and writes bench/results/<timestamp>.json and .md, printing the tables.
 *
 * Driver: by default chromium is started as a plain process with no DevTools attached (no
 * Playwright, no CDP): DevTools instrumentation costs ~1 ms per fetch and nothing per postMessage,
 * so it would tax the HTTP-shaped paths only. All timing happens inside the pages anyway.
 * `--driver playwright` runs the same pages under Playwright (for debugging: console output).
 *
 * Options:
 *   --device wasm|webgpu|both   backend of transformers.js (default both: everything on WASM plus
 *                               a short WebGPU section; webgpu alone runs everything on WebGPU)
 *   --quick                     a smoke run: few repetitions (two to three minutes)
 *   --profile quick|short|full  repetition profile for every task (overrides the defaults above)
 *   --sections a,b              main-page sections: latency, stream, embeddings, burst (default all)
 *   --no-load                   skip the cold/warm load tasks
 *   --no-main                   only the load tasks
 *   --no-build                  reuse the last bench build
 *   --runs N                    run the main page N times (fresh browser each) and judge the
 *                               targets on the median over the runs (default 1)
 *   --driver chromium|playwright
 * @module
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../e2e/chromium.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OUT_DIR = join(ROOT, 'node_modules/.cache/inpage-llm-bench/dist');
const LOCK = join(ROOT, 'node_modules/.cache/inpage-llm-bench/run.lock');
const RESULTS = join(ROOT, 'bench/results');
const CHROMIUM = CHROMIUM_PATH;

// ------------------------------------------------------------------------------------------------
// Options

type Device = 'wasm' | 'webgpu';
type Profile = 'quick' | 'short' | 'full';

function parseArgs(argv: string[]) {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const device = value('--device') ?? 'both';
  if (!['wasm', 'webgpu', 'both'].includes(device)) throw new Error(`--device must be wasm, webgpu or both (got ${device})`);
  const driver = value('--driver') ?? 'chromium';
  if (!['chromium', 'playwright'].includes(driver)) throw new Error(`--driver must be chromium or playwright (got ${driver})`);
  const runs = Number(value('--runs') ?? '1');
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1 (got ${value('--runs')})`);
  const profile = value('--profile');
  if (profile !== undefined && !['quick', 'short', 'full'].includes(profile)) throw new Error(`--profile must be quick, short or full (got ${profile})`);
  return {
    device: device as Device | 'both',
    quick: argv.includes('--quick'),
    profile: profile as Profile | undefined,
    sections: value('--sections')?.split(','),
    load: !argv.includes('--no-load'),
    main: !argv.includes('--no-main'),
    build: !argv.includes('--no-build'),
    driver: driver as 'chromium' | 'playwright',
    runs,
  };
}
const options = parseArgs(process.argv.slice(2));

// The browser tests' flags (e2e/chromium.ts), plus the ones Playwright itself adds that matter
// for timing (no background throttling, no field trials); no DevTools pipe or port.
// measureUserAgentSpecificMemory otherwise waits for the next garbage collection (~20 s idle per
// sample); this only makes it measure at once.
const MEMORY_FLAG = '--enable-blink-features=ForceEagerMeasureMemory';
const PLAYWRIGHT_DEFAULTS = [
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-popup-blocking',
  '--no-default-browser-check',
  '--password-store=basic',
  '--use-mock-keychain',
  '--enable-unsafe-swiftshader',
  '--disable-search-engine-choice-screen',
];

// ------------------------------------------------------------------------------------------------
// One run at a time: a second one would rebuild the pages under the first, and two runs sharing
// two cores measure each other.

function takeLock(): void {
  mkdirSync(dirname(LOCK), { recursive: true });
  try {
    writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(readFileSync(LOCK, 'utf8'));
    let alive = false;
    try {
      process.kill(holder, 0);
      alive = true;
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (alive && holder !== process.pid) throw new Error(`bench: another run is in progress (pid ${holder}); two at once would measure each other. Wait for it, or remove ${LOCK} if it is stale.`);
    writeFileSync(LOCK, String(process.pid));
  }
  process.on('exit', () => {
    try {
      if (readFileSync(LOCK, 'utf8') === String(process.pid)) rmSync(LOCK);
    } catch {
      // Already gone.
    }
  });
}

// ------------------------------------------------------------------------------------------------
// Build

function build(): Promise<void> {
  console.log('bench: preparing the bundled models (npm run assets)…');
  const assets = spawnSync(process.execPath, ['scripts/prepare-assets.ts'], { cwd: ROOT, stdio: 'inherit' });
  if (assets.status !== 0) throw new Error('scripts/prepare-assets.ts failed');
  console.log(`bench: vite build --mode bench → ${OUT_DIR}`);
  return import('vite').then(async ({ build }) => {
    await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), mode: 'bench', logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  });
}

// ------------------------------------------------------------------------------------------------
// Server: static files, cross-origin isolated, plus the pages' POST channel

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

interface TaskListener {
  onLog(message: string): void;
  onResult(result: unknown): void;
  onError(message: string): void;
}
let listener: TaskListener | undefined;

function fileFor(pathname: string): string | undefined {
  if (pathname === '/bench/floor/' || pathname === '/bench/floor/index.html') return join(OUT_DIR, 'bench/pages/floor.html');
  // The bare floor service worker is served from its source: it has no imports and no build step.
  if (pathname === '/bench/floor-sw.js') return join(ROOT, 'bench/floor-sw.js');
  const path = normalize(join(OUT_DIR, decodeURIComponent(pathname)));
  if (!path.startsWith(OUT_DIR)) return undefined;
  if (existsSync(path) && statSync(path).isDirectory()) return join(path, 'index.html');
  return path;
}

function serve(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  // Cross-origin isolation for every response: 5 µs timers, measureUserAgentSpecificMemory.
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-embedder-policy', 'require-corp');
  res.setHeader('cross-origin-resource-policy', 'same-origin');
  if (req.method === 'POST' && url.pathname.startsWith('/__bench/')) {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      const message = JSON.parse(body) as { message?: string; result?: unknown };
      const kind = url.pathname.slice('/__bench/'.length);
      if (kind === 'log') listener?.onLog(message.message ?? '');
      else if (kind === 'result') listener?.onResult(message.result);
      else if (kind === 'error') listener?.onError(message.message ?? 'unknown error');
    });
    return;
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204).end();
    return;
  }
  const file = fileFor(url.pathname);
  if (!file || !existsSync(file) || req.method !== 'GET') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const stat = statSync(file);
  const etag = `W/"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`;
  // Hashed build assets are immutable; everything else (pages, /sw.js, /models/) is revalidated:
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

// ------------------------------------------------------------------------------------------------
// Browser tasks

interface Task {
  readonly name: string;
  readonly page: string;
  readonly config: Record<string, unknown>;
  /** Results the page posts before the task is over (load pages post one per iteration). */
  readonly results: number;
  readonly timeoutMs: number;
}

/** Stops the browser of the task in progress (also on Ctrl-C: chromium runs in its own process group). */
let stopCurrent: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void (stopCurrent?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

async function runTask(origin: string, task: Task): Promise<unknown[]> {
  const url = `${origin}${task.page}?cfg=${encodeURIComponent(JSON.stringify({ task: task.name, ...task.config }))}`;
  const results: unknown[] = [];
  const started = Date.now();
  let browserLog = '';
  let launched: Promise<() => Promise<void>> | undefined;
  try {
    await new Promise<void>((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`${task.name}: no result after ${task.timeoutMs / 1000} s`)), task.timeoutMs);
      listener = {
        onLog: (message) => console.log(`  [${task.name} +${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`),
        onResult: (result) => {
          results.push(result);
          if (results.length === task.results) {
            clearTimeout(timer);
            resolvePromise();
          }
        },
        onError: (message) => {
          clearTimeout(timer);
          reject(new Error(`${task.name}: the page failed: ${message}`));
        },
      };
      launched = options.driver === 'playwright' ? launchPlaywright(url) : launchChromium(url, (text) => (browserLog = (browserLog + text).slice(-20_000)));
      stopCurrent = async () => (await launched?.catch(() => undefined))?.();
      launched.catch(reject);
    });
  } catch (error) {
    if (browserLog) console.error(`--- chromium output (tail) ---\n${browserLog.slice(-4000)}`);
    throw error;
  } finally {
    listener = undefined;
    await stopCurrent?.();
    stopCurrent = undefined;
  }
  return results;
}

/** Chromium as a plain process in a fresh profile: no DevTools attached. */
async function launchChromium(url: string, output: (text: string) => void): Promise<() => Promise<void>> {
  const profile = mkdtempSync(join(tmpdir(), 'inpage-bench-'));
  const child: ChildProcess = spawn(CHROMIUM, ['--headless', `--user-data-dir=${profile}`, ...CHROMIUM_ARGS, ...PLAYWRIGHT_DEFAULTS, MEMORY_FLAG, url], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (b: Buffer) => output(b.toString()));
  child.stderr?.on('data', (b: Buffer) => output(b.toString()));
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  return async () => {
    // The browser and its helper processes share the process group this script started.
    const group = -child.pid!;
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      // Already gone.
    }
    const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
    if (!gone) {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(profile, { recursive: true, force: true });
  };
}

/** The same pages under Playwright (DevTools attached), in a fresh browser. For debugging. */
async function launchPlaywright(url: string): Promise<() => Promise<void>> {
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, MEMORY_FLAG] });
  const page = await (await browser.newContext()).newPage();
  page.on('console', (msg) => console.log(`  [console.${msg.type()}] ${msg.text()}`));
  page.on('pageerror', (error) => console.log(`  [pageerror] ${error.message}`));
  await page.goto(url);
  return () => browser.close();
}

// ------------------------------------------------------------------------------------------------
// Report

interface Summary {
  n: number;
  median: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}
interface Named {
  name: string;
}
type Row = (string | number | undefined)[];

const f = (v: number | undefined, digits = 3) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(digits));
const ratio = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : `${v.toFixed(2)}×`);
const signed = (v: number | undefined, digits = 3) => (v === undefined || !Number.isFinite(v) ? '—' : `${v >= 0 ? '+' : ''}${v.toFixed(digits)}`);

function table(headers: string[], rows: Row[]): string {
  const cells = rows.map((r) => r.map((c) => (c === undefined ? '—' : String(c))));
  return [`| ${headers.join(' | ')} |`, `|${headers.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...cells.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function find<T extends Named>(items: readonly T[] | undefined, prefix: string): T | undefined {
  return items?.find((i) => i.name.startsWith(prefix));
}

function exact<T extends Named>(items: readonly T[] | undefined, name: string): T | undefined {
  return items?.find((i) => i.name === name);
}

/** The floor rows of the latency section (names as bench/pages/bench.ts writes them). */
const BUSY_MS = 2;
const FLOOR = {
  inpage: 'floor: async call in the page',
  worker: 'floor: page ⇄ bare worker (MessagePort)',
  shape: 'floor: in-page Request + Response (the fetch shape alone)',
  swConst: 'floor: bare SW, constant JSON',
  relay: 'floor: bare SW relaying to a bare worker',
  workerBusy: `floor: page ⇄ bare worker busy ${BUSY_MS} ms`,
  relayBusy: `floor: bare SW relaying to a bare worker busy ${BUSY_MS} ms`,
};

/** The browser's own costs: the SW route over the direct route (instant and engine-like workers), the fetch shape. */
function floors(latency: readonly (Summary & Named)[]) {
  const get = (name: string) => {
    const row = exact(latency, name);
    if (!row) throw new Error(`bench: no '${name}' row in the latency results`);
    return row;
  };
  const diff = (a: string, b: string) => ({ median: get(a).median - get(b).median, p95: get(a).p95 - get(b).p95 });
  return {
    instant: diff(FLOOR.relay, FLOOR.worker),
    busy: diff(FLOOR.relayBusy, FLOOR.workerBusy),
    constant: get(FLOOR.swConst).median - get(FLOOR.worker).median,
    shape: get(FLOOR.shape).median - get(FLOOR.inpage).median,
  };
}

interface Target {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | undefined;
  /** The number the target is judged on, so that several runs can be judged on their median. */
  readonly check?: { readonly value: number; readonly limit: number; readonly at: 'most' | 'least'; readonly unit: string };
}

const holds = (c: NonNullable<Target['check']>, value = c.value) => (c.at === 'most' ? value <= c.limit : value >= c.limit);
const check = (value: number, at: 'most' | 'least', limit: number, unit = ''): Pick<Target, 'check' | 'met'> => {
  const c = { value, limit, at, unit };
  return { check: c, met: holds(c) };
};

/** Requests the service worker's engine host received, and the engine calls they took. */
interface Merging {
  requests: number;
  engineCalls: number;
}

interface Exactness {
  requests: number;
  vectors: number;
  bitIdentical: number;
  maxAbsDiff: number;
  usageExact: number;
  merging?: Merging;
}

type Paced = { maxTokens: number; paceMs: number; yieldEach?: boolean; paths: StreamPath[] };

type StreamPath = Named & { tokens: number[]; tokensPerSec: Summary; decodeTokensPerSec: Summary; firstTokenMs: Summary; totalMs: Summary };

interface MainResult {
  device: Device;
  profile: Profile;
  env: Record<string, unknown>;
  latency?: (Summary & Named & { roundMedians: number[]; samples?: number[] })[];
  streaming?: { maxTokens: number; paths: StreamPath[] };
  embeddings?: {
    texts: number;
    batch: (Named & { ms: Summary; textsPerSec: Summary; rounds: number[] })[];
    concurrent: (Named & { ms: Summary; textsPerSec: Summary; rounds: number[]; merging?: Merging })[];
    exact: Record<string, Exactness>;
    /** The engine alone: each multi-text request's texts in one call vs one call each. */
    engineBatch?: Exactness;
  };
  burst?: { chunks: number; paths: (Named & { ms: Summary; usPerChunk: number; chunksPerSec: number; reads?: number })[]; paced?: Paced; pacedFast?: Paced; pacedYielding?: Paced; sameWorker?: { maxTokens: number; paths: StreamPath[] } };
  memory: { label: string; pageHeapBytes?: number; totalBytes?: number; byRealm?: Record<string, number>; error?: string }[];
  checks: Record<string, unknown>;
}

interface LoadResult {
  engine: 'product' | 'raw';
  device: Device;
  cold: boolean;
  startToLoadedMs: number;
  loadCallsMs: number;
  workerReadyMs: number;
  chatLoadMs: number;
  embedLoadMs: number;
  controlledMs?: number;
  userAgent?: string;
  hardwareConcurrency?: number;
}

const PAIRED = ': paired overhead';

/** Quartiles of the per-sample overhead (bench.ts `pairedOverhead`), for each kind measured. */
const pctOf = (a: StreamPath, b: StreamPath) => `${((a.tokensPerSec.median / b.tokensPerSec.median) * 100).toFixed(1)}%`;

function pairedStats(latency: MainResult['latency'], kind: string) {
  const row = exact(latency, `${kind}${PAIRED}`);
  if (!row?.samples?.length) return undefined;
  const sorted = [...row.samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { n: sorted.length, median: row.median, q1: q(0.25), q3: q(0.75) };
}

function pairedLines(latency: MainResult['latency']): string[] {
  const lines = ['chat 1 token', 'embed 1 text'].flatMap((kind) => {
    const p = pairedStats(latency, kind);
    return p ? [`${kind} ${f(p.median)} ms (middle half ${f(p.q1)} to ${f(p.q3)} ms, ${p.n} samples)`] : [];
  });
  if (lines.length === 0) return [];
  return [
    `Paired estimate of the product's own overhead: the four paths of the formula (SW, direct, bare SW relay to the busy worker, page ⇄ busy worker), one request each, back to back, many times; one value (SW − direct) − (relay − worker) per sample, and their median: ${lines.join('; ')}. Drift and bursts of other work hit the four requests of a sample alike, which the block medians above cannot guarantee.`,
  ];
}

function mainReport(r: MainResult, targets: Target[] | undefined): string {
  const out: string[] = [`## ${r.device.toUpperCase()} (${r.profile} profile)`];
  const median = (prefix: string) => find(r.latency, prefix)?.median;
  const p95 = (prefix: string) => find(r.latency, prefix)?.p95;

  if (r.latency) {
    const fl = floors(r.latency);
    const rows: Row[] = [];
    const both = (path: string, base: string, floor: { median: number; p95: number } = { median: 0, p95: 0 }) => {
      const m = median(path)! - median(base)! - floor.median;
      const q = p95(path)! - p95(base)! - floor.p95;
      return `${signed(m)} (p95 ${signed(q)})`;
    };
    // What each row is compared with: [baseline row, overhead column].
    const compare = (name: string): [string | undefined, string] => {
      const kind = name.split(':')[0]!;
      if (name === FLOOR.relay || name === FLOOR.swConst) return [FLOOR.worker, 'the floor'];
      if (name === FLOOR.relayBusy) return [FLOOR.workerBusy, 'the engine-like floor'];
      if (name.startsWith('rpc:')) return [FLOOR.worker, `${both(name, FLOOR.worker)} over a bare postMessage`];
      if (name.startsWith('models:') && name.includes('SW')) return [FLOOR.swConst, `${both(name, FLOOR.swConst)} over the bare SW's constant answer`];
      if (name.startsWith('models:')) return [undefined, `${both(name, FLOOR.inpage)} (all product: no transport)`];
      if (name === FLOOR.shape) return [undefined, 'the fetch-shim floor'];
      if (name.includes('diag: the gateway alone')) return [undefined, `${signed(median(name)! - fl.shape)} above the fetch-shape floor: the product's own code per request`];
      if (name.startsWith('floor')) return [undefined, ''];
      const direct = `${kind}: direct`;
      if (name.startsWith(direct)) return [direct, `${both(name, `${kind}: raw`)} over transformers.js called directly`];
      if (name.includes('fetch shim')) return [direct, `${both(name, direct)}; ${signed(median(name)! - median(direct)! - fl.shape)} above the fetch-shape floor`];
      if (name.includes('SW')) return [direct, `${both(name, direct, fl.busy)} above the engine-like floor; ${both(name, direct, fl.instant)} above the instant floor`];
      return [direct, ''];
    };
    for (const l of r.latency) {
      if (l.name.endsWith(PAIRED)) continue;
      const [base, over] = compare(l.name);
      rows.push([l.name, f(l.median), f(l.p95), base ? ratio(l.median / median(base)!) : '', over]);
    }
    out.push(
      '### Per-request latency (ms; measured in the page, paths interleaved round by round)',
      table(['path', 'median', 'p95', 'ratio to direct', 'overhead above the floor: median (p95)'], rows),
      '',
      `The browser's floor of the service-worker route in this run (bare SW relay − bare page⇄worker): ${f(fl.busy.median)} ms median (p95 ${f(fl.busy.p95)}) when the worker works ${BUSY_MS} ms per answer like an engine (the *engine-like floor*), ${f(fl.instant.median)} ms (p95 ${f(fl.instant.p95)}) when it answers at once (the *instant floor*); a constant answer from the bare SW itself: ${f(fl.constant)} ms.`,
      'Overhead column: SW rows = (SW − direct) − that floor (the product’s own cost), against both floors; fetch-shim rows = shim − direct (nothing but the product sits between), and that minus the in-page Request + Response floor; direct rows = direct − transformers.js called directly in a plain worker (the product’s engine side: RPC, model host, batching window, usage counting); `GET /v1/models` needs no engine, so it shows the gateway alone.',
      `MessagePort messages the page sends/receives per request: ${Object.entries((r.checks.messagesPerRequest ?? {}) as Record<string, { sent: number; received: number }>)
        .map(([k, v]) => `${k} ${v.sent}/${v.received}`)
        .join('; ')} (the same exchange runs between the service worker and its engine worker on the SW path).`,
      ...pairedLines(r.latency),
      `Drift: per-round medians of the SW chat path ${find(r.latency, 'chat 1 token: SW')?.roundMedians.map((v) => f(v, 2)).join(', ')} ms; of the bare SW relay ${exact(r.latency, FLOOR.relay)?.roundMedians.map((v) => f(v, 2)).join(', ')} ms.`,
    );
  }

  if (r.streaming) {
    const direct = find(r.streaming.paths, 'stream: direct')!;
    out.push(
      '',
      `### Streaming at the engine's real rate (max_tokens ${r.streaming.maxTokens}; tokens/s = completion tokens ÷ request-to-last-byte time)`,
      table(
        ['path', 'tokens', 'tokens/s median', 'tokens/s worst', 'ratio to direct', 'decode tokens/s median', 'first token ms median', 'total ms p95'],
        r.streaming.paths.map((p) => [p.name, [...new Set(p.tokens)].join('/'), f(p.tokensPerSec.median, 1), f(p.tokensPerSec.min, 1), ratio(p.tokensPerSec.median / direct.tokensPerSec.median), f(p.decodeTokensPerSec.median, 1), f(p.firstTokenMs.median, 2), f(p.totalMs.p95, 1)]),
      ),
    );
  }

  if (r.burst) {
    const b = r.burst;
    const us = (prefix: string) => find(b.paths, prefix)!.usPerChunk;
    const floorPerChunk = us('floor burst: bare SW relaying') - us('floor burst: bare worker');
    const realRate = find(r.streaming?.paths, 'stream: SW')?.tokensPerSec.median;
    out.push(
      '',
      `### Streaming at burst speed: ${b.chunks} chunks from the SYNTHETIC PRODUCER (no model; as fast as the path pulls)`,
      table(
        ['path', 'median ms', 'p95 ms', 'µs per chunk', 'chunks/s', 'ratio to direct', 'per-chunk overhead above the floor (µs)', 'page reads'],
        b.paths.map((p) => {
          const direct = p.name.startsWith('burst:') && !p.name.includes('in the page') ? us('burst: synthetic worker via product RPC') : undefined;
          const over = p.name.startsWith('burst: SW path') ? p.usPerChunk - us('burst: synthetic worker via product RPC') - floorPerChunk : p.name.startsWith('burst: fetch-shim') ? p.usPerChunk - us('burst: synthetic worker via product RPC') : undefined;
          return [p.name, f(p.ms.median, 1), f(p.ms.p95, 1), f(p.usPerChunk, 2), Math.round(p.chunksPerSec), direct ? ratio(p.usPerChunk / direct) : '', over === undefined ? '' : signed(over, 2), p.reads];
        }),
      ),
      '',
      `Floor per chunk (bare SW relay − bare worker→page): ${f(floorPerChunk, 2)} µs. Headroom: the SW path carries ${Math.round(find(b.paths, 'burst: SW path')!.chunksPerSec)} chunks/s at burst speed${realRate ? `, ${f(find(b.paths, 'burst: SW path')!.chunksPerSec / realRate, 0)}× the real engine's ${f(realRate, 0)} tokens/s above` : ''}.`,
    );
    if (b.sameWorker) {
      const direct = find(b.sameWorker.paths, 'one worker: tiny-chat direct')!;
      out.push(
        '',
        `### tiny-chat streamed by one engine worker, directly and through the service worker (${b.sameWorker.maxTokens} tokens)`,
        table(
          ['path', 'tokens/s median', 'tokens/s worst', 'ratio to direct', 'decode tokens/s median', 'first token ms median', 'total ms p95'],
          b.sameWorker.paths.map((p) => [p.name, f(p.tokensPerSec.median, 1), f(p.tokensPerSec.min, 1), ratio(p.tokensPerSec.median / direct.tokensPerSec.median), f(p.decodeTokensPerSec.median, 1), f(p.firstTokenMs.median, 2), f(p.totalMs.p95, 1)]),
        ),
        '',
        'The streaming table above compares two engine workers (the service worker’s and the direct one); here one worker serves both routes, so the difference is the route alone.',
      );
    }
    for (const paced of [b.paced, b.pacedFast, b.pacedYielding]) {
      if (!paced) continue;
      const direct = find(paced.paths, 'paced stream: synthetic worker')!;
      const floorWorker = find(paced.paths, 'floor paced: bare worker');
      const floorRelay = find(paced.paths, 'floor paced: bare SW');
      const sw = find(paced.paths, 'paced stream: SW path')!;
      out.push(
        '',
        `### A long completion at a steady rate: ${paced.maxTokens} tokens from the synthetic producer spending ${paced.paceMs} ms of CPU per token in its worker${paced.yieldEach ? ', then yielding to its event loop (as a real engine awaiting its runtime does: the worker sleeps and wakes once per token)' : ''}`,
        table(
          ['path', 'tokens/s median', 'tokens/s worst', 'ratio to direct', 'decode tokens/s median', 'first token ms median', 'total ms p95'],
          paced.paths.map((p) => {
            const floorRow = p.name.startsWith('floor');
            const base = floorRow ? floorWorker! : direct;
            return [p.name, f(p.tokensPerSec.median, 1), f(p.tokensPerSec.min, 1), ratio(p.tokensPerSec.median / base.tokensPerSec.median), floorRow ? '' : f(p.decodeTokensPerSec.median, 1), floorRow ? '' : f(p.firstTokenMs.median, 2), f(p.totalMs.p95, 1)];
          }),
        ),
        ...(floorWorker && floorRelay
          ? [
              '',
              `Floor rows: the bare worker streams the same number of chunks at the same pace, to the page directly or relayed by the bare service worker (ratio to the bare worker). The browser's own share at this rate: the bare relay delivers ${pctOf(floorRelay, floorWorker)} of the bare worker's rate; the product's SW path ${pctOf(sw, direct)} of direct.`,
            ]
          : []),
      );
    }
  }

  if (r.embeddings) {
    const e = r.embeddings;
    const batchDirect = find(e.batch, `1 request × ${e.texts} texts: direct`)!;
    const seqDirect = find(e.concurrent, `${e.texts} sequential 1-text calls: direct`)!;
    const seqRaw = find(e.concurrent, `${e.texts} sequential 1-text calls: raw`)!;
    out.push(
      '',
      `### Embedding throughput (${e.texts} texts; time from the call to the vectors in hand, base64 decoded to Float32Array)`,
      table(
        ['path', 'median ms', 'p95 ms', 'texts/s median', 'ratio to direct (throughput)'],
        [
          ...e.batch.map((p) => [p.name, f(p.ms.median, 1), f(p.ms.p95, 1), p.name.startsWith('diag') ? '' : Math.round(p.textsPerSec.median), p.name.startsWith('diag') ? '' : ratio(batchDirect.ms.median / p.ms.median)]),
          ...e.concurrent.map((p) => [
            p.name,
            f(p.ms.median, 1),
            f(p.ms.p95, 1),
            Math.round(p.textsPerSec.median),
            p.name.startsWith('floor') ? '' : `${ratio(seqDirect.ms.median / p.ms.median)} vs sequential direct, ${ratio(seqRaw.ms.median / p.ms.median)} vs sequential transformers.js`,
          ]),
        ],
      ),
      '',
      'Dynamic batching: requests all in flight at once vs the same requests sent one at a time (each alone, unbatched):',
      ...Object.entries(e.exact).map(
        ([k, x]) =>
          `- ${k}: ${x.bitIdentical}/${x.vectors} vectors bit-identical (max |Δ| ${x.maxAbsDiff.toExponential(2)}), usage exact for ${x.usageExact}/${x.requests} requests; every vector matched its own text by index.${x.merging ? ` The engine host got ${x.merging.requests} requests and made ${x.merging.engineCalls} engine calls for them.` : ''}`,
      ),
      ...e.concurrent
        .filter((p) => p.merging)
        .map((p) => `- ${p.name}, all timed rounds: ${p.merging!.requests} requests took ${p.merging!.engineCalls} engine calls (${(p.merging!.requests / Math.max(1, p.merging!.engineCalls)).toFixed(1)} requests per call).`),
      ...(e.engineBatch
        ? [
            `- The engine itself (no batcher): the texts of each of those 1–4-text requests in one call vs one call per text: ${e.engineBatch.bitIdentical}/${e.engineBatch.vectors} vectors bit-identical (max |Δ| ${e.engineBatch.maxAbsDiff.toExponential(2)}).`,
          ]
        : []),
    );
  }

  const peaks = new Map<string, number>();
  let pagePeak = 0;
  let totalPeak = 0;
  for (const m of r.memory) {
    pagePeak = Math.max(pagePeak, m.pageHeapBytes ?? 0);
    totalPeak = Math.max(totalPeak, m.totalBytes ?? 0);
    for (const [realm, bytes] of Object.entries(m.byRealm ?? {})) peaks.set(realm, Math.max(peaks.get(realm) ?? 0, bytes));
  }
  const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
  out.push(
    '',
    `### Memory (peak of ${r.memory.length} samples taken between sections; measureUserAgentSpecificMemory, cross-origin isolated)`,
    table(['realm', 'peak'], [['page JS heap (performance.memory.usedJSHeapSize)', mb(pagePeak)], ['all realms of the page (measureUserAgentSpecificMemory)', mb(totalPeak)], ...[...peaks].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, mb(v)])]),
    ...(r.memory.some((m) => m.error) ? [`Memory errors: ${r.memory.filter((m) => m.error).map((m) => `${m.label}: ${m.error}`).join('; ')}`] : []),
    'Three product engine workers run (same script, told apart by size): the one the service worker uses (startInference), the one of createWorkerEngine (direct and fetch-shim paths), both holding tiny-chat and tiny-embed, and an idle one for the RPC ping. The service workers cannot be measured from the page.',
  );
  if (targets) out.push('', '### Targets', table(['target', 'measured', 'met'], targets.map((t) => [t.target, t.measured, t.met === undefined ? 'n/a' : t.met ? 'yes' : '**no**'])));
  const chatDirect = find(r.latency, 'chat 1 token: direct');
  if (targets && r.device === 'webgpu' && chatDirect) {
    out.push(
      '',
      `WebGPU here runs on SwiftShader (the CPU): one engine call takes ${f(chatDirect.median, 0)} ms with a p95 ${f(chatDirect.p95 - chatDirect.median, 0)} ms above it, so sub-millisecond differences are within the engine's own jitter; read this section as "the paths work on WebGPU and keep their ordering", and the WASM section for the overheads.`,
    );
  }
  return out.join('\n');
}

/** `fn` of each round's paired samples (same round index: measured back to back): median and range. */
function paired(a: readonly number[], b: readonly number[], fn: (a: number, b: number) => number): { median: number; min: number; max: number } {
  const values = a.slice(0, Math.min(a.length, b.length)).map((x, i) => fn(x, b[i]!));
  const sorted = [...values].sort((x, y) => x - y);
  const mid = (sorted.length - 1) / 2;
  return { median: (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2, min: sorted[0]!, max: sorted.at(-1)! };
}
const range = (p: { min: number; max: number }, digits = 2, unit = '') => `per round ${p.min.toFixed(digits)}${unit}–${p.max.toFixed(digits)}${unit}`;

function mainTargets(r: MainResult, load: LoadSummary | undefined): Target[] {
  const t: Target[] = [];
  const m = (prefix: string) => find(r.latency, prefix)?.median;
  if (r.latency) {
    const fl = floors(r.latency);
    for (const kind of ['chat 1 token', 'embed 1 text']) {
      const sw = m(`${kind}: SW`)! - m(`${kind}: direct`)!;
      const over = sw - fl.busy.median;
      const rounds = (name: string) => exact(r.latency, name)?.roundMedians ?? find(r.latency, name)!.roundMedians;
      // The same difference round by round (paths of one round ran back to back).
      const perRound = paired(
        rounds(`${kind}: SW`).map((v, i) => v - rounds(`${kind}: direct`)[i]!),
        rounds(FLOOR.relayBusy).map((v, i) => v - rounds(FLOOR.workerBusy)[i]!),
        (a, b) => a - b,
      );
      const pairedEstimate = pairedStats(r.latency, kind);
      const alone = m(`${kind}: diag: the gateway alone`);
      t.push({
        target: `product overhead per request ≤ 0.5 ms (${kind})`,
        measured:
          `${f(over)} ms difference of medians above the engine-like floor (${range(perRound, 2, ' ms')}); ${f(sw - fl.instant.median)} ms above the instant floor` +
          (pairedEstimate ? `; paired estimate ${f(pairedEstimate.median)} ms (middle half ${f(pairedEstimate.q1)} to ${f(pairedEstimate.q3)})` : '') +
          (alone !== undefined ? `; the product's code alone ${f(alone - fl.shape)} ms` : ''),
        // Both estimates must hold: the difference of block medians and the paired median.
        ...check(Math.max(over, pairedEstimate?.median ?? over), 'most', 0.5, ' ms'),
      });
    }
    for (const kind of ['chat 1 token', 'embed 1 text']) {
      const over = m(`${kind}: fetch shim`)! - m(`${kind}: direct`)!;
      t.push({ target: `fetch shim over direct ≤ 0.3 ms (${kind})`, measured: `${f(over)} ms median`, ...check(over, 'most', 0.3, ' ms') });
    }
  }
  if (r.streaming) {
    const rate = (paths: StreamPath[], prefix: string, key: 'tokensPerSec' | 'decodeTokensPerSec') => find(paths, prefix)![key].median;
    const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(1)}%`;
    const decode = rate(r.streaming.paths, 'stream: SW', 'decodeTokensPerSec') / rate(r.streaming.paths, 'stream: direct', 'decodeTokensPerSec');
    const whole = rate(r.streaming.paths, 'stream: SW', 'tokensPerSec') / rate(r.streaming.paths, 'stream: direct', 'tokensPerSec');
    const paced = r.burst?.paced ? rate(r.burst.paced.paths, 'paced stream: SW', 'tokensPerSec') / rate(r.burst.paced.paths, 'paced stream: synthetic worker', 'tokensPerSec') : undefined;
    const fast = r.burst?.pacedFast;
    const fastSw = fast ? rate(fast.paths, 'paced stream: SW', 'tokensPerSec') / rate(fast.paths, 'paced stream: synthetic worker', 'tokensPerSec') : undefined;
    const fastFloor = fast && find(fast.paths, 'floor paced: bare SW') ? rate(fast.paths, 'floor paced: bare SW', 'tokensPerSec') / rate(fast.paths, 'floor paced: bare worker', 'tokensPerSec') : undefined;
    const same = r.burst?.sameWorker;
    const sameDecode = same ? rate(same.paths, 'one worker: tiny-chat via SW', 'decodeTokensPerSec') / rate(same.paths, 'one worker: tiny-chat direct', 'decodeTokensPerSec') : undefined;
    const yielding = r.burst?.pacedYielding;
    const yieldSw = yielding ? rate(yielding.paths, 'paced stream: SW', 'tokensPerSec') / rate(yielding.paths, 'paced stream: synthetic worker', 'tokensPerSec') : undefined;
    const yieldFloor = yielding ? rate(yielding.paths, 'floor paced: bare SW', 'tokensPerSec') / rate(yielding.paths, 'floor paced: bare worker', 'tokensPerSec') : undefined;
    t.push({
      target: 'streaming via SW ≥ 97% of direct tokens/s at the engine’s real rate',
      measured: `${sameDecode !== undefined ? `tiny-chat on one worker through both routes: ${pct(sameDecode, 1)} first-to-last-token rate; on two workers (streaming table): ` : 'tiny-chat (40 tokens, its longest answer): '}${pct(decode, 1)} first-to-last-token rate, ${pct(whole, 1)} request-to-last-byte (per-request cost over only 40 tokens)${paced !== undefined ? `; ${r.burst!.paced!.maxTokens}-token paced stream: ${pct(paced, 1)} request-to-last-byte` : ''}${fastSw !== undefined ? `; at ${fast!.paceMs} ms per token: ${pct(fastSw, 1)}, where the bare SW relay itself delivers ${pct(fastFloor ?? Number.NaN, 1)} of the bare worker's rate` : ''}${yieldSw !== undefined ? `; the same yielding after each token: ${pct(yieldSw, 1)}, bare SW relay ${pct(yieldFloor ?? Number.NaN, 1)} of the bare worker` : ''}`,
      // Judged like for like: the route alone (one worker serving both) where measured. The
      // streaming table's two workers differ by themselves (run to run, either may be faster).
      ...check(Math.min(sameDecode ?? decode, paced ?? decode) * 100, 'least', 97, '%'),
    });
  }
  if (r.embeddings) {
    const e = r.embeddings;
    const sw = find(e.batch, `1 request × ${e.texts} texts: SW, base64`)!.ms.median;
    const direct = find(e.batch, `1 request × ${e.texts} texts: direct`)!.ms.median;
    const batchRounds = paired(find(e.batch, `1 request × ${e.texts} texts: direct`)!.rounds, find(e.batch, `1 request × ${e.texts} texts: SW, base64`)!.rounds, (d, w) => (d / w) * 100);
    t.push({
      target: `1 request × ${e.texts} texts via SW (base64) ≥ 95% of direct throughput`,
      measured: `${((direct / sw) * 100).toFixed(1)}% (${f(sw, 1)} vs ${f(direct, 1)} ms; ${range(batchRounds, 0, '%')})`,
      ...check((direct / sw) * 100, 'least', 95, '%'),
    });
    const conc = find(e.concurrent, `${e.texts} concurrent 1-text requests: SW, base64`)!.ms.median;
    const seqRaw = find(e.concurrent, `${e.texts} sequential 1-text calls: raw`)!.ms.median;
    const seqDirect = find(e.concurrent, `${e.texts} sequential 1-text calls: direct`)!.ms.median;
    const floor256 = find(e.concurrent, `floor: ${e.texts} concurrent requests, bare SW relaying`)?.ms.median;
    const concRounds = paired(find(e.concurrent, `${e.texts} sequential 1-text calls: direct`)!.rounds, find(e.concurrent, `${e.texts} concurrent 1-text requests: SW, base64`)!.rounds, (d, c) => d / c);
    t.push({
      target: `${e.texts} concurrent 1-text requests via SW ≥ 2× ${e.texts} sequential direct (createWorkerEngine) calls`,
      measured: `${ratio(seqDirect / conc)} (${f(conc, 0)} vs ${f(seqDirect, 0)} ms; ${range(concRounds, 2, '×')})`,
      ...check(seqDirect / conc, 'least', 2, '×'),
    });
    t.push({
      target: `(stricter) … ≥ 2× ${e.texts} sequential calls of transformers.js itself`,
      measured: `${ratio(seqRaw / conc)} (${f(conc, 0)} vs ${f(seqRaw, 0)} ms); ${e.texts} concurrent requests to a bare SW relay with no engine at all take ${f(floor256, 0)} ms`,
      ...check(seqRaw / conc, 'least', 2, '×'),
    });
    const ok = Object.values(e.exact).every((x) => x.bitIdentical === x.vectors && x.usageExact === x.requests);
    t.push({
      target: 'concurrent requests: each vector identical to the request sent alone, usage and order exact',
      measured: Object.values(e.exact).map((x) => `${x.bitIdentical}/${x.vectors} identical, ${x.usageExact}/${x.requests} usage`).join('; '),
      met: ok,
    });
  }
  if (load) t.push(...loadTargets(load));
  return t;
}

/** Each target over several runs of the main page: every run's value, and the verdict on their median. */
function acrossRuns(device: Device, runs: Target[][]): string {
  const rows: Row[] = runs[0]!.map((first, i) => {
    const all = runs.map((targets) => targets[i]!);
    if (!first.check) return [first.target, all.map((t) => (t.met ? 'yes' : 'no')).join(', '), '', all.every((t) => t.met) ? 'yes' : '**no**'];
    const values = all.map((t) => t.check!.value);
    const sorted = [...values].sort((a, b) => a - b);
    const mid = (sorted.length - 1) / 2;
    const median = (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
    const show = (v: number) => `${f(v, first.check!.unit === ' ms' ? 3 : 2)}${first.check!.unit}`;
    return [first.target, values.map(show).join(', '), show(median), holds(first.check, median) ? 'yes' : '**no**'];
  });
  return [
    `### Targets over ${runs.length} runs of the main page (${device.toUpperCase()}; load targets from the load runs)`,
    table(['target', 'each run', 'median', 'met (on the median)'], rows),
    '',
    'Each run is a fresh browser doing the whole main page; a target holds when the median of its runs does (the exactness target: in every run). The value judged is the one in the single-run table: for the overhead, the larger of the two estimates; for streaming, the lower of the two rates.',
  ].join('\n');
}

function loadTargets(load: LoadSummary): Target[] {
  if (load.warmRatio === undefined) return [];
  return [{ target: 'warm load ≤ 1.1× the engine’s own warm load', measured: `${ratio(load.warmRatio)} (${f(load.productWarm, 0)} vs ${f(load.rawWarm, 0)} ms, start to both models loaded); load calls alone ${ratio(load.warmCallsRatio)}`, ...check(load.warmRatio, 'most', 1.1, '×') }];
}

interface LoadSummary {
  markdown: string;
  warmRatio?: number;
  warmCallsRatio?: number;
  productWarm?: number;
  rawWarm?: number;
}

function loadReport(device: Device, results: LoadResult[], summarize: (xs: number[]) => Summary): LoadSummary {
  const pick = (engine: string, cold: boolean) => results.filter((r) => r.device === device && r.engine === engine && r.cold === cold);
  const rows: Row[] = [];
  const med = (xs: LoadResult[], key: keyof LoadResult) => summarize(xs.map((x) => x[key] as number));
  const stats: Record<string, Summary> = {};
  for (const cold of [true, false]) {
    for (const engine of ['raw', 'product'] as const) {
      const xs = pick(engine, cold);
      if (xs.length === 0) continue;
      const total = med(xs, 'startToLoadedMs');
      const calls = med(xs, 'loadCallsMs');
      stats[`${engine}-${cold}`] = total;
      stats[`${engine}-${cold}-calls`] = calls;
      const base = stats[`raw-${cold}`];
      rows.push([
        `${cold ? 'cold' : 'warm'}: ${engine === 'raw' ? 'transformers.js pipeline() in a plain worker' : 'product: startInference + inference.load()'}`,
        xs.length,
        f(total.median, 1),
        f(total.p95, 1),
        engine === 'product' && base ? ratio(total.median / base.median) : '',
        f(med(xs, 'workerReadyMs').median, 1),
        f(calls.median, 1),
        engine === 'product' && stats[`raw-${cold}-calls`] ? ratio(calls.median / stats[`raw-${cold}-calls`]!.median) : '',
      ]);
    }
  }
  const markdown = [
    `### Load of the default models (tiny-chat + tiny-embed) on ${device.toUpperCase()} (ms)`,
    table(['path', 'n', 'start → loaded median', 'p95', 'ratio to transformers.js', 'worker answering', 'load calls alone', 'ratio (load calls)'], rows),
    '',
    'start → loaded: from the page script’s first line (before the runtime or worker exists) to both models loaded; load calls alone: tiny-chat then tiny-embed, with the worker already answering. Cold = a fresh browser profile (empty HTTP cache, no service worker); warm = reloads of the same profile.',
  ].join('\n');
  const pw = stats['product-false']?.median;
  const rw = stats['raw-false']?.median;
  const pwc = stats['product-false-calls']?.median;
  const rwc = stats['raw-false-calls']?.median;
  return { markdown, productWarm: pw, rawWarm: rw, warmRatio: pw !== undefined && rw !== undefined ? pw / rw : undefined, warmCallsRatio: pwc !== undefined && rwc !== undefined ? pwc / rwc : undefined };
}

// ------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const load0 = loadavg();
  console.log(`bench: load average ${load0.map((l) => l.toFixed(2)).join(' ')} (1/5/15 min)${load0[0]! >= 1 ? ' — the machine is busy: numbers will be noisy' : ''}`);
  takeLock();
  if (options.build) await build();
  const { summarize } = await import('./pages/lib/stats.ts');

  const server = createServer(serve);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  const driver =
    options.driver === 'chromium'
      ? 'chromium started as a plain process, no DevTools attached (no Playwright/CDP); results are POSTed by the page to the bench server'
      : 'Playwright (DevTools attached): fetch paths bear ~1 ms per request more than postMessage paths — for debugging only';
  console.log(`bench: serving ${OUT_DIR} at ${origin} (COOP/COEP); driver: ${driver}`);

  const devices: { device: Device; profile: Profile; sections?: string[] }[] = [];
  const quick = options.quick;
  if (options.device === 'wasm' || options.device === 'both') devices.push({ device: 'wasm', profile: quick ? 'quick' : 'full', sections: options.sections });
  if (options.device === 'webgpu') devices.push({ device: 'webgpu', profile: quick ? 'quick' : 'full', sections: options.sections });
  // The short WebGPU section: the model-bound paths only (the burst section uses no model).
  if (options.device === 'both') devices.push({ device: 'webgpu', profile: quick ? 'quick' : 'short', sections: options.sections ?? ['latency', 'stream', 'embeddings'] });

  if (options.profile) for (const d of devices) d.profile = options.profile;
  const tasks: Task[] = [];
  for (let run = 1; run <= options.runs; run++) {
    for (const d of options.main ? devices : []) {
      const name = options.runs > 1 ? `main-${d.device}-run${run}` : `main-${d.device}`;
      tasks.push({ name, page: '/bench/pages/bench.html', config: { device: d.device, profile: d.profile, sections: d.sections }, results: 1, timeoutMs: (d.profile === 'full' ? 15 : 12) * 60_000 });
    }
  }
  if (options.load) {
    for (const d of devices) {
      const colds = d.profile === 'full' ? 3 : 1;
      const iterations = 1 + (d.profile === 'full' ? 3 : d.profile === 'short' ? 2 : 1);
      for (let i = 0; i < colds; i++) {
        for (const engine of i % 2 === 0 ? (['product', 'raw'] as const) : (['raw', 'product'] as const)) {
          tasks.push({ name: `load-${engine}-${d.device}-${i}`, page: '/bench/pages/load.html', config: { device: d.device, profile: d.profile, engine, iteration: 0, iterations }, results: iterations, timeoutMs: 3 * 60_000 });
        }
      }
    }
  }

  const started = Date.now();
  const mains: MainResult[] = [];
  const loads: LoadResult[] = [];
  try {
    for (const task of tasks) {
      console.log(`bench: ${task.name}…`);
      const results = await runTask(origin, task);
      if (task.name.startsWith('main')) mains.push(results[0] as MainResult);
      else loads.push(...(results as LoadResult[]));
    }
  } finally {
    server.close();
  }
  const load1 = loadavg();

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const header = [
    `# inpage-llm benchmarks — ${new Date().toISOString()}`,
    '',
    `- Driver: ${driver}. Every timing is taken inside the page (performance.now(), cross-origin isolated); compared paths are interleaved round by round.`,
    `- Browser: ${String(mains[0]?.env.userAgent ?? loads[0]?.userAgent ?? '?')}; ${CHROMIUM} ${[...CHROMIUM_ARGS, ...(options.driver === 'chromium' ? PLAYWRIGHT_DEFAULTS : []), MEMORY_FLAG].join(' ')}`,
    `- Machine: ${mains[0]?.env.hardwareConcurrency ?? loads[0]?.hardwareConcurrency ?? '?'} hardware threads; load average ${load0.map((l) => l.toFixed(2)).join('/')} at start, ${load1.map((l) => l.toFixed(2)).join('/')} at the end (1/5/15 min). Timer resolution ${f(mains[0]?.env.timerResolutionMs as number, 4)} ms; crossOriginIsolated ${String(mains[0]?.env.crossOriginIsolated)}; WebGPU adapter: ${String(mains[0]?.env.webgpuAdapter)}.`,
    `- Run: ${options.quick ? 'quick (smoke: few repetitions — not for conclusions)' : 'full'}${options.runs > 1 ? `; the main page ${options.runs} times (the tables are the first run's; the last table judges the targets on the median over the runs)` : ''}; devices ${devices.map((d) => `${d.device} (${d.profile})`).join(', ')}; ${((Date.now() - started) / 1000).toFixed(0)} s.`,
  ];
  const sections: string[] = [header.join('\n')];
  const loadSummaries = new Map<Device, LoadSummary>();
  for (const d of devices) if (loads.some((l) => l.device === d.device)) loadSummaries.set(d.device, loadReport(d.device, loads, summarize));
  for (const device of new Set(devices.map((d) => d.device))) {
    const runs = mains.filter((m) => m.device === device);
    const r = runs[0];
    const ls = loadSummaries.get(device);
    if (r) sections.push(mainReport(r, mainTargets(r, ls)));
    if (runs.length > 1) sections.push(acrossRuns(device, runs.map((run) => mainTargets(run, ls))));
    if (ls) sections.push(ls.markdown);
    if (!r && ls) sections.push(['### Targets', table(['target', 'measured', 'met'], loadTargets(ls).map((t) => [t.target, t.measured, t.met ? 'yes' : '**no**']))].join('\n'));
  }
  const markdown = sections.join('\n\n') + '\n';
  mkdirSync(RESULTS, { recursive: true });
  const json = { date: new Date().toISOString(), options, driver, chromium: { path: CHROMIUM, args: [...CHROMIUM_ARGS, ...(options.driver === 'chromium' ? PLAYWRIGHT_DEFAULTS : []), MEMORY_FLAG] }, loadAverage: { start: load0, end: load1 }, main: mains, load: loads };
  writeFileSync(join(RESULTS, `${stamp}.json`), JSON.stringify(json, null, 1));
  writeFileSync(join(RESULTS, `${stamp}.md`), markdown);
  console.log(`\n${markdown}`);
  console.log(`bench: wrote bench/results/${stamp}.json and .md`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
