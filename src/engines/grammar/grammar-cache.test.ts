import { describe, expect, it } from 'vitest';
import { createGrammarCache } from './grammar-cache.ts';

describe('createGrammarCache', () => {
  it('drops the least recently used past the entry bound', () => {
    const dropped: string[] = [];
    const cache = createGrammarCache<string>(2, 1_000, (value) => dropped.push(value));
    cache.set('a', 'A', 1);
    cache.set('b', 'B', 1);
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', 1);
    expect(dropped).toEqual(['B']);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
  });

  it('drops the least recently used past the byte bound, once a value’s weight is known, but keeps the one just added', () => {
    const dropped: string[] = [];
    const cache = createGrammarCache<string>(10, 100, (value) => dropped.push(value));
    cache.set('a', 'A', 1);
    cache.set('b', 'B', 1);
    cache.weigh('a', 'A', 60);
    cache.weigh('b', 'B', 60);
    expect(dropped).toEqual(['A']);
    expect(cache.bytes).toBe(60);
    cache.set('huge', 'H', 1);
    cache.weigh('huge', 'H', 500);
    expect(dropped).toEqual(['A', 'B']);
    expect([cache.size, cache.bytes, cache.get('huge')]).toEqual([1, 500, 'H']);
  });

  it('weighs only the value it was given (not one that replaced it), and tells of deletes and replacements', () => {
    const dropped: string[] = [];
    const cache = createGrammarCache<string>(10, 100, (value) => dropped.push(value));
    cache.set('a', 'old', 1);
    cache.set('a', 'new', 1);
    cache.weigh('a', 'old', 90);
    expect(cache.bytes).toBe(1);
    cache.delete('a');
    expect(dropped).toEqual(['old', 'new']);
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });
});
