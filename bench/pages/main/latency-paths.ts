/**
 * The paths of the per-request latency section: one minimal request (a 1-token chat completion, a
 * one-text embedding) through the service worker, the fetch shim, a direct engine call and
 * transformers.js in a plain worker; the browser's floor beside them; and the diagnostics (the
 * product's RPC round trip, `GET /v1/models`, the gateway alone).
 * @module
 */
import type { FloorLatencyPath } from '../floor.ts';
import { FLOOR_ANSWER } from '../lib/floor-answer.ts';
import { BUSY_MS, FLOOR_ROWS } from '../lib/floor-rows.ts';
import { timeEach } from '../lib/stats.ts';
import { drain, expectOk, nativeFetch } from './client.ts';
import { firstVector } from './embedding-requests.ts';
import { gatewayAlone } from './gateway-alone.ts';
import type { Runtime } from './runtime.ts';
import { chatBody, chatRequest, EMBED_MODEL, EMBED_TEXT, embedBody, JSON_HEADERS, post, PROMPT, SHIM_BASE, signal } from './workload.ts';

export interface LatencyPath {
  readonly name: string;
  /** Which block size it runs in: engine-bound paths run fewer requests per block. */
  readonly block: 'fast' | 'engine';
  /** Runs before each block (a fresh floor port: the floor service worker may have been restarted). */
  readonly before?: () => Promise<void>;
  run(count: number): Promise<number[]>;
}

export function latencyPaths({ direct, idle, raw, floor }: Runtime): LatencyPath[] {
  const floorBody = JSON.stringify(chatBody(1));
  const chatInit = post(chatBody(1));
  const fl = (name: string, path: FloorLatencyPath, busyMs = 0): LatencyPath => ({
    name,
    block: busyMs ? 'engine' : 'fast',
    before: path.startsWith('sw') ? () => floor.refresh() : undefined,
    run: (count) => floor.latency(path, count, floorBody, busyMs),
  });
  const embedInit = post(embedBody(EMBED_TEXT));
  const vector = direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal }).then((r) => r.embeddings[0]!);
  const alone = gatewayAlone(
    {
      listModels: () => direct.listModels(),
      embed: async () => ({ embeddings: [(await vector).slice()], promptTokens: 11, inputTokens: [11] }),
    },
    { readBodyWhole: true },
  );
  return [
    fl(FLOOR_ROWS.inpage, 'inpage'),
    fl(FLOOR_ROWS.worker, 'worker'),
    {
      // The fetch shape with no transport and no product code: what any in-page fetch shim pays.
      name: FLOOR_ROWS.shape,
      block: 'fast',
      run: (n) =>
        timeEach(n, async () => {
          const request = new Request(`${SHIM_BASE}/chat/completions`, chatInit);
          JSON.parse(await request.text());
          return new Response(FLOOR_ANSWER, { headers: JSON_HEADERS }).json();
        }),
    },
    fl(FLOOR_ROWS.swConst, 'sw-const'),
    fl(FLOOR_ROWS.relay, 'sw-relay'),
    // The same with a worker that works like an engine (2 ms of CPU per answer): the caller waits
    // idle meanwhile, as it does for a model.
    fl(FLOOR_ROWS.workerBusy, 'worker', BUSY_MS),
    fl(FLOOR_ROWS.relayBusy, 'sw-relay', BUSY_MS),
    { name: 'rpc: comlink ping to a product engine worker', block: 'fast', run: (n) => timeEach(n, () => idle.api.ping()) },
    { name: 'models: GET /v1/models via SW', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await nativeFetch('/v1/models'), 'models').json()) },
    { name: 'models: GET /v1/models via fetch shim', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await fetch(`${SHIM_BASE}/models`), 'models').json()) },
    { name: 'chat 1 token: direct (createWorkerEngine)', block: 'engine', run: (n) => timeEach(n, () => drain(direct.chat(chatRequest(1), { signal }))) },
    { name: 'chat 1 token: fetch shim', block: 'engine', run: (n) => timeEach(n, async () => expectOk(await fetch(`${SHIM_BASE}/chat/completions`, chatInit), 'chat').json()) },
    { name: 'chat 1 token: SW', block: 'engine', run: (n) => timeEach(n, async () => expectOk(await nativeFetch('/v1/chat/completions', chatInit), 'chat').json()) },
    { name: 'chat 1 token: raw transformers.js worker', block: 'engine', run: (n) => timeEach(n, () => raw.generate(PROMPT, 1)) },
    { name: 'chat 1 token: diag: the gateway alone in the page (instant engine)', block: 'fast', run: (n) => timeEach(n, async () => expectOk(await alone(`${SHIM_BASE}/chat/completions`, chatInit), 'chat').json()) },
    { name: 'embed 1 text: direct (createWorkerEngine)', block: 'engine', run: (n) => timeEach(n, () => direct.embed({ model: EMBED_MODEL, input: [EMBED_TEXT] }, { signal })) },
    { name: 'embed 1 text: fetch shim (base64)', block: 'engine', run: (n) => timeEach(n, async () => firstVector(await fetch(`${SHIM_BASE}/embeddings`, embedInit))) },
    { name: 'embed 1 text: SW (base64)', block: 'engine', run: (n) => timeEach(n, async () => firstVector(await nativeFetch('/v1/embeddings', embedInit))) },
    { name: 'embed 1 text: raw transformers.js worker', block: 'engine', run: (n) => timeEach(n, () => raw.embed([EMBED_TEXT])) },
    { name: 'embed 1 text: diag: the gateway alone in the page (instant engine)', block: 'fast', run: (n) => timeEach(n, async () => firstVector(await alone(`${SHIM_BASE}/embeddings`, embedInit))) },
  ];
}
