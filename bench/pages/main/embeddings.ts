/**
 * Embedding throughput and dynamic batching: one request of N texts, and N one-text requests all
 * in flight at once, through the service worker and the fetch shim, against direct engine calls,
 * transformers.js and the floor; then the exactness of batching (batching-exactness.ts).
 * @module
 */
import { byProfile, log } from '../lib/channel.ts';
import { rotate, summarize } from '../lib/stats.ts';
import { nativeFetch } from './client.ts';
import { batchingExactness, type EmbeddingReference, type HostCounts } from './batching-exactness.ts';
import { embedRequest } from './embedding-requests.ts';
import { gatewayAlone } from './gateway-alone.ts';
import type { Runtime } from './runtime.ts';
import { EMBED_MODEL, REDUCED, SHIM_BASE, signal, TEXTS } from './workload.ts';

type Paths = [name: string, run: () => Promise<unknown>][];

/** The short WebGPU section keeps base64 through the SW, direct, transformers.js and the floor. */
const kept = (name: string) => !REDUCED || (/SW, base64|direct|raw|floor/.test(name) && !/^diag|sequential 1-text requests: SW|concurrent 1-text calls: direct/.test(name));

export async function embeddings(runtime: Runtime) {
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
  const viaInstant = gatewayAlone({ listModels: async () => models, embed: async () => ({ ...computed, embeddings: computed.embeddings.map((v) => v.slice()) }) });
  const batchPaths: Paths = [
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
  // The sequential direct calls, run alone one text at a time, are also the reference of the
  // engine-batch comparison (filled by their first run, the warm-up).
  const reference: EmbeddingReference = { vectors: [], tokens: [] };
  const floorBody = JSON.stringify({ model: EMBED_MODEL, input: 'x' });
  const concurrentPaths: Paths = [
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
    [`floor: ${n} concurrent requests, bare SW relaying to a bare worker (no engine)`, () => runtime.floor.concurrent('sw-relay', n, floorBody)],
    [`floor: ${n} concurrent requests, bare SW constant JSON (no engine)`, () => runtime.floor.concurrent('sw-const', n, floorBody)],
    [
      `${n} sequential 1-text requests: SW, base64`,
      async () => {
        for (const t of TEXTS) await embedRequest(nativeFetch, sw, t, 'base64');
      },
    ],
  ];
  // How many engine calls the service worker's requests took (the host's counters): fewer calls
  // than requests is what batching merged. Read outside the timed part.
  const hostCounts: HostCounts = async () => {
    const model = (await runtime.inference.status())?.find((m) => m.model === EMBED_MODEL);
    return { requests: model?.requests ?? 0, engineCalls: model?.engineCalls ?? 0 };
  };
  const batch = await measure(runtime, batchPaths.filter(([name]) => kept(name)), byProfile({ quick: 1, short: 2, full: 12 }), hostCounts);
  const concurrent = await measure(runtime, concurrentPaths.filter(([name]) => kept(name)), byProfile({ quick: 1, short: 1, full: 6 }), hostCounts);
  const { exact, engineBatch } = await batchingExactness(direct, reference, hostCounts);
  return { texts: n, batch, concurrent, exact, engineBatch };
}

/** A warm-up run of each path, then `count` rounds in a rotating order, each path once a round. */
async function measure({ floor }: Runtime, paths: Paths, count: number, hostCounts: HostCounts) {
  const n = TEXTS.length;
  const merging = new Map(paths.filter(([name]) => name.includes(': SW')).map(([name]) => [name, { requests: 0, engineCalls: 0 }]));
  const before = async (name: string) => {
    if (name.startsWith('floor')) await floor.refresh();
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
      const counts = merging.has(name) ? await hostCounts() : undefined;
      const t0 = performance.now();
      const out = await run();
      // Floor rows time themselves inside the floor page.
      times.get(name)!.push(typeof out === 'number' ? out : performance.now() - t0);
      if (counts) {
        const after = await hostCounts();
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
}
