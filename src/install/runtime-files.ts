/**
 * What an app serves for the product, as one list: `npx inpage-llm init` copies it into the app's
 * public folder, the vite plugin serves it in dev and emits it in the build. Layout (URL paths):
 *
 *   /inpage-llm-sw.js                  the service worker (scope: the whole origin)
 *   /inpage-llm/engine-worker.js       the engine worker, and its chunks
 *   /inpage-llm/client.js              the page library as one module, for pages without a bundler
 *   /inpage-llm/handle-inference.js    for an app's own service worker to import
 *   /inpage-llm/ort-wasm-simd-threaded.asyncify.wasm   onnxruntime-web's engine, from its package
 *   /inpage-llm/models/…               the tiny generated models (only when asked)
 *
 * The scripts ship built in the package (`dist/browser/`); the wasm is read from the installed
 * onnxruntime-web rather than copied into the package, and the tiny models are generated here.
 * @module
 */
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODELS_DIR, ORT_WASM_FILE, RUNTIME_DIR, SERVICE_WORKER_FILE } from '../contracts/runtime-layout.ts';
import { tinyModelFiles } from '../tiny-models/generate.ts';


export interface RuntimeFile {
  /** Path under the public root, with `/` separators. */
  readonly path: string;
  read(): Promise<string | Uint8Array>;
}

export interface RuntimeFileOptions {
  /** The built browser scripts (default: this package's `dist/browser`). */
  readonly scriptsDir?: string;
  /** Leave out the scripts (a build that makes its own, as this repository's does). */
  readonly scripts?: boolean;
  /** Include the tiny generated models (default false). */
  readonly models?: boolean;
}

export async function runtimeFiles(options: RuntimeFileOptions = {}): Promise<RuntimeFile[]> {
  const files: RuntimeFile[] = [];
  if (options.scripts ?? true) {
    const dir = options.scriptsDir ?? fileURLToPath(new URL('./browser/', import.meta.url));
    for (const file of await listFiles(dir)) {
      files.push({ path: relative(dir, file).split(sep).join('/'), read: () => readFile(file) });
    }
    if (!files.some((f) => f.path === SERVICE_WORKER_FILE)) {
      throw new Error(`The built service worker is missing from ${dir}: build the package first (npm run build:package).`);
    }
  }
  const wasm = ortWasmPath();
  files.push({ path: `${RUNTIME_DIR}/${ORT_WASM_FILE}`, read: () => readFile(wasm) });
  if (options.models) {
    for (const [path, content] of tinyModelFiles()) files.push({ path: `${RUNTIME_DIR}/${MODELS_DIR}${path}`, read: async () => content });
  }
  return files;
}

/** onnxruntime-web's wasm, found through transformers.js (whose dependency it is) wherever npm put it. */
export function ortWasmPath(): string {
  const require = createRequire(import.meta.url);
  const transformers = require.resolve('@huggingface/transformers');
  return createRequire(transformers).resolve(`onnxruntime-web/${ORT_WASM_FILE}`);
}

async function listFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    throw new Error(`The built browser scripts are missing (${dir}): build the package first (npm run build:package).`);
  }
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
