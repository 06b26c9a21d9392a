/**
 * A long prompt read in pieces before `generate` takes over. One forward pass over a whole prompt
 * makes the model's logits for every prompt position at once, [tokens × vocabulary] floats: for
 * Qwen2.5's 151,936-token vocabulary 0.6 MB a token, 1.1 GB for 1,841 tokens, twice that with
 * 8-bit weights (the int32 product, then floats). In WebAssembly's 4 GiB that fails (`bad_alloc`)
 * near 1,800 tokens with the catalog's 8-bit Qwen, so a prompt (a system prompt, tools and a few
 * turns) that fits the context window could not be read. Read `chunkTokens` at a time, each piece
 * extending the key/value cache as `generate` would, the logits never exceed one piece's; only the
 * last piece is left to `generate`, whose last position gives the reply's first token. The keys
 * and values are those of one pass: each token attends to the same earlier ones either way (the
 * answers on real weights are checked equal, chunked-prefill.test.ts).
 * @module
 */

import { DynamicCache, type PreTrainedModel, type Tensor } from '@huggingface/transformers';
import { abortedError } from '../../core/errors.ts';
import { ATTENTION } from './kv-prefix-cache.ts';

/** Tokens a piece: 256 × 151,936 logits are 155 MB (311 MB with 8-bit weights' int32 step). */
export const DEFAULT_PREFILL_CHUNK_TOKENS = 256;

export interface Prefilled {
  /** The cache holding the first `length` prompt tokens; undefined where nothing needed reading here. */
  readonly past: DynamicCache | undefined;
  readonly length: number;
}

/**
 * Reads `inputs` from position `from` (what `past` already holds) in pieces of `chunkTokens`,
 * until at most `chunkTokens` are left for `generate` (always at least one). `past` (a cache entry's
 * tensors, maybe shared with the prefix cache) is never disposed here; the caches made on the way
 * are, once the next piece has been read from them. Aborts between pieces.
 */
export async function prefillInChunks(
  model: PreTrainedModel,
  inputs: { readonly input_ids: Tensor; readonly attention_mask: Tensor },
  past: DynamicCache | undefined,
  from: number,
  chunkTokens: number,
  signal: AbortSignal,
): Promise<Prefilled> {
  const total = inputs.input_ids.dims.at(-1) ?? 0;
  if (total - from <= chunkTokens || !attentionCacheOnly(model)) return { past, length: from };
  let cache = past;
  let length = from;
  while (total - length > chunkTokens) {
    if (signal.aborted) {
      if (cache !== past) await cache?.dispose();
      throw abortedError();
    }
    const end = length + chunkTokens;
    const outputs = (await model.forward({
      input_ids: inputs.input_ids.slice(null, [length, end]),
      attention_mask: inputs.attention_mask.slice(null, [0, end]),
      past_key_values: cache ?? null,
    })) as Record<string, Tensor>;
    const next: Record<string, Tensor> = {};
    for (const [name, tensor] of Object.entries(outputs)) {
      if (name.startsWith('present.')) next[name.replace('present.', 'past_key_values.')] = tensor;
      // The piece's logits are not needed (the reply's first token comes from the last piece's).
      else tensor.dispose();
    }
    if (cache !== past) await cache?.dispose();
    cache = new DynamicCache(next);
    length = end;
  }
  return { past: cache, length };
}

/**
 * Whether the model's only state is attention keys and values (`past_key_values.N.key|value`): a
 * recurrent or convolution state (Qwen3.5, LFM2, Mamba) is carried differently, and such a model
 * reads its prompt in one pass as before.
 */
export function attentionCacheOnly(model: PreTrainedModel): boolean {
  const sessions = (model as unknown as { sessions: Record<string, { inputNames: readonly string[] }> }).sessions;
  const names = sessions.model?.inputNames;
  if (!names) return false;
  const state = names.filter((name) => name.startsWith('past'));
  return state.length > 0 && state.every((name) => ATTENTION.test(name));
}
