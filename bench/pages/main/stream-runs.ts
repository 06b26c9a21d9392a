/**
 * One streamed completion, timed from the request to its last token, on each kind of path: SSE
 * over fetch (the service worker, the fetch shim), the product's engine iterator (direct), and
 * transformers.js streaming itself; and the rounds every streaming table is made of.
 * @module
 */
import type { Engine } from '../../../src/core/engine.ts';
import { log } from '../lib/channel.ts';
import type { RawEngine } from '../lib/raw-engine.ts';
import { rotate, summarize } from '../lib/stats.ts';
import { expectOk } from './client.ts';
import { readSSE } from './sse.ts';
import { CHAT_MODEL, chatBody, chatRequest, post, PROMPT, signal } from './workload.ts';

export interface StreamRun {
  readonly tokens: number;
  readonly totalMs: number;
  readonly firstTokenMs: number;
  readonly lastTokenMs: number;
  /** SSE paths: until the response's headers came (fetch resolved). */
  readonly headersMs?: number;
}

/** Started at the request: marks the first and the last token against it. */
function tokenClock() {
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  let headers: number | undefined;
  return {
    headers() {
      headers = performance.now() - t0;
    },
    token() {
      last = performance.now();
      if (!first) first = last;
    },
    done: (tokens: number): StreamRun => ({ tokens, totalMs: performance.now() - t0, firstTokenMs: first - t0, lastTokenMs: last - t0, ...(headers === undefined ? {} : { headersMs: headers }) }),
  };
}

export async function streamSSE(fetcher: typeof fetch, url: string, maxTokens: number, model = CHAT_MODEL): Promise<StreamRun> {
  const clock = tokenClock();
  let tokens = 0;
  const response = expectOk(await fetcher(url, post(chatBody(maxTokens, true, model))), 'stream');
  clock.headers();
  await readSSE(response, (data) => {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as { choices: { delta?: { content?: string } }[]; usage?: { completion_tokens: number } };
    if (chunk.choices[0]?.delta?.content) clock.token();
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  });
  return clock.done(tokens);
}

export async function streamDirect(engine: Engine, maxTokens: number, model = CHAT_MODEL): Promise<StreamRun> {
  const clock = tokenClock();
  let tokens = 0;
  for await (const event of engine.chat(chatRequest(maxTokens, model), { signal })) {
    if (event.type !== 'token') continue;
    tokens++;
    clock.token();
  }
  return clock.done(tokens);
}

export async function streamRaw(raw: RawEngine, maxTokens: number): Promise<StreamRun> {
  const clock = tokenClock();
  const tokens = await raw.generate(PROMPT, maxTokens, () => clock.token());
  return clock.done(tokens);
}

/** `firstRun`: the path's first stream in this page (the warm-up), kept out of the summaries. */
export function summarizeStream(name: string, r: StreamRun[], firstRun?: StreamRun) {
  return {
    name,
    ...(firstRun ? { firstRun: { firstTokenMs: firstRun.firstTokenMs, totalMs: firstRun.totalMs, ...(firstRun.headersMs === undefined ? {} : { headersMs: firstRun.headersMs }) } } : {}),
    tokens: r.map((x) => x.tokens),
    /** Tokens per second over the whole request (request to last byte). */
    tokensPerSec: summarize(r.map((x) => (x.tokens / x.totalMs) * 1000)),
    /** Tokens per second between the first and the last token (the decode rate as delivered). */
    decodeTokensPerSec: summarize(r.map((x) => ((x.tokens - 1) / (x.lastTokenMs - x.firstTokenMs)) * 1000)),
    firstTokenMs: summarize(r.map((x) => x.firstTokenMs)),
    totalMs: summarize(r.map((x) => x.totalMs)),
  };
}

export type StreamPaths = [name: string, run: () => Promise<StreamRun>][];

/** One warm-up run of each path, then `rounds` rounds in a rotating order; `label` names the progress lines. */
export async function streamRounds(paths: StreamPaths, rounds: number, label?: string) {
  const runs = new Map(paths.map(([name]) => [name, [] as StreamRun[]]));
  const warmUps = new Map<string, StreamRun>();
  for (const [name, run] of paths) warmUps.set(name, await run());
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of rotate(paths, round)) runs.get(name)!.push(await run());
    if (label) await log(`${label}: round ${round + 1}/${rounds}`);
  }
  return paths.map(([name]) => summarizeStream(name, runs.get(name)!, warmUps.get(name)));
}
