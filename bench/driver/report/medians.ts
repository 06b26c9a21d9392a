/** Medians over a few values: across runs of the main page, across paired rounds. @module */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = (sorted.length - 1) / 2;
  return (sorted[Math.floor(mid)]! + sorted[Math.ceil(mid)]!) / 2;
}

/** `fn` of each round's paired samples (same round index: measured back to back): median and range. */
export function paired(a: readonly number[], b: readonly number[], fn: (a: number, b: number) => number): { median: number; min: number; max: number } {
  const values = a.slice(0, Math.min(a.length, b.length)).map((x, i) => fn(x, b[i]!));
  const sorted = [...values].sort((x, y) => x - y);
  return { median: median(values), min: sorted[0]!, max: sorted.at(-1)! };
}

export const range = (p: { min: number; max: number }, digits = 2, unit = '') => `per round ${p.min.toFixed(digits)}${unit}–${p.max.toFixed(digits)}${unit}`;
