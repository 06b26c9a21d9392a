/**
 * The model2vec-bge-vq conversion checked apart from the product: transformers.js's own
 * feature-extraction pipeline on it gives the authors' reference vector, with no special tokens
 * added, and a padded batch gives each text's vector alone.
 */
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EMBEDDER_DIMENSIONS, EMBEDDER_ID, PARAPHRASE_PAIRS, readReferenceVector, REFERENCE_TEXT, realWeightsDir, removeRealWeightsDir, sharedModelsMissing } from './index.ts';

const missing = sharedModelsMissing();

describe('model2vec-bge-vq converted for transformers.js', () => {
  let pipe: FeatureExtractionPipeline;
  beforeAll(async () => {
    if (missing) return;
    env.localModelPath = await realWeightsDir();
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    pipe = (await pipeline('feature-extraction', EMBEDDER_ID, { device: 'cpu', dtype: 'fp32' })) as FeatureExtractionPipeline;
  });
  afterAll(removeRealWeightsDir);
  beforeEach((context) => context.skip(missing !== undefined, missing));

  it('tokenizes without special tokens, as model2vec does: `hello` 1,000 times is 1,000 tokens', () => {
    const ids = Array.from(pipe.tokenizer.encode(REFERENCE_TEXT));
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1);
  });

  it('gives the authors\' reference vector to 1e-6 through the pipeline (mean, normalized)', async () => {
    const out = await pipe(REFERENCE_TEXT, { pooling: 'mean', normalize: true });
    const reference = await readReferenceVector();
    expect(out.dims).toEqual([1, EMBEDDER_DIMENSIONS]);
    const got = Array.from(out.data as Float32Array);
    expect(Math.max(...got.map((v, i) => Math.abs(v - reference[i]!)))).toBeLessThan(1e-6);
  });

  it('gives a padded batch each text\'s vector alone, and [UNK] no weight', async () => {
    const texts = [...PARAPHRASE_PAIRS.flat(), 'hello', 'hello ☃'];
    const batch = (await pipe(texts, { pooling: 'mean', normalize: true })).tolist() as number[][];
    for (const [i, text] of texts.entries()) {
      const alone = (await pipe(text, { pooling: 'mean', normalize: true })).tolist() as number[][];
      for (const [k, v] of alone[0]!.entries()) expect(batch[i]![k]).toBeCloseTo(v, 6);
    }
    // `☃` is [UNK]: model2vec leaves it out of the mean, so the vector is `hello`'s.
    expect(Array.from(pipe.tokenizer.encode('hello ☃')).at(-1)).toBe(1);
    for (const [k, v] of batch.at(-2)!.entries()) expect(batch.at(-1)![k]).toBeCloseTo(v, 6);
  });
});
