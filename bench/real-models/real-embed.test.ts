// The real-shaped embedder (all-MiniLM-L6-v2's sizes, 90 MB) generated and run by transformers.js
// on onnxruntime-node, as the engine loads tiny-embed. About 3 s, so it runs by default.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRealModels, REAL_MODEL_IDS } from './real-models.ts';
import { textOfTokens } from './real-embed.ts';

let root: string;
let extractor: FeatureExtractionPipeline;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'real-embed-'));
  await generateRealModels(root, { only: ['embed'] });
  env.localModelPath = root;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  extractor = await pipeline('feature-extraction', REAL_MODEL_IDS.embed, { device: 'cpu', dtype: 'fp32' });
}, 60_000);

afterAll(async () => {
  await extractor?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('real-shaped embedder (all-MiniLM-L6-v2 sizes)', () => {
  it('is a float32 BERT of about 90 MB', async () => {
    const { size } = await stat(join(root, REAL_MODEL_IDS.embed, 'onnx/model.onnx'));
    expect(size).toBeGreaterThan(89e6);
    expect(size).toBeLessThan(92e6);
  });

  it('textOfTokens(n) is exactly n input ids, up to the 512-position window', () => {
    for (const n of [2, 8, 128, 512]) {
      const { input_ids } = extractor.tokenizer(textOfTokens(n)) as { input_ids: { dims: number[] } };
      expect(input_ids.dims).toEqual([1, n]);
    }
    expect(textOfTokens(64, 1)).not.toBe(textOfTokens(64));
  });

  it('gives 384-dimensional vectors that differ between texts, at every length', async () => {
    for (const n of [8, 128, 512]) {
      const output = await extractor([textOfTokens(n), textOfTokens(n, 1)], { pooling: 'mean', normalize: true });
      expect(output.dims).toEqual([2, 384]);
      const [a, b] = output.tolist() as number[][];
      expect(a!.every(Number.isFinite)).toBe(true);
      const cosine = a!.reduce((sum, v, i) => sum + v * b![i]!, 0);
      expect(cosine).toBeLessThan(0.9999);
    }
  });
});
