/**
 * transformers.js's key/value cache kept across requests (prefix-store.ts holds the entries): after
 * each generation the cache `generate` returns is kept for the tokens the model read, and a later
 * prompt that begins with some of them starts from those keys and values, so `generate` reads only
 * the rest (it skips the input ids its `past_key_values` already hold, and takes positions from
 * the attention mask).
 *
 * Exact by construction: an entry's tokens are the first `get_seq_length()` ids of the sequence
 * the model generated from, which are the tokens whose keys and values it holds (the last sampled
 * token of a reply was never fed back, so it is not among them), whatever ended the generation (its
 * end token, the token cap, a stop string, an abort). Only attention caches
 * (`past_key_values.N.key|value`, sequence on axis 2) can be cut to a shorter prefix; a model with
 * any other state (a recurrent or convolution cache) is not cached. On WebGPU the tensors `generate`
 * returns live on the GPU: they are read back once into memory (and their GPU buffers released),
 * so a prefix can be cut from them on the CPU and uploaded with the next request.
 * See docs/decisions/prefix-cache.md.
 * @module
 */

import { DynamicCache, Tensor } from '@huggingface/transformers';
import { PrefixStore, type PrefixStoreFigures } from '../decoding/prefix-store.ts';

type KeysAndValues = Readonly<Record<string, Tensor>>;

/** Cache entries a prefix can be cut from: attention keys and values, [batch, heads, sequence, head size]. */
export const ATTENTION = /^past_key_values\.\d+\.(key|value)$/;

export interface PrefixReuse {
  /** The cache to generate from: the entry's keys and values for the first `length` tokens. */
  readonly past: DynamicCache;
  readonly length: number;
}

export class KVPrefixCache {
  readonly #store: PrefixStore<KeysAndValues>;

  constructor(maxBytes: number) {
    this.#store = new PrefixStore(maxBytes);
  }

  /**
   * The cache to start a generation of `tokens` from, or undefined when nothing kept shares its
   * first token. At least the prompt's last token is left to read: its logits choose the first
   * token of the reply.
   */
  reuse(model: string, tokens: Int32Array): PrefixReuse | undefined {
    if (this.#store.maxBytes === 0) return undefined;
    const match = this.#store.match(model, tokens);
    if (!match) return undefined;
    const { entry, length } = match;
    // A fresh cache object each time: `generate` replaces its fields as it goes, never the tensors'
    // contents, so the kept entry stays as it was. The whole entry is shared; a prefix is a copy.
    const entries: Record<string, Tensor> = {};
    for (const [name, tensor] of Object.entries(entry.state)) {
      entries[name] = length === entry.tokens.length ? tensor : tensor.slice(null, null, [0, length], null);
    }
    return { past: new DynamicCache(entries), length };
  }

  /**
   * Keeps what a generation read: `sequence` is the ids it generated from and produced (prompt
   * first), `past` the cache it returned. Takes `past` over: whatever is not kept is disposed.
   */
  async keep(model: string, sequence: ArrayLike<bigint | number>, past: DynamicCache): Promise<void> {
    const names = Object.keys(past);
    const length = names.length > 0 && names.every((name) => ATTENTION.test(name)) ? past.get_seq_length() : 0;
    if (this.#store.maxBytes === 0 || length === 0 || length > sequence.length) {
      await past.dispose();
      return;
    }
    const state: Record<string, Tensor> = {};
    let bytes = 0;
    for (const name of names) {
      const tensor = past[name]!;
      state[name] = await inMemory(tensor);
      bytes += (state[name].data as ArrayBufferView).byteLength;
    }
    if (bytes > this.#store.maxBytes) return;
    const tokens = Int32Array.from({ length }, (_, i) => Number(sequence[i]));
    this.#store.add(model, tokens, state, bytes);
  }

  drop(model: string): void {
    this.#store.drop(model);
  }

  clear(): void {
    this.#store.clear();
  }

  figures(model?: string): PrefixStoreFigures {
    return this.#store.figures(model);
  }
}

/** The tensor with its data in memory: a GPU one is read back and its buffer released. */
async function inMemory(tensor: Tensor): Promise<Tensor> {
  if (tensor.location !== 'gpu-buffer') return tensor;
  const data = await tensor.ort_tensor.getData(true);
  return new Tensor(tensor.type, data, tensor.dims);
}
