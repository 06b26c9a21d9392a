/** The paired estimate of the product's overhead (bench/pages/main/latency.ts `pairedOverhead`). @module */
import type { MainResult } from '../results.ts';
import { exact, f } from './format.ts';

export const PAIRED = ': paired overhead';

/** Median and quartiles of the per-sample overhead of `kind`. */
export function pairedStats(latency: MainResult['latency'], kind: string) {
  const row = exact(latency, `${kind}${PAIRED}`);
  if (!row?.samples?.length) return undefined;
  const sorted = [...row.samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { n: sorted.length, median: row.median, q1: q(0.25), q3: q(0.75) };
}

export function pairedLines(latency: MainResult['latency']): string[] {
  const lines = ['chat 1 token', 'embed 1 text'].flatMap((kind) => {
    const p = pairedStats(latency, kind);
    return p ? [`${kind} ${f(p.median)} ms (middle half ${f(p.q1)} to ${f(p.q3)} ms, ${p.n} samples)`] : [];
  });
  if (lines.length === 0) return [];
  return [
    `Paired estimate of the product's own overhead: the four paths of the formula (SW, direct, bare SW relay to the busy worker, page ⇄ busy worker), one request each, back to back, many times; one value (SW − direct) − (relay − worker) per sample, and their median: ${lines.join('; ')}. Drift and bursts of other work hit the four requests of a sample alike, which the block medians above cannot guarantee.`,
  ];
}
