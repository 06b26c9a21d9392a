/**
 * The per-request latency section: every path in blocks of back-to-back requests, round by
 * round in a rotating order, after a warm-up long enough for a fresh browser to settle; then the
 * paired estimate of the product's overhead.
 * @module
 */
import { byProfile, log } from '../lib/channel.ts';
import { FLOOR_ROWS } from '../lib/floor-rows.ts';
import { rotate, summarize, type Summary } from '../lib/stats.ts';
import { latencyPaths, type LatencyPath } from './latency-paths.ts';
import type { Runtime } from './runtime.ts';

interface LatencyResult extends Summary {
  readonly name: string;
  /** Median of each round's block: the spread shows drift over the run. */
  readonly roundMedians: number[];
  readonly samples: number[];
}

/**
 * The overhead formula sample by sample: the four paths it names (SW, direct, bare SW relay to a
 * busy worker, page ⇄ that worker), one request each, back to back in a rotating order, many
 * times. Drift and bursts of other work then hit all four of a sample alike; the result is one
 * overhead value per sample, (SW − direct) − (relay − worker).
 */
async function pairedOverhead(paths: LatencyPath[], kind: string, samples: number): Promise<number[]> {
  const named = (prefix: string) => paths.find((p) => p.name.startsWith(prefix))!;
  const quad = [named(`${kind}: SW`), named(`${kind}: direct`), named(FLOOR_ROWS.relayBusy), named(FLOOR_ROWS.workerBusy)];
  await quad[2]!.before?.();
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = new Map<LatencyPath, number>();
    for (const path of rotate(quad, i)) t.set(path, (await path.run(1))[0]!);
    const [sw, direct, relay, worker] = quad.map((p) => t.get(p)!) as [number, number, number, number];
    out.push(sw - direct - (relay - worker));
  }
  return out;
}

export async function latency(runtime: Runtime): Promise<LatencyResult[]> {
  const paths = latencyPaths(runtime);
  const rounds = byProfile({ quick: 2, short: 3, full: 16 });
  const size = { fast: byProfile({ quick: 30, short: 50, full: 100 }), engine: byProfile({ quick: 15, short: 8, full: 40 }) };
  const warmup = byProfile({ quick: 10, short: 5, full: 40 });
  const samples = new Map(paths.map((p) => [p.name, [] as number[]]));
  const medians = new Map(paths.map((p) => [p.name, [] as number[]]));
  // A fresh browser settles for several seconds (every path, the floor included, runs about twice
  // as slow in the first rounds): warm up every path for a while, not just a few requests.
  const settleMs = byProfile({ quick: 0, short: 3000, full: 15000 });
  const warmStart = performance.now();
  let passes = 0;
  do {
    for (const path of paths) {
      await path.before?.();
      await path.run(warmup);
    }
    passes++;
  } while (performance.now() - warmStart < settleMs);
  await log(`latency: warmed up in ${passes} passes, ${((performance.now() - warmStart) / 1000).toFixed(1)} s`);
  for (let round = 0; round < rounds; round++) {
    for (const path of rotate(paths, round)) {
      await path.before?.();
      await path.run(3);
      const times = await path.run(size[path.block]);
      samples.get(path.name)!.push(...times);
      medians.get(path.name)!.push(summarize(times).median);
    }
    await log(`latency: round ${round + 1}/${rounds}`);
  }
  const results: LatencyResult[] = paths.map((p) => ({ name: p.name, ...summarize(samples.get(p.name)!), roundMedians: medians.get(p.name)!, samples: samples.get(p.name)! }));
  const n = byProfile({ quick: 30, short: 30, full: 400 });
  for (const kind of ['chat 1 token', 'embed 1 text']) {
    const overhead = await pairedOverhead(paths, kind, n);
    results.push({ name: `${kind}: paired overhead`, ...summarize(overhead), roundMedians: [], samples: overhead });
    await log(`latency: paired overhead, ${kind}: median ${summarize(overhead).median.toFixed(3)} ms`);
  }
  return results;
}
