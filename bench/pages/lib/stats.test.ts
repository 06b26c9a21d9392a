import { describe, expect, it } from 'vitest';
import { balanced, rotate } from './stats.ts';

/** How often each ordered pair (a right before b) occurs over `orders`. */
function successions(orders: readonly (readonly string[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const order of orders) for (let i = 1; i < order.length; i++) counts.set(`${order[i - 1]}>${order[i]}`, (counts.get(`${order[i - 1]}>${order[i]}`) ?? 0) + 1);
  return counts;
}

describe('balanced', () => {
  const paths = ['sw', 'direct', 'floor', 'floor worker'];
  const orders = [0, 1, 2, 3].map((k) => balanced(paths, k));

  it('runs every path once in each order', () => {
    for (const order of orders) expect([...order].sort()).toEqual([...paths].sort());
  });

  it('puts each path right after each other path exactly once over as many orders as paths', () => {
    const counts = successions(orders);
    expect(counts.size).toBe(paths.length * (paths.length - 1));
    expect(new Set(counts.values())).toEqual(new Set([1]));
  });

  it('unlike rotations, which keep each path behind the same one', () => {
    const counts = successions([0, 1, 2, 3].map((k) => rotate(paths, k)));
    expect(counts.get('floor worker>sw')).toBe(3);
    expect(counts.get('direct>sw')).toBeUndefined();
  });

  it('repeats after as many orders as paths', () => {
    expect(balanced(paths, 4)).toEqual(balanced(paths, 0));
    expect(balanced(paths, 0)).toEqual(['sw', 'direct', 'floor worker', 'floor']);
  });
});
