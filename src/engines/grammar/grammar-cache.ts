/**
 * The cache of prepared grammars (compiled ones, or EBNF for web-llm), least recently used out
 * first, bounded both in entries and in bytes: a client that repeats its schemas finds them
 * ready, and one that sends a new large schema each time cannot make it hold more than the bound.
 * @module
 */

export interface GrammarCache<V> {
  /** The value under `key`, now the most recently used; undefined if there is none. */
  get(key: string): V | undefined;
  /** Adds `value`, weighing `bytes` until `weigh` says better, and drops the least recently used past the bounds. */
  set(key: string, value: V, bytes: number): void;
  /** Sets what the value under `key` weighs, once it is known (a compiled grammar's size). */
  weigh(key: string, value: V, bytes: number): void;
  delete(key: string): void;
  /** Drops every value (each told to `dropped`). */
  clear(): void;
  readonly size: number;
  readonly bytes: number;
}

/** `dropped` is told of each value that leaves the cache (evicted, replaced or deleted). */
export function createGrammarCache<V>(maxEntries: number, maxBytes: number, dropped: (value: V) => void = () => {}): GrammarCache<V> {
  const entries = new Map<string, { value: V; bytes: number }>();
  let total = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes;
    dropped(entry.value);
  };
  const trim = (keep: string) => {
    for (const key of entries.keys()) {
      if (entries.size <= maxEntries && total <= maxBytes) break;
      // The entry just added stays, whatever it weighs: its request is about to use it.
      if (key !== keep) remove(key);
    }
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      // Most recently used last: the first key is the one to drop.
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, bytes) {
      remove(key);
      entries.set(key, { value, bytes });
      total += bytes;
      trim(key);
    },
    weigh(key, value, bytes) {
      const entry = entries.get(key);
      if (!entry || entry.value !== value) return;
      total += bytes - entry.bytes;
      entry.bytes = bytes;
      trim(key);
    },
    delete: remove,
    clear() {
      for (const key of [...entries.keys()]) remove(key);
    },
    get size() {
      return entries.size;
    },
    get bytes() {
      return total;
    },
  };
}
