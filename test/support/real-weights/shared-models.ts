/**
 * Where the real trained weights live: the folder `INPAGE_REAL_WEIGHTS_DIR` names, else
 * `shared/models/` in the repository's parent folder (where CI keeps them). They are data the tests read, never copied into the repository or the
 * package; where the folder is missing (a clone elsewhere), the suites that need it skip and say
 * which path they need.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The real-weights folder: `INPAGE_REAL_WEIGHTS_DIR`, else `shared/models/` beside the repository. */
export const SHARED_MODELS_DIR = process.env.INPAGE_REAL_WEIGHTS_DIR || fileURLToPath(new URL('../../../../shared/models/', import.meta.url));

/** The files the converters read, by model folder. */
const NEEDED = {
  stories260K: ['stories260K.bin', 'tok512.bin', 'greedy-once-upon-a-time.txt'],
  'model2vec-bge-vq': ['model.safetensors', 'tokenizer.json', 'expected-embeddings.json'],
} as const;

export type SharedModel = keyof typeof NEEDED;

/** A file of one of the shared models. */
export function sharedModelFile(model: SharedModel, file: string): string {
  return join(SHARED_MODELS_DIR, model, file);
}

/**
 * Why the real-weight tests cannot run here, or undefined when every file they read is present:
 * the message a skip shows.
 */
export function sharedModelsMissing(): string | undefined {
  const needs = `needs the real trained weights in ${SHARED_MODELS_DIR} (a folder with stories260K/ and model2vec-bge-vq/ as docs/guides/developing.md's "Models the tests run on" lists)`;
  const run = 'run with INPAGE_REAL_WEIGHTS_DIR=<that folder> npm test (or npm run test:unit, or npx playwright test e2e/real-weights.spec.ts e2e/gguf-llama-cpp.spec.ts)';
  if (!existsSync(SHARED_MODELS_DIR)) return `${needs}, which is missing: ${run}`;
  const missing = Object.entries(NEEDED).flatMap(([model, files]) => files.map((file) => join(model, file))).filter((path) => !existsSync(join(SHARED_MODELS_DIR, path)));
  return missing.length ? `${needs}; it lacks ${missing.join(', ')}: ${run}` : undefined;
}
