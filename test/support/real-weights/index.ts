/**
 * The two models with real, trained weights (the real-weights folder, see shared-models.ts), converted on
 * demand into what the engines load, in a temporary folder written once per test file:
 * - stories260K (stories260k.ts): a TinyStories Llama whose greedy text has a published right answer;
 * - model2vec-bge-vq (model2vec.ts): a sentence embedder with its authors' reference vector.
 * Why, and the choices in the conversion: docs/decisions/real-weights-in-the-tests.md.
 * @module
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TransformersModelEntry } from '../../../src/contracts/worker-config.ts';
import type { ModelFiles } from '../../../src/tiny-models/model-files.ts';
import { buildModel2vec, embedderSpec, EMBEDDER_ID } from './model2vec.ts';
import { buildStories260k, STORIES_ID, storiesSpec } from './stories260k.ts';

export { sharedModelsMissing, SHARED_MODELS_DIR } from './shared-models.ts';
export { greedyStoryTokens, storiesSpec, STORIES_ID, STORY_PROMPT, STORY_PROMPT_IDS, STORY_TOKENS, readStoryContinuation, readStoryReference } from './stories260k.ts';
export { embedderSpec, EMBEDDER_ID, EMBEDDER_DIMENSIONS, PARAPHRASE_PAIRS, REFERENCE_TEXT, readReferenceVector } from './model2vec.ts';

export async function writeModelFiles(files: ModelFiles, folder: string): Promise<void> {
  for (const [path, content] of files) {
    await mkdir(dirname(join(folder, path)), { recursive: true });
    await writeFile(join(folder, path), content);
  }
}

let written: Promise<string> | undefined;
/**
 * A folder holding `stories260K/` and `model2vec-bge-vq/` (about 2.5 MB, ~0.1 s), written once
 * per test process (per test file, where files are isolated); removeRealWeightsDir() removes it.
 */
export function realWeightsDir(): Promise<string> {
  return (written ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inpage-real-weights-'));
    await writeModelFiles(await buildStories260k(), join(dir, STORIES_ID));
    await writeModelFiles(await buildModel2vec(), join(dir, EMBEDDER_ID));
    return dir;
  })());
}

/** Removes the folder realWeightsDir() wrote, if any (a test file's afterAll: workers exit without running exit handlers). */
export async function removeRealWeightsDir(): Promise<void> {
  const dir = await written?.catch(() => undefined);
  written = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
}

/**
 * The two models as an app or `serve --config` names its own (the engine config's `models`), with
 * the facts the engine specs give them; `source` is the folder name under the models folder.
 */
export const REAL_WEIGHT_ENTRIES: readonly TransformersModelEntry[] = [
  { engine: 'transformers', id: STORIES_ID, kind: 'chat', source: STORIES_ID, contextWindow: storiesSpec.info.contextWindow, maxOutputTokens: storiesSpec.info.maxOutputTokens! },
  {
    engine: 'transformers', id: EMBEDDER_ID, kind: 'embedding', source: EMBEDDER_ID, contextWindow: embedderSpec.info.contextWindow, dimensions: embedderSpec.info.dimensions!,
    pooling: embedderSpec.pooling!, normalize: embedderSpec.normalize!,
  },
];
