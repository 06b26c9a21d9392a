/**
 * A long completion at a steady rate: the paced synthetic producer (a fixed CPU time per token in
 * its worker) through the product's service worker, the fetch-shim path and directly over the
 * product's RPC link, beside the bare floor streaming at the same pace.
 * @module
 */
import type { Engine } from '../../../src/core/engine.ts';
import type { Floor } from '../floor.ts';
import { byProfile } from '../lib/channel.ts';
import { nativeFetch } from './client.ts';
import { streamDirect, streamRounds, streamSSE, type StreamRun } from './stream-runs.ts';
import { SHIM_BASE } from './workload.ts';

/** The producer's worker reached two ways: over the product's RPC link, and through the product gateway in the page over that link. */
export interface ProducerRoutes {
  readonly linked: Engine;
  readonly viaGateway: typeof fetch;
}

export async function pacedStreams(floor: Floor, { linked, viaGateway }: ProducerRoutes, model: string, paceMs: number, yieldEach = false) {
  const maxTokens = byProfile({ quick: 100, short: 200, full: 400 });
  const rounds = byProfile({ quick: 1, short: 2, full: 6 });
  const floorRun = (path: 'worker-stream' | 'sw-relay-stream') => async (): Promise<StreamRun> => {
    if (path !== 'worker-stream') await floor.refresh();
    const { ms, chunks } = await floor.stream(path, maxTokens, paceMs, yieldEach);
    // The floor times the whole stream only: first and last token are not told apart.
    return { tokens: chunks, totalMs: ms, firstTokenMs: 0, lastTokenMs: ms };
  };
  const paths = await streamRounds(
    [
      ['paced stream: synthetic worker via product RPC (direct)', () => streamDirect(linked, maxTokens, model)],
      ['paced stream: fetch-shim path (SSE)', () => streamSSE(viaGateway, `${SHIM_BASE}/chat/completions`, maxTokens, model)],
      ['paced stream: SW path (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', maxTokens, model)],
      ['floor paced: bare worker → page', floorRun('worker-stream')],
      ['floor paced: bare SW relaying the bare worker', floorRun('sw-relay-stream')],
    ],
    rounds,
    `paced stream (${paceMs} ms per token)`,
  );
  return { maxTokens, paceMs, yieldEach, paths };
}
