/**
 * What a model has already read, kept after each request so that the next one that begins with the
 * same tokens reads only the rest: a conversation's next turn, an agent's next step (the same
 * system prompt and tools each time), a regenerated reply. The servers users compare us with do
 * the same (vLLM's automatic prefix caching, llama.cpp's `cache_prompt`).
 *
 * Engine-neutral: an entry is a token sequence and an engine's state for exactly those tokens (for
 * transformers.js, the key/value tensors: kv-prefix-cache.ts), per model, bounded in bytes, the
 * least recently used evicted first. Entries are never changed once added: a request that reuses
 * one starts from a copy of its state and adds its own as a new entry, so two requests can never
 * write one entry. An entry whose tokens begin another's is dropped as the longer one comes in (it
 * can serve nothing the longer one cannot). See docs/decisions/prefix-cache.md.
 * @module
 */
import type { PrefixCacheFigures } from '../../core/engine.ts';

export interface PrefixEntry<S> {
  readonly model: string;
  readonly tokens: Int32Array;
  /** The engine's state after reading exactly `tokens`. */
  readonly state: S;
  readonly bytes: number;
}

export interface PrefixMatch<S> {
  readonly entry: PrefixEntry<S>;
  /** How many of the asked tokens the entry holds: reuse its state up to here. */
  readonly length: number;
}

/** What the store holds (of one model, or of all), and its bound. */
export type PrefixStoreFigures = PrefixCacheFigures;

export class PrefixStore<S> {
  readonly maxBytes: number;
  /** In order of use, the least recently used first. */
  #entries: PrefixEntry<S>[] = [];
  #bytes = 0;

  /** `maxBytes` 0 keeps nothing: every request reads its whole prompt. */
  constructor(maxBytes: number) {
    if (!(Number.isFinite(maxBytes) && maxBytes >= 0)) throw new RangeError(`prefixCacheBytes must be a number of bytes, 0 or more (0 keeps none), not ${JSON.stringify(maxBytes)}.`);
    this.maxBytes = Math.floor(maxBytes);
  }

  /**
   * The entry sharing the longest beginning with `tokens`, and how long, at most `limit` tokens
   * (an engine must still read at least one token to have the next token's logits); undefined
   * when none shares one token. The entry becomes the most recently used.
   */
  match(model: string, tokens: ArrayLike<number>, limit = tokens.length - 1): PrefixMatch<S> | undefined {
    let best: PrefixMatch<S> | undefined;
    for (const entry of this.#entries) {
      if (entry.model !== model) continue;
      const length = commonPrefix(entry.tokens, tokens, Math.min(limit, entry.tokens.length));
      // Ties go to the later (more recently used) entry.
      if (length > 0 && length >= (best?.length ?? 0)) best = { entry, length };
    }
    if (best) this.#touch(best.entry);
    return best;
  }

  /**
   * Keeps `state` for `tokens`. Not kept when it alone is larger than the bound, or an entry that
   * holds these tokens and more is already there; evicts the least recently used entries to fit.
   * Returns whether it was kept.
   */
  add(model: string, tokens: Int32Array, state: S, bytes: number): boolean {
    if (tokens.length === 0 || bytes > this.maxBytes) return false;
    const mine = this.#entries.filter((e) => e.model === model);
    const covering = mine.find((e) => e.tokens.length >= tokens.length && commonPrefix(e.tokens, tokens, tokens.length) === tokens.length);
    if (covering) {
      this.#touch(covering);
      return false;
    }
    // Entries this one begins with serve nothing it cannot.
    for (const entry of mine) if (commonPrefix(entry.tokens, tokens, entry.tokens.length) === entry.tokens.length) this.#remove(entry);
    while (this.#bytes + bytes > this.maxBytes && this.#entries.length > 0) this.#remove(this.#entries[0]!);
    this.#entries.push({ model, tokens, state, bytes });
    this.#bytes += bytes;
    return true;
  }

  /** Forgets a model's entries (it was unloaded, or its device lost). */
  drop(model: string): void {
    for (const entry of this.#entries.filter((e) => e.model === model)) this.#remove(entry);
  }

  clear(): void {
    this.#entries = [];
    this.#bytes = 0;
  }

  figures(model?: string): PrefixStoreFigures {
    const entries = model === undefined ? this.#entries : this.#entries.filter((e) => e.model === model);
    return { entries: entries.length, bytes: entries.reduce((sum, e) => sum + e.bytes, 0), maxBytes: this.maxBytes };
  }

  #touch(entry: PrefixEntry<S>): void {
    const at = this.#entries.indexOf(entry);
    if (at !== -1 && at !== this.#entries.length - 1) this.#entries.push(...this.#entries.splice(at, 1));
  }

  #remove(entry: PrefixEntry<S>): void {
    const at = this.#entries.indexOf(entry);
    if (at === -1) return;
    this.#entries.splice(at, 1);
    this.#bytes -= entry.bytes;
  }
}

/** How many of the first `limit` tokens `a` and `b` share. */
function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>, limit: number): number {
  const n = Math.min(limit, a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * The default bound: a sixteenth of the device's memory where the browser says how much it has
 * (`navigator.deviceMemory`, in GiB, at most 8 in Chromium; absent elsewhere: 4 assumed), between
 * 64 MiB and 1 GiB. Qwen2.5-0.5B's cache takes 24 KiB a token in fp32 (24 layers, 2 key/value
 * heads of 64), so 256 MiB holds some 10,000 tokens: a few long conversations.
 */
export function defaultPrefixCacheBytes(deviceMemoryGiB = (globalThis.navigator as { deviceMemory?: number } | undefined)?.deviceMemory): number {
  const gib = typeof deviceMemoryGiB === 'number' && deviceMemoryGiB > 0 ? deviceMemoryGiB : 4;
  return Math.min(1024, Math.max(64, (gib * 1024) / 16)) * 1024 * 1024;
}
