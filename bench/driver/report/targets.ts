/**
 * The issue's targets, judged on one run's numbers: the product's overhead per request, the fetch
 * shim over direct, streaming through the service worker, embedding throughput and batching, and
 * the warm load (from the load runs). Each gets a verdict (verdict.ts): met, not met, or not
 * judgeable; none of the main page's figures has an interval, so they are met or not met on one
 * run, and never met in the quick profile.
 * @module
 */
import { FLOOR_ROWS as FLOOR } from '../../pages/lib/floor-rows.ts';
import type { Profile } from '../options.ts';
import type { MainResult, Paced, StreamPath } from '../results.ts';
import { exact, f, find, percent, ratio, table } from './format.ts';
import { floors } from './floors.ts';
import type { LoadSummary } from './load.ts';
import { paired, range } from './medians.ts';
import { pairedStats } from './paired-overhead.ts';
import { type Check, exactly, judge, shown, type Verdict } from './verdict.ts';

export interface Target {
  readonly target: string;
  readonly measured: string;
  /** Undefined where the figure was not measured (n/a). */
  readonly verdict: Verdict | undefined;
  /** What the verdict rests on ("1 run"), or why there is none ("quick profile", an interval that holds the bound). */
  readonly why?: string;
  /** The number the target is judged on, so that several runs can be judged on their median. */
  readonly check?: Check;
}

const check = (profile: Profile, value: number, at: 'most' | 'least', limit: number, unit = ''): Pick<Target, 'check' | 'verdict' | 'why'> => {
  const c = { value, limit, at, unit };
  return { check: c, ...judge(c, {}, profile) };
};

/** One run's targets: each verdict says what it rests on ("1 run", or the loads it is the median of). */
export function targetsTable(targets: readonly Target[]): string {
  return table(['target', 'measured', 'verdict'], targets.map((t) => [t.target, t.measured, shown(t)]));
}

export function mainTargets(r: MainResult, load: LoadSummary | undefined): Target[] {
  const p = r.profile;
  return [...(r.latency ? latencyTargets(r.latency, p) : []), ...(r.streaming ? [streamingTarget(r.streaming, r.burst, p)] : []), ...(r.embeddings ? embeddingTargets(r.embeddings, p) : []), ...(load ? loadTargets(load, p) : [])];
}

function latencyTargets(latency: NonNullable<MainResult['latency']>, profile: Profile): Target[] {
  const t: Target[] = [];
  const m = (prefix: string) => find(latency, prefix)?.median;
  const fl = floors(latency);
  for (const kind of ['chat 1 token', 'embed 1 text']) {
    const sw = m(`${kind}: SW`)! - m(`${kind}: direct`)!;
    const over = sw - fl.busy.median;
    const rounds = (name: string) => exact(latency, name)?.roundMedians ?? find(latency, name)!.roundMedians;
    // The same difference round by round (paths of one round ran back to back).
    const perRound = paired(
      rounds(`${kind}: SW`).map((v, i) => v - rounds(`${kind}: direct`)[i]!),
      rounds(FLOOR.relayBusy).map((v, i) => v - rounds(FLOOR.workerBusy)[i]!),
      (a, b) => a - b,
    );
    const pairedEstimate = pairedStats(latency, kind);
    const alone = m(`${kind}: diag: the gateway alone`);
    t.push({
      target: `product overhead per request ≤ 0.5 ms (${kind})`,
      measured:
        `${f(over)} ms difference of medians above the engine-like floor (${range(perRound, 2, ' ms')}); ${f(sw - fl.instant.median)} ms above the instant floor` +
        (pairedEstimate ? `; paired estimate ${f(pairedEstimate.median)} ms (middle half ${f(pairedEstimate.q1)} to ${f(pairedEstimate.q3)})` : '') +
        (alone !== undefined ? `; the product's code alone ${f(alone - fl.shape)} ms` : ''),
      // Both estimates must hold: the difference of block medians and the paired median.
      ...check(profile, Math.max(over, pairedEstimate?.median ?? over), 'most', 0.5, ' ms'),
    });
  }
  for (const kind of ['chat 1 token', 'embed 1 text']) {
    const over = m(`${kind}: fetch shim`)! - m(`${kind}: direct`)!;
    t.push({ target: `fetch shim over direct ≤ 0.3 ms (${kind})`, measured: `${f(over)} ms median`, ...check(profile, over, 'most', 0.3, ' ms') });
  }
  return t;
}

function streamingTarget(streaming: NonNullable<MainResult['streaming']>, burst: MainResult['burst'], profile: Profile): Target {
  /** Path `a`'s median rate over path `b`'s. */
  const over = (paths: StreamPath[], a: string, b: string, key: 'tokensPerSec' | 'decodeTokensPerSec' = 'tokensPerSec') => find(paths, a)![key].median / find(paths, b)![key].median;
  const swOfDirect = (p: Paced | undefined) => (p ? over(p.paths, 'paced stream: SW', 'paced stream: synthetic worker') : undefined);
  const relayOfWorker = (p: Paced | undefined) => (p && find(p.paths, 'floor paced: bare SW') ? over(p.paths, 'floor paced: bare SW', 'floor paced: bare worker') : undefined);
  const pct = (v: number | undefined) => percent(v ?? Number.NaN, 1);
  const decode = over(streaming.paths, 'stream: SW', 'stream: direct', 'decodeTokensPerSec');
  const whole = over(streaming.paths, 'stream: SW', 'stream: direct');
  const paced = swOfDirect(burst?.paced);
  const fast = burst?.pacedFast;
  const same = burst?.sameWorker;
  const sameDecode = same ? over(same.paths, 'one worker: tiny-chat via SW', 'one worker: tiny-chat direct', 'decodeTokensPerSec') : undefined;
  const yielding = burst?.pacedYielding;
  return {
    target: 'streaming via SW ≥ 97% of direct tokens/s at the engine’s real rate',
    measured:
      `${sameDecode !== undefined ? `tiny-chat on one worker through both routes: ${pct(sameDecode)} first-to-last-token rate; on two workers (streaming table): ` : 'tiny-chat (40 tokens, its longest answer): '}${pct(decode)} first-to-last-token rate, ${pct(whole)} request-to-last-byte (per-request cost over only 40 tokens)` +
      (paced !== undefined ? `; ${burst!.paced!.maxTokens}-token paced stream: ${pct(paced)} request-to-last-byte` : '') +
      (fast ? `; at ${fast.paceMs} ms per token: ${pct(swOfDirect(fast))}, where the bare SW relay itself delivers ${pct(relayOfWorker(fast))} of the bare worker's rate` : '') +
      (yielding ? `; the same yielding after each token: ${pct(swOfDirect(yielding))}, bare SW relay ${pct(relayOfWorker(yielding))} of the bare worker` : ''),
    // Judged like for like: the route alone (one worker serving both) where measured. The
    // streaming table's two workers differ by themselves (run to run, either may be faster).
    ...check(profile, Math.min(sameDecode ?? decode, paced ?? decode) * 100, 'least', 97, '%'),
  };
}

function embeddingTargets(e: NonNullable<MainResult['embeddings']>, profile: Profile): Target[] {
  const batchRow = (what: string) => find(e.batch, `1 request × ${e.texts} texts: ${what}`)!;
  const concurrentRow = (what: string) => find(e.concurrent, `${e.texts} ${what}`)!;
  const sw = batchRow('SW, base64').ms.median;
  const direct = batchRow('direct').ms.median;
  const batchRounds = paired(batchRow('direct').rounds, batchRow('SW, base64').rounds, (d, w) => (d / w) * 100);
  const conc = concurrentRow('concurrent 1-text requests: SW, base64').ms.median;
  const seqRaw = concurrentRow('sequential 1-text calls: raw').ms.median;
  const seqDirect = concurrentRow('sequential 1-text calls: direct').ms.median;
  const floor256 = find(e.concurrent, `floor: ${e.texts} concurrent requests, bare SW relaying`)?.ms.median;
  const concRounds = paired(concurrentRow('sequential 1-text calls: direct').rounds, concurrentRow('concurrent 1-text requests: SW, base64').rounds, (d, c) => d / c);
  return [
    {
      target: `1 request × ${e.texts} texts via SW (base64) ≥ 95% of direct throughput`,
      measured: `${((direct / sw) * 100).toFixed(1)}% (${f(sw, 1)} vs ${f(direct, 1)} ms; ${range(batchRounds, 0, '%')})`,
      ...check(profile, (direct / sw) * 100, 'least', 95, '%'),
    },
    {
      target: `${e.texts} concurrent 1-text requests via SW ≥ 2× ${e.texts} sequential direct (createWorkerEngine) calls`,
      measured: `${ratio(seqDirect / conc)} (${f(conc, 0)} vs ${f(seqDirect, 0)} ms; ${range(concRounds, 2, '×')})`,
      ...check(profile, seqDirect / conc, 'least', 2, '×'),
    },
    {
      target: `(stricter) … ≥ 2× ${e.texts} sequential calls of transformers.js itself`,
      measured: `${ratio(seqRaw / conc)} (${f(conc, 0)} vs ${f(seqRaw, 0)} ms); ${e.texts} concurrent requests to a bare SW relay with no engine at all take ${f(floor256, 0)} ms`,
      ...check(profile, seqRaw / conc, 'least', 2, '×'),
    },
    {
      target: 'concurrent requests: each vector identical to the request sent alone, usage and order exact',
      measured: Object.values(e.exact)
        .map((x) => `${x.bitIdentical}/${x.vectors} identical, ${x.usageExact}/${x.requests} usage`)
        .join('; '),
      // An exact count: one mismatch fails it; a quick run checks too few requests to pass it.
      ...exactly(
        Object.values(e.exact).every((x) => x.bitIdentical === x.vectors && x.usageExact === x.requests),
        profile,
      ),
    },
  ];
}

/** `profile`: the load runs' repetition profile (the device's). */
export function loadTargets(load: LoadSummary, profile: Profile): Target[] {
  if (load.warmRatio === undefined) return [];
  const c = { value: load.warmRatio, limit: 1.1, at: 'most', unit: '×' } as const;
  const [n, m] = [load.productWarmN ?? '?', load.rawWarmN ?? '?'];
  const basis = n === m ? `medians of ${n} warm loads each` : `medians of ${n} and ${m} warm loads`;
  return [{ target: 'warm load ≤ 1.1× the engine’s own warm load', measured: `${ratio(load.warmRatio)} (${f(load.productWarm, 0)} vs ${f(load.rawWarm, 0)} ms, start to both models loaded); load calls alone ${ratio(load.warmCallsRatio)}`, check: c, ...judge(c, {}, profile, basis) }];
}
