/**
 * Dynamic batching is exact: each concurrent request gets its own vectors (bit for bit the
 * unbatched ones), in order, with its own usage. One-text requests, and requests of 1–4 texts
 * each, all in flight at once, compared with the same requests sent alone, one at a time; and the
 * engine itself, with no batcher, on the same multi-text requests.
 * @module
 */
import type { Engine } from '../../../src/core/engine.ts';
import { nativeFetch } from './client.ts';
import { embedRequest, type EmbedReply } from './embedding-requests.ts';
import { EMBED_MODEL, signal, TEXTS } from './workload.ts';

/** Each text's vector and prompt tokens, embedded alone, one call each (in TEXTS order). */
export interface EmbeddingReference {
  vectors: Float32Array[];
  tokens: number[];
}

/** Requests the service worker's engine host received for the embedding model, and the engine calls it made. */
export type HostCounts = () => Promise<{ requests: number; engineCalls: number }>;

type Requester = (texts: string[]) => Promise<EmbedReply>;

function compare(replies: EmbedReply[], references: EmbedReply[]) {
  let identical = 0;
  let compared = 0;
  let maxAbsDiff = 0;
  let usageExact = 0;
  replies.forEach((reply, k) => {
    const ref = references[k]!;
    if (reply.vectors.length !== ref.vectors.length) throw new Error(`batching: request ${k} got ${reply.vectors.length} vectors for ${ref.vectors.length} texts`);
    reply.vectors.forEach((v, j) => {
      const expected = ref.vectors[j]!;
      compared++;
      let same = v.length === expected.length;
      for (let d = 0; d < expected.length; d++) {
        const diff = Math.abs((v[d] as number) - (expected[d] as number));
        if (diff !== 0) same = false;
        maxAbsDiff = Math.max(maxAbsDiff, diff);
      }
      if (same) identical++;
    });
    if (reply.tokens === ref.tokens) usageExact++;
  });
  return { requests: replies.length, vectors: compared, bitIdentical: identical, maxAbsDiff, usageExact };
}

/** Consecutive texts, `sizes[i]` of them in request i. */
function split(sizes: number[]): string[][] {
  let offset = 0;
  return sizes.map((size) => TEXTS.slice(offset, (offset += size)));
}

export async function batchingExactness(direct: Engine, reference: EmbeddingReference, hostCounts: HostCounts) {
  const viaSw: Requester = (texts) => embedRequest(nativeFetch, '/v1/embeddings', texts.length === 1 ? texts[0]! : texts, 'base64');
  const viaDirect: Requester = async (texts) => {
    const r = await direct.embed({ model: EMBED_MODEL, input: texts }, { signal });
    return { vectors: [...r.embeddings], tokens: r.promptTokens };
  };
  /** Requests of `sizes` texts, all in flight at once, vs each one sent alone (one at a time, direct). */
  const exactness = async (sizes: number[], request: Requester) => {
    const requests = split(sizes);
    const alone: EmbedReply[] = [];
    for (const texts of requests) alone.push(await viaDirect(texts));
    const before = await hostCounts();
    const replies = await Promise.all(requests.map((texts) => request(texts)));
    const after = await hostCounts();
    const merging = request === viaSw ? { merging: { requests: after.requests - before.requests, engineCalls: after.engineCalls - before.engineCalls } } : {};
    return { ...compare(replies, alone), ...merging };
  };
  const n = TEXTS.length;
  const sizes: number[] = [];
  for (let left = Math.min(160, n), i = 0; left > 0; i++) {
    const s = Math.min(left, 1 + (i % 4));
    sizes.push(s);
    left -= s;
  }
  const exact = {
    [`SW: ${n} concurrent one-text requests`]: await exactness(TEXTS.map(() => 1), viaSw),
    [`SW: ${sizes.length} concurrent requests of 1–4 texts`]: await exactness(sizes, viaSw),
    [`direct: ${n} concurrent one-text calls`]: await exactness(TEXTS.map(() => 1), viaDirect),
  };
  // Not the batcher: the engine itself. The texts of each multi-text request above, embedded in
  // one call, vs the same texts one call each (what merging different requests does to a vector).
  const multi = split(sizes);
  const oneByOne = multi.map((texts) => ({
    vectors: texts.map((_, j) => reference.vectors[TEXTS.indexOf(texts[j]!)]!),
    tokens: texts.reduce((sum, t) => sum + reference.tokens[TEXTS.indexOf(t)]!, 0),
  }));
  const together: EmbedReply[] = [];
  for (const texts of multi) together.push(await viaDirect(texts));
  return { exact, engineBatch: compare(together, oneByOne) };
}
