/**
 * The main benchmark page. It starts the product exactly as an app does (`startInference`: the
 * product service worker at scope / plus its engine worker), a direct engine handle on the same
 * engine code (`createWorkerEngine`: comlink over a MessagePort to a second engine worker, which
 * the fetch shim also uses), transformers.js called directly in a plain worker (the engine's own
 * use, no product code), and the browser's floor in a same-origin iframe controlled by a bare
 * service worker (bench/floor-sw.js, scope /bench/floor/). Every timing is taken here, in loops
 * that run inside the page (performance.now(), cross-origin isolated), and paths are interleaved
 * round by round. The result goes to bench/run.ts as one POST.
 *
 * This file is the page's sequence; each section is a module of main/.
 * @module
 */
// First: it wraps MessagePort before any port exists.
import './main/message-traffic.ts';
import { SECTIONS } from '../driver/options.ts';
import { config, fail, finish } from './lib/channel.ts';
import { burst } from './main/burst.ts';
import { embeddings } from './main/embeddings.ts';
import { grammar } from './main/grammar.ts';
import { environment } from './main/environment.ts';
import { latency } from './main/latency.ts';
import { sampleMemory, type MemorySample } from './main/memory.ts';
import { setup } from './main/runtime.ts';
import { streaming } from './main/streaming.ts';
import { device } from './main/workload.ts';

const sections = new Set<string>(config.sections ?? SECTIONS.tiny);

async function main(): Promise<void> {
  const env = await environment();
  const { runtime, checks } = await setup();
  const memory: MemorySample[] = [await sampleMemory('after setup')];
  const result: Record<string, unknown> = { device, profile: config.profile, env };
  // Sections in this order: the burst section re-links the product's service worker, so it runs last.
  const run = async (section: string, key: string, measure: () => Promise<unknown>) => {
    if (!sections.has(section)) return;
    result[key] = await measure();
    memory.push(await sampleMemory(`after ${key}`));
  };
  await run('latency', 'latency', () => latency(runtime));
  await run('stream', 'streaming', () => streaming(runtime));
  await run('grammar', 'grammar', () => grammar(runtime));
  await run('embeddings', 'embeddings', () => embeddings(runtime));
  await run('burst', 'burst', () => burst(runtime));
  result.memory = memory;
  result.checks = checks;
  await finish(result);
}

main().catch(fail);
