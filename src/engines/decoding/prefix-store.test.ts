import { describe, expect, it } from 'vitest';
import { defaultPrefixCacheBytes, PrefixStore } from './prefix-store.ts';

const ids = (...values: number[]) => Int32Array.from(values);

describe('PrefixStore', () => {
  it('finds the entry sharing the longest beginning, leaving at least one token to read', () => {
    const store = new PrefixStore<string>(1000);
    store.add('m', ids(1, 2, 3, 4), 'a', 10);
    store.add('m', ids(1, 2, 9), 'b', 10);
    expect(store.match('m', [1, 2, 3, 4, 5, 6])).toMatchObject({ length: 4, entry: { state: 'a' } });
    expect(store.match('m', [1, 2, 9, 9])).toMatchObject({ length: 3, entry: { state: 'b' } });
    // The whole prompt is held: all but its last token is reused.
    expect(store.match('m', [1, 2, 3, 4])).toMatchObject({ length: 3, entry: { state: 'a' } });
    expect(store.match('m', [7, 1, 2])).toBeUndefined();
    // Another model's entries are never another's.
    expect(store.match('other', [1, 2, 3, 4, 5])).toBeUndefined();
  });

  it('drops an entry a longer one begins with, and keeps nothing a longer entry already holds', () => {
    const store = new PrefixStore<string>(1000);
    store.add('m', ids(1, 2), 'turn 1', 10);
    store.add('m', ids(1, 2, 3, 4), 'turn 2', 20);
    expect(store.figures()).toEqual({ entries: 1, bytes: 20, maxBytes: 1000 });
    expect(store.add('m', ids(1, 2, 3), 'shorter', 5)).toBe(false);
    expect(store.figures().entries).toBe(1);
    // A branch is its own entry.
    expect(store.add('m', ids(1, 2, 7), 'branch', 15)).toBe(true);
    expect(store.figures()).toEqual({ entries: 2, bytes: 35, maxBytes: 1000 });
  });

  it('evicts the least recently used to stay within its bytes, and refuses what alone is larger', () => {
    const store = new PrefixStore<string>(100);
    store.add('m', ids(1), 'one', 40);
    store.add('m', ids(2), 'two', 40);
    // Using "one" makes "two" the least recently used.
    expect(store.match('m', [1, 5])?.entry.state).toBe('one');
    store.add('m', ids(3), 'three', 40);
    expect(store.match('m', [2, 5])).toBeUndefined();
    expect(store.match('m', [1, 5])?.entry.state).toBe('one');
    expect(store.figures().bytes).toBe(80);
    expect(store.add('m', ids(4), 'huge', 101)).toBe(false);
    expect(store.figures().bytes).toBe(80);
    store.drop('m');
    expect(store.figures()).toEqual({ entries: 0, bytes: 0, maxBytes: 100 });
    // Size 0 keeps nothing at all.
    const none = new PrefixStore<string>(0);
    expect(none.add('m', ids(1, 2), 'x', 1)).toBe(false);
    expect(() => new PrefixStore<string>(-1)).toThrow(RangeError);
  });

  it('defaults to a sixteenth of the device memory, between 64 MiB and 1 GiB', () => {
    const MiB = 1024 * 1024;
    expect(defaultPrefixCacheBytes(8)).toBe(512 * MiB);
    expect(defaultPrefixCacheBytes(0.5)).toBe(64 * MiB);
    expect(defaultPrefixCacheBytes(64)).toBe(1024 * MiB);
    expect(defaultPrefixCacheBytes(undefined)).toBe(256 * MiB);
  });
});
