/**
 * What an app serves for the product, as one list: `npx inpage-llm init` copies it into the app's
 * public folder, the vite plugin serves it in dev and emits it in the build. Layout (URL paths):
 *
 *   /inpage-llm-sw.js                  the service worker (scope: the whole origin)
 *   /inpage-llm/engine-worker.js       the engine worker, and its chunks
 *   /inpage-llm/client.js              the page library as one module, for pages without a bundler
 *   /inpage-llm/handle-inference.js    for an app's own service worker to import
 *   /inpage-llm/ort-wasm-simd-threaded.asyncify.wasm   onnxruntime-web's engine
 *   /inpage-llm/ort-wasm-simd-threaded.asyncify.js     its glue (its threads start as workers of it)
 *   /inpage-llm/precache-manifest.json the files above under /inpage-llm/, for an app's own
 *                                      service worker to precache (src/sw/runtime-precache.ts)
 *   /inpage-llm/models/…               the tiny generated models (only when asked)
 *
 * The scripts and the wasm ship built in the package (`dist/browser/`; the wasm is copied there
 * from onnxruntime-web at build, so a browser app installs neither transformers.js nor
 * onnxruntime); the tiny models are generated here.
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MODELS_DIR, ORT_MJS_FILE, ORT_MJS_SOURCE, ORT_WASM_FILE, RUNTIME_DIR, SERVICE_WORKER_FILE } from '../contracts/runtime-layout.ts';
import { PRECACHE_MANIFEST_PATH, type PrecacheEntry } from '../sw/runtime-manifest.ts';
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
  // The package's copies (dist/browser); else, building from source, onnxruntime-web's own.
  for (const [name, source] of [[ORT_WASM_FILE, ORT_WASM_FILE], [ORT_MJS_FILE, ORT_MJS_SOURCE]] as const) {
    if (files.some((f) => f.path === `${RUNTIME_DIR}/${name}`)) continue;
    const path = ortWasmPath().replace(ORT_WASM_FILE, source);
    files.push({ path: `${RUNTIME_DIR}/${name}`, read: () => readFile(path) });
  }
  if (options.scripts ?? true) files.push(precacheManifest(files));
  if (options.models) {
    for (const [path, content] of tinyModelFiles()) files.push({ path: `${RUNTIME_DIR}/${MODELS_DIR}${path}`, read: async () => content });
  }
  return files;
}

/**
 * onnxruntime-web's wasm, found through transformers.js (whose dependency it is) wherever npm put
 * it: for builds from this repository's sources, where transformers.js is installed.
 */
export function ortWasmPath(): string {
  return onnxruntimeWeb().resolve(`onnxruntime-web/${ORT_WASM_FILE}`);
}

/**
 * The onnxruntime-web version the engine worker was built with: it names the wasm's URL
 * (`…asyncify.wasm?v=1.31.0`, see src/engines/transformers/configure-env.ts).
 */
export function ortWebVersion(): string {
  if (typeof __ORT_WEB_VERSION__ === 'string') return __ORT_WEB_VERSION__;
  // Its exports leave out package.json: found from the wasm, in its dist/.
  const manifest = join(dirname(dirname(ortWasmPath())), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

declare const __ORT_WEB_VERSION__: string | undefined;

function onnxruntimeWeb(): NodeJS.Require {
  const require = createRequire(import.meta.url);
  try {
    return createRequire(require.resolve('@huggingface/transformers'));
  } catch (error) {
    throw new Error('onnxruntime-web is found through @huggingface/transformers, which is not installed here: in the package, build it first (npm run build:package), which copies the wasm into dist/browser.', { cause: error });
  }
}

/**
 * The runtime files an app's own service worker must keep for offline use: everything under
 * RUNTIME_DIR but the models (the engines keep those in caches of their own). The wasm is listed
 * under the URL the engine worker asks for, with its `?v=`.
 */
export function precacheManifest(files: readonly RuntimeFile[]): RuntimeFile {
  const runtime = files.filter((f) => f.path.startsWith(`${RUNTIME_DIR}/`) && !f.path.startsWith(`${RUNTIME_DIR}/${MODELS_DIR}`) && f.path !== PRECACHE_MANIFEST_PATH);
  return {
    path: PRECACHE_MANIFEST_PATH,
    async read() {
      const entries: PrecacheEntry[] = [];
      for (const file of runtime) {
        const revision = createHash('sha256').update(await file.read()).digest('hex').slice(0, 16);
        const url = file.path.endsWith(`/${ORT_WASM_FILE}`) || file.path.endsWith(`/${ORT_MJS_FILE}`) ? `${file.path}?v=${encodeURIComponent(ortWebVersion())}` : file.path;
        entries.push({ url, revision });
      }
      return `${JSON.stringify(entries.sort((a, b) => a.url.localeCompare(b.url)), null, 1)}\n`;
    },
  };
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
