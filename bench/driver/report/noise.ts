/**
 * How far an estimate could move by chance: percentile bootstrap intervals, seeded so that a
 * report reads the same each time it is written from the same samples.
 * @module
 */
import { createPrng } from '../../../src/tiny-models/prng.ts';
import { median } from './medians.ts';

/** 95% by default. */
const LEVEL = 0.95;
const RESAMPLES = 2000;

/** `values` drawn again with replacement, as many as there were. */
function redraw(values: readonly number[], next: () => number): number[] {
  return values.map(() => values[Math.floor(next() * values.length)]!);
}

export interface Interval {
  readonly estimate: number;
  readonly low: number;
  readonly high: number;
}

/**
 * `statistic` of `groups` (its medians, say) and the middle 95% of the same statistic over groups
 * each redrawn with replacement. The groups are redrawn apart, as samples of paths measured apart.
 * It assumes a group's samples are alike and independent: drift between rounds widens the true
 * spread beyond it, which is what the A/A comparison beside it shows.
 */
export function bootstrap<K extends string>(groups: Readonly<Record<K, readonly number[]>>, statistic: (medians: Record<K, number>) => number, seed = 1): Interval | undefined {
  const keys = Object.keys(groups) as K[];
  if (keys.some((k) => !groups[k].length)) return undefined;
  const of = (draw: (values: readonly number[]) => readonly number[]) => statistic(Object.fromEntries(keys.map((k) => [k, median(draw(groups[k]))])) as Record<K, number>);
  const next = createPrng(seed).next;
  const spread = Array.from({ length: RESAMPLES }, () => of((v) => redraw(v, next))).sort((a, b) => a - b);
  const at = (q: number) => spread[Math.min(RESAMPLES - 1, Math.floor(q * RESAMPLES))]!;
  return { estimate: of((v) => v), low: at((1 - LEVEL) / 2), high: at(1 - (1 - LEVEL) / 2) };
}

/** The median of `values` and its bootstrap interval. */
export const medianInterval = (values: readonly number[], seed = 1) => bootstrap({ values }, (m) => m.values, seed);
