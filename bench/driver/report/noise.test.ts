import { describe, expect, it } from 'vitest';
import { bootstrap, medianInterval } from './noise.ts';

/** `n` values spread evenly over [center − width/2, center + width/2], shuffled by a fixed stride. */
const spread = (n: number, center: number, width: number) => Array.from({ length: n }, (_, i) => center - width / 2 + (((i * 37) % n) / (n - 1)) * width);

describe('bootstrap', () => {
  it('gives the statistic of the samples as they are, inside its interval', () => {
    const i = bootstrap({ a: spread(50, 10, 4), b: spread(50, 8, 4) }, (m) => m.a - m.b)!;
    expect(i.estimate).toBeCloseTo(2, 6);
    expect(i.low).toBeLessThan(i.estimate);
    expect(i.high).toBeGreaterThan(i.estimate);
  });

  it('reads the same each time from the same samples (seeded)', () => {
    const groups = { a: spread(40, 5, 3), b: spread(40, 5, 3) };
    expect(bootstrap(groups, (m) => m.a - m.b)).toEqual(bootstrap(groups, (m) => m.a - m.b));
  });

  it('is wider where the samples are noisier and narrower where there are more of them', () => {
    const width = (n: number, w: number) => {
      const i = bootstrap({ a: spread(n, 10, w), b: spread(n, 10, w) }, (m) => m.a - m.b)!;
      return i.high - i.low;
    };
    expect(width(50, 8)).toBeGreaterThan(width(50, 2) * 2);
    expect(width(400, 4)).toBeLessThan(width(25, 4) / 2);
  });

  it('separates a real shift from none: identical groups straddle zero, shifted ones do not', () => {
    const same = bootstrap({ a: spread(100, 15, 2), b: spread(100, 15, 2) }, (m) => m.a - m.b)!;
    expect(same.low).toBeLessThanOrEqual(0);
    expect(same.high).toBeGreaterThanOrEqual(0);
    const shifted = bootstrap({ a: spread(100, 16, 2), b: spread(100, 15, 2) }, (m) => m.a - m.b)!;
    expect(shifted.low).toBeGreaterThan(0.5);
  });

  it('gives nothing for a group without samples', () => {
    expect(bootstrap({ a: [1, 2], b: [] }, (m) => m.a - m.b)).toBeUndefined();
    expect(medianInterval([])).toBeUndefined();
  });

  it('takes the median of one group', () => {
    const i = medianInterval([5, 1, 3, 2, 4])!;
    expect(i.estimate).toBe(3);
    expect(i.low).toBeGreaterThanOrEqual(1);
    expect(i.high).toBeLessThanOrEqual(5);
  });
});
