/**
 * Streaming at the engine's real rate: a streamed tiny-chat completion through the service worker
 * and the fetch shim (SSE read and parsed chunk by chunk), against the direct engine stream and
 * transformers.js streaming itself.
 * @module
 */
import { byProfile } from '../lib/channel.ts';
import { nativeFetch } from './client.ts';
import type { Runtime } from './runtime.ts';
import { streamDirect, streamRaw, streamRounds, streamSSE, type StreamPaths } from './stream-runs.ts';
import { SHIM_BASE } from './workload.ts';

export async function streaming({ direct, raw }: Runtime) {
  // tiny-chat ends every answer after 40 tokens (src/tiny-models/tiny-chat.ts): the longest
  // real completion there is. The paced synthetic producer streams a long one (burst section).
  const maxTokens = 40;
  const rounds = byProfile({ quick: 2, short: 3, full: 20 });
  const paths: StreamPaths = [
    ['stream: direct (createWorkerEngine)', () => streamDirect(direct, maxTokens)],
    ['stream: fetch shim (SSE)', () => streamSSE(fetch, `${SHIM_BASE}/chat/completions`, maxTokens)],
    ['stream: SW (SSE)', () => streamSSE(nativeFetch, '/v1/chat/completions', maxTokens)],
    ['stream: raw transformers.js worker', () => streamRaw(raw, maxTokens)],
  ];
  return { maxTokens, paths: await streamRounds(paths, rounds, 'streaming') };
}
