/** Summaries of timing samples (milliseconds unless said otherwise). @module */

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** Linear-interpolated quantile of sorted values. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Runs `fn` `count` times back to back and returns each call's duration (performance.now, ms). */
export async function timeEach(count: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await fn();
    out[i] = performance.now() - t0;
  }
  return out;
}

/** `n` items rotated by `k`: each round starts with another path, so no path always runs first. */
export function rotate<T>(items: readonly T[], k: number): T[] {
  const n = items.length;
  return items.map((_, i) => items[(i + k) % n]!);
}

/**
 * The `k`-th order of a balanced design over `items` (Williams): across `items.length` successive
 * orders each item runs right after each other item exactly once (for an even count), so what one
 * path leaves behind (a warm thread, a cold cache) falls on every other path alike. Rotations
 * alone ({@link rotate}) keep each path's predecessor fixed.
 */
export function balanced<T>(items: readonly T[], k: number): T[] {
  const n = items.length;
  // First order: 0, 1, n−1, 2, n−2, …; the others add k to each index.
  const first = Array.from({ length: n }, (_, j) => (j === 0 ? 0 : j % 2 === 1 ? (j + 1) / 2 : n - j / 2));
  return first.map((j) => items[(j + k) % n]!);
}
