/**
 * The synthetic-producer sections (no model): per-chunk cost at burst speed, the product's
 * service worker re-linked to the producer's worker; tiny-chat on one worker through both routes
 * (same-worker.ts); a long completion at a steady rate (paced.ts). They stop the page's real
 * host, so they run last.
 * @module
 */
import { wrap } from 'comlink';
import { createGateway } from '../../../src/gateway/index.ts';
import type { EngineHostApi } from '../../../src/contracts/engine-host.ts';
import { linkEngine } from '../../../src/rpc/engine-link.ts';
import type { FloorStreamPath } from '../floor.ts';
import { byProfile, log } from '../lib/channel.ts';
import { rotate, summarize } from '../lib/stats.ts';
import { createSyntheticProducer, FAST_PACE_MS, FAST_PACED_MODEL, PACE_MS, PACED_MODEL, SYNTHETIC_MODEL, YIELDING_PACED_MODEL } from '../lib/synthetic-engine.ts';
import { drain, expectOk, gatewayFetch, nativeFetch } from './client.ts';
import { pacedStreams } from './paced.ts';
import type { Runtime } from './runtime.ts';
import { sameWorker } from './same-worker.ts';
import { offerEnginePort, stopProductHost } from './service-worker-link.ts';
import { readSSE } from './sse.ts';
import { chatBody, chatRequest, JSON_HEADERS, PROMPT, SHIM_BASE, signal } from './workload.ts';

/** The producer's worker, serving it through the product's RPC host; each call is a new port to it. */
function spawnProducerWorker(): () => MessagePort {
  const worker = new Worker(new URL('../workers/synthetic-worker.ts', import.meta.url), { type: 'module', name: 'bench-synthetic-producer' });
  return () => {
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ type: 'CONNECT', port: port1 }, [port1]);
    return port2;
  };
}

export async function burst(runtime: Runtime) {
  const n = byProfile({ quick: 1000, short: 1000, full: 5000 });
  const rounds = byProfile({ quick: 2, short: 2, full: 8 });
  const producer = createSyntheticProducer();
  const connect = spawnProducerWorker();
  const linked = linkEngine(wrap<EngineHostApi>(connect()));
  const viaGatewayInPage = gatewayFetch(createGateway({ engine: producer, baseUrl: SHIM_BASE }));
  const viaGatewayOverWorker = gatewayFetch(createGateway({ engine: linked, baseUrl: SHIM_BASE }));
  const request = chatRequest(n, SYNTHETIC_MODEL);
  const streamBody = JSON.stringify({ ...chatBody(n, false, SYNTHETIC_MODEL), stream: true });
  // The same answer through the Responses API: one output_text.delta event per chunk. Not stored,
  // so that what is timed is the stream alone.
  const responsesBody = JSON.stringify({ model: SYNTHETIC_MODEL, input: PROMPT, max_output_tokens: n, stream: true, store: false });
  const events = (fetcher: typeof fetch, url: string, what: string, body = streamBody) => async () => {
    const response = expectOk(await fetcher(url, { method: 'POST', headers: JSON_HEADERS, body }), what);
    return (await readSSE(response)).events;
  };

  // The product's service worker, re-linked to the synthetic producer's worker: the real host
  // steps down (its engine worker stops), and this page offers the producer's port instead,
  // through the same control message the host uses. First, tiny-chat on one worker.
  await stopProductHost(runtime.inference);
  const oneWorker = await sameWorker(runtime);
  offerEnginePort(connect());

  const floorPath = (path: FloorStreamPath) => async () => {
    if (path !== 'worker-stream') await runtime.floor.refresh();
    return runtime.floor.stream(path, n);
  };
  // Each path: [name, run, expected events]. SSE paths carry a role chunk, the n content chunks,
  // a finish chunk and [DONE].
  const paths: [string, () => Promise<unknown>, number | null][] = [
    ['burst: synthetic producer in the page (for await)', () => drain(producer.chat(request, { signal })), n + 2],
    ['burst: synthetic worker via product RPC (direct)', () => drain(linked.chat(request, { signal })), n + 2],
    ['burst: product gateway in the page, producer in the page', events(viaGatewayInPage, `${SHIM_BASE}/chat/completions`, 'burst via the gateway in the page'), n + 3],
    ['burst: fetch-shim path (gateway in page → RPC → worker)', events(viaGatewayOverWorker, `${SHIM_BASE}/chat/completions`, 'burst via the fetch-shim path'), n + 3],
    ['burst: SW path (product SW → RPC → worker)', events(nativeFetch, '/v1/chat/completions', 'burst via SW'), n + 3],
    // Responses: created, in_progress, the item and its part added, n deltas, the text, part and
    // item done, incomplete (the cap ended it).
    ['burst: Responses, product gateway in the page, producer in the page', events(viaGatewayInPage, `${SHIM_BASE}/responses`, 'Responses burst via the gateway in the page', responsesBody), n + 8],
    ['burst: Responses, SW path (product SW → RPC → worker)', events(nativeFetch, '/v1/responses', 'Responses burst via SW', responsesBody), n + 8],
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
  const routes = { linked, viaGateway: viaGatewayOverWorker };
  const paced = await pacedStreams(runtime.floor, routes, PACED_MODEL, PACE_MS);
  const pacedFast = await pacedStreams(runtime.floor, routes, FAST_PACED_MODEL, FAST_PACE_MS);
  const pacedYielding = await pacedStreams(runtime.floor, routes, YIELDING_PACED_MODEL, FAST_PACE_MS, true);

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
    sameWorker: oneWorker,
  };
}
