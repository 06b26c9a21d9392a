/**
 * Where the real trained weights live: `../shared/models/` beside the repository (CI has `../shared`
 * beside its clone). They are data the tests read, never copied into the repository or the
 * package; where the folder is missing (a clone elsewhere), the suites that need it skip and say
 * which path they need.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** `../shared/models/` relative to the repository root. */
export const SHARED_MODELS_DIR = fileURLToPath(new URL('../../../../shared/models/', import.meta.url));

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
  const needs = `needs the real trained weights in ${SHARED_MODELS_DIR} (../shared/models beside the repository, as CI has it)`;
  if (!existsSync(SHARED_MODELS_DIR)) return `${needs}, which is missing: put that folder there and run again`;
  const missing = Object.entries(NEEDED).flatMap(([model, files]) => files.map((file) => join(model, file))).filter((path) => !existsSync(join(SHARED_MODELS_DIR, path)));
  return missing.length ? `${needs}; it lacks ${missing.join(', ')}` : undefined;
}
