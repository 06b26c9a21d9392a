/**
 * tiny-chat streamed by one and the same engine worker (the idle one, now given the model),
 * directly and through the service worker: the streaming section's SW and direct paths use two
 * different workers, so this tells the worker apart from the route.
 * @module
 */
import { wrap } from 'comlink';
import type { EngineHostApi } from '../../../src/contracts/engine-host.ts';
import { linkEngine } from '../../../src/rpc/engine-link.ts';
import { byProfile, log } from '../lib/channel.ts';
import { nativeFetch } from './client.ts';
import type { Runtime } from './runtime.ts';
import { hostGone, offerEnginePort } from './service-worker-link.ts';
import { streamDirect, streamRounds, streamSSE } from './stream-runs.ts';
import { CHAT_MODEL } from './workload.ts';

/** Runs with the product's own host stopped; leaves the service worker with no engine. */
export async function sameWorker({ idle }: Runtime) {
  await idle.api.load(CHAT_MODEL);
  offerEnginePort(idle.connect());
  const sameLink = linkEngine(wrap<EngineHostApi>(idle.connect()));
  const maxTokens = 40;
  const paths = await streamRounds(
    [
      ['one worker: tiny-chat direct', () => streamDirect(sameLink, maxTokens)],
      ['one worker: tiny-chat via SW (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', maxTokens)],
    ],
    byProfile({ quick: 2, short: 3, full: 20 }),
  );
  await log('one worker: done');
  sameLink.sever('done');
  hostGone();
  return { maxTokens, paths };
}
