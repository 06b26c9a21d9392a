/**
 * Load timing: the default models (tiny-chat, tiny-embed), or the real-shaped ones, loaded by the product runtime
 * (`startInference` then `inference.load`) or by transformers.js called directly in a plain worker
 * (`pipeline()`, same files, same device). Iteration 0 runs in a fresh browser profile (cold:
 * empty HTTP cache, no service worker); the page then reloads itself for the warm iterations.
 * @module
 */
import { startInference } from '../../src/client/index.ts';
import type { ModelEntry } from '../../src/contracts/worker-config.ts';
import { config, fail, finish, log } from './lib/channel.ts';
import { spawnRawEngine } from './lib/raw-engine.ts';

// The default models, or (`--models real`) the real-shaped ones, given to the product as app
// models with their files' sizes and hashes, as a user's catalog would.
const real = config.real;
const CHAT_MODEL = real?.chat.id ?? 'tiny-chat';
const EMBED_MODEL = real?.embed.id ?? 'tiny-embed';
const models: ModelEntry[] | undefined = real && [
  { engine: 'transformers', id: EMBED_MODEL, kind: 'embedding', source: EMBED_MODEL, dtype: real.embed.dtype, contextWindow: 512, files: real.embed.files },
  { engine: 'transformers', id: CHAT_MODEL, kind: 'chat', source: CHAT_MODEL, dtype: real.chat.dtype, contextWindow: 4096, files: real.chat.files },
];

interface LoadTiming {
  /** From navigation start to this script's first line (the page and its script, both paths alike). */
  readonly scriptStartMs: number;
  /** From this script's start (before the runtime or the worker is created) to both models loaded. */
  readonly startToLoadedMs: number;
  /** From this script's start to the engine worker answering (module fetched and evaluated). */
  readonly workerReadyMs: number;
  /** The load calls alone, with the worker already running: tiny-chat, then tiny-embed. */
  readonly loadCallsMs: number;
  readonly chatLoadMs: number;
  readonly embedLoadMs: number;
  /** Product only: until startInference resolved (service worker registered and controlling). */
  readonly controlledMs?: number;
  /** Product only: progress events that reached this page (each one a message from the engine worker). */
  readonly progressEvents?: number;
  readonly resources: { name: string; transferSize: number; durationMs: number }[];
}

async function product(t0: number): Promise<Omit<LoadTiming, 'scriptStartMs' | 'resources'>> {
  let progressEvents = 0;
  const inference = await startInference({ engine: { device: config.device, ...(models ? { models } : {}) }, onProgress: () => void progressEvents++ });
  const controlled = performance.now();
  await inference.status();
  const ready = performance.now();
  await inference.load(CHAT_MODEL);
  const chat = performance.now();
  await inference.load(EMBED_MODEL);
  const end = performance.now();
  return { controlledMs: controlled - t0, workerReadyMs: ready - t0, startToLoadedMs: end - t0, loadCallsMs: end - ready, chatLoadMs: chat - ready, embedLoadMs: end - chat, progressEvents };
}

async function raw(t0: number): Promise<Omit<LoadTiming, 'scriptStartMs' | 'resources'>> {
  const engine = spawnRawEngine();
  await engine.ping();
  const ready = performance.now();
  await engine.load(config.device, { chat: CHAT_MODEL });
  const chat = performance.now();
  await engine.load(config.device, { embedding: EMBED_MODEL });
  const end = performance.now();
  return { workerReadyMs: ready - t0, startToLoadedMs: end - t0, loadCallsMs: end - ready, chatLoadMs: chat - ready, embedLoadMs: end - chat };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const iteration = config.iteration ?? 0;
  const timing = await (config.engine === 'raw' ? raw(t0) : product(t0));
  const resources = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
    name: new URL(e.name).pathname,
    transferSize: e.transferSize,
    durationMs: e.duration,
  }));
  const result = { engine: config.engine, device: config.device, models: `${CHAT_MODEL} + ${EMBED_MODEL}`, iteration, cold: iteration === 0, scriptStartMs: t0, ...timing, resources, userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency };
  log(`load ${config.engine} ${iteration === 0 ? 'cold' : 'warm'}: ${timing.startToLoadedMs.toFixed(1)} ms to loaded, load calls ${timing.loadCallsMs.toFixed(1)} ms${'progressEvents' in timing ? `, ${timing.progressEvents} progress events` : ''}`);
  await finish(result);
  if (iteration + 1 < (config.iterations ?? 1)) {
    const url = new URL(location.href);
    url.searchParams.set('cfg', JSON.stringify({ ...config, iteration: iteration + 1 }));
    // Let the worker and its memory go before the next load.
    setTimeout(() => location.replace(url.href), 300);
  }
}

main().catch(fail);
