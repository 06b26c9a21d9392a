/**
 * The streaming tables: tiny-chat at the engine's real rate, the synthetic producer at burst
 * speed, tiny-chat on one worker through both routes, and the paced long completions.
 * @module
 */
import type { MainResult, Paced, StreamPath } from '../results.ts';
import { f, find, percent, ratio, type Row, signed, table } from './format.ts';

const STREAM_HEADERS = ['path', 'tokens/s median', 'tokens/s worst', 'ratio to direct', 'decode tokens/s median', 'first token ms median', 'total ms p95'];

/** One stream path against `base`; the floor rows time the whole stream only, so they have no token timings. */
function streamRow(p: StreamPath, base: StreamPath, tokenTimings = true): Row {
  return [
    p.name,
    f(p.tokensPerSec.median, 1),
    f(p.tokensPerSec.min, 1),
    ratio(p.tokensPerSec.median / base.tokensPerSec.median),
    tokenTimings ? f(p.decodeTokensPerSec.median, 1) : '',
    tokenTimings ? f(p.firstTokenMs.median, 2) : '',
    f(p.totalMs.p95, 1),
  ];
}

/** What `a` delivers of `b`'s rate. */
const share = (a: StreamPath, b: StreamPath) => percent(a.tokensPerSec.median, b.tokensPerSec.median);

/** Constrained decoding against the same completion without it, on the direct engine. */
export function grammarReport(grammar: NonNullable<MainResult['grammar']>): string[] {
  const none = find(grammar.paths, 'grammar: none')!;
  // The tool call is measured against the same prompt without a grammar (its prompt is longer).
  const tool = find(grammar.paths, 'grammar: tool call');
  const toolPrompt = find(grammar.paths, 'grammar: none, tool prompt');
  const perToken = (p: StreamPath) => 1000 / p.decodeTokensPerSec.median;
  return [
    '',
    `### Constrained decoding (tiny-chat on the direct engine, max_tokens ${grammar.maxTokens}): time to first token and per-token cost against the same model without a grammar (the tool call against the same longer prompt, the tool's definition in it, without a grammar)`,
    table(
      ['path', 'tokens', 'first token ms median', 'first token ms p95', 'decode tokens/s median', 'ms per token', 'added ms per token'],
      grammar.paths.map((p) => [
        p.name,
        [...new Set(p.tokens)].join('/'),
        f(p.firstTokenMs.median, 2),
        f(p.firstTokenMs.p95, 2),
        f(p.decodeTokensPerSec.median, 1),
        f(perToken(p), 3),
        p === none || p === toolPrompt ? '' : signed(perToken(p) - perToken(p === tool ? toolPrompt ?? none : none), 3),
      ]),
    ),
  ];
}

export function streamingReport(streaming: NonNullable<MainResult['streaming']>): string[] {
  const direct = find(streaming.paths, 'stream: direct')!;
  const [name, ...rest] = STREAM_HEADERS;
  return [
    '',
    `### Streaming at the engine's real rate (max_tokens ${streaming.maxTokens}; tokens/s = completion tokens ÷ request-to-last-byte time)`,
    table(
      [name!, 'tokens', ...rest],
      streaming.paths.map((p) => {
        const [path, ...cells] = streamRow(p, direct);
        return [path, [...new Set(p.tokens)].join('/'), ...cells];
      }),
    ),
    ...firstRuns(streaming.paths),
  ];
}

/** Each path's first stream in the page (its warm-up): whether a first request waits, for headers or a token. */
export function firstRuns(paths: readonly StreamPath[]): string[] {
  const runs = paths.filter((p) => p.firstRun);
  if (runs.length === 0) return [];
  const each = runs.map((p) => `${p.name}: first token ${f(p.firstRun!.firstTokenMs, 1)} ms${p.firstRun!.headersMs === undefined ? '' : ` (headers ${f(p.firstRun!.headersMs, 1)} ms)`}, whole ${f(p.firstRun!.totalMs, 1)} ms`);
  return ['', `First stream of each path in this page (its warm-up, left out of the table): ${each.join('; ')}.`];
}

export function burstReport(b: NonNullable<MainResult['burst']>, streaming: MainResult['streaming']): string[] {
  const us = (prefix: string) => find(b.paths, prefix)!.usPerChunk;
  const floorPerChunk = us('floor burst: bare SW relaying') - us('floor burst: bare worker');
  const rpc = us('burst: synthetic worker via product RPC');
  const realRate = find(streaming?.paths, 'stream: SW')?.tokensPerSec.median;
  const swChunksPerSec = find(b.paths, 'burst: SW path')!.chunksPerSec;
  return [
    '',
    `### Streaming at burst speed: ${b.chunks} chunks from the SYNTHETIC PRODUCER (no model; as fast as the path pulls)`,
    table(
      ['path', 'median ms', 'p95 ms', 'µs per chunk', 'chunks/s', 'ratio to direct', 'per-chunk overhead above the floor (µs)', 'page reads'],
      b.paths.map((p) => {
        const direct = p.name.startsWith('burst:') && !p.name.includes('in the page') ? rpc : undefined;
        const over = p.name.startsWith('burst: SW path') || p.name.startsWith('burst: Responses, SW path') ? p.usPerChunk - rpc - floorPerChunk : p.name.startsWith('burst: fetch-shim') ? p.usPerChunk - rpc : undefined;
        return [p.name, f(p.ms.median, 1), f(p.ms.p95, 1), f(p.usPerChunk, 2), Math.round(p.chunksPerSec), direct ? ratio(p.usPerChunk / direct) : '', over === undefined ? '' : signed(over, 2), p.reads];
      }),
    ),
    '',
    `Floor per chunk (bare SW relay − bare worker→page): ${f(floorPerChunk, 2)} µs. Headroom: the SW path carries ${Math.round(swChunksPerSec)} chunks/s at burst speed${realRate ? `, ${f(swChunksPerSec / realRate, 0)}× the real engine's ${f(realRate, 0)} tokens/s above` : ''}.`,
    ...responsesPerChunk(b.paths),
    ...(b.sameWorker ? sameWorkerReport(b.sameWorker) : []),
    ...[b.paced, b.pacedFast, b.pacedYielding].flatMap((paced) => (paced ? pacedReport(paced) : [])),
  ];
}

/** A Responses stream's cost per chunk beside chat's on the same route (older results have no Responses rows). */
function responsesPerChunk(paths: NonNullable<MainResult['burst']>['paths']): string[] {
  const pairs = [
    ['in the page', find(paths, 'burst: product gateway in the page'), find(paths, 'burst: Responses, product gateway in the page')],
    ['SW', find(paths, 'burst: SW path'), find(paths, 'burst: Responses, SW path')],
  ] as const;
  const each = pairs.filter(([, chat, responses]) => chat && responses).map(([route, chat, responses]) => `${route}: ${f(responses!.usPerChunk, 2)} µs against chat's ${f(chat!.usPerChunk, 2)} (${ratio(responses!.usPerChunk / chat!.usPerChunk)})`);
  return each.length === 0 ? [] : ['', `Responses per chunk (one output_text.delta event each) against chat completions per chunk, same route: ${each.join('; ')}.`];
}

function sameWorkerReport(same: NonNullable<NonNullable<MainResult['burst']>['sameWorker']>): string[] {
  const direct = find(same.paths, 'one worker: tiny-chat direct')!;
  return [
    '',
    `### tiny-chat streamed by one engine worker, directly and through the service worker (${same.maxTokens} tokens)`,
    table(STREAM_HEADERS, same.paths.map((p) => streamRow(p, direct))),
    '',
    'The streaming table above compares two engine workers (the service worker’s and the direct one); here one worker serves both routes, so the difference is the route alone.',
  ];
}

function pacedReport(paced: Paced): string[] {
  const direct = find(paced.paths, 'paced stream: synthetic worker')!;
  const floorWorker = find(paced.paths, 'floor paced: bare worker');
  const floorRelay = find(paced.paths, 'floor paced: bare SW');
  const sw = find(paced.paths, 'paced stream: SW path')!;
  return [
    '',
    `### A long completion at a steady rate: ${paced.maxTokens} tokens from the synthetic producer spending ${paced.paceMs} ms of CPU per token in its worker${paced.yieldEach ? ', then yielding to its event loop (as a real engine awaiting its runtime does: the worker sleeps and wakes once per token)' : ''}`,
    table(
      STREAM_HEADERS,
      paced.paths.map((p) => {
        const floorRow = p.name.startsWith('floor');
        return streamRow(p, floorRow ? floorWorker! : direct, !floorRow);
      }),
    ),
    ...(floorWorker && floorRelay
      ? [
          '',
          `Floor rows: the bare worker streams the same number of chunks at the same pace, to the page directly or relayed by the bare service worker (ratio to the bare worker). The browser's own share at this rate: the bare relay delivers ${share(floorRelay, floorWorker)} of the bare worker's rate; the product's SW path ${share(sw, direct)} of direct.`,
        ]
      : []),
  ];
}
