/**
 * transformers.js reads its configuration from one mutable module-global (`env`), consulted when a
 * model is resolved and when the onnxruntime backend starts. Setting it here, once per engine
 * factory call and before any load, keeps every env write in one audited place; a second engine
 * created with different settings overrides the first for loads that start after it.
 * @module
 */

import { env } from '@huggingface/transformers';
import { cpuThreads, type CpuThreads } from '../../contracts/cross-origin-isolation.ts';
import { GatewayError } from '../../core/errors.ts';
import { checkedModelFetch, checkFor, checkRoom, createCachePartialStore, createFileProgress, type FileChecks, type FileProgress } from '../files/index.ts';
import { createVerifiedCache, type VerifiedCache } from './verified-cache.ts';

/** transformers.js's own fetch, wrapped once however many engines are configured. */
const plainFetch = env.fetch;
/** Model files' bytes as the wrapped fetch and the cache see them: one per worker, as `env` is. */
const fileProgress = createFileProgress();

export interface EnvOptions {
  /** Where local model ids resolve: a directory in Node, a URL path ending in `/` (e.g. `/models/`) in a browser. */
  readonly localModelPath?: string;
  /** Default false: nothing is fetched from the Hugging Face hub unless asked for. */
  readonly allowRemoteModels?: boolean;
  /** A mirror to fetch remote models from instead of the hub (same `{model}/resolve/{revision}/` layout). */
  readonly remoteHost?: string;
  /**
   * Where the onnxruntime-web `.wasm` files are served (a path prefix, or a map such as
   * `{ wasm: '/ort/ort-wasm-simd-threaded.asyncify.wasm' }`). Without it a browser fetches them from
   * a CDN, which fails offline.
   */
  readonly wasmPaths?: string | { readonly wasm?: string; readonly mjs?: string };
  /**
   * WebAssembly threads for onnxruntime-web (browsers). Default: every core, at most four, where
   * the page is cross-origin isolated; one where it is not (no SharedArrayBuffer). A number bounds
   * it by the cores.
   */
  readonly threads?: number;
}

/** What each model folder's files must be (by the model's `source`), where the catalog says. */
export type FolderChecks = ReadonlyMap<string, FileChecks>;

export interface ConfiguredEnv {
  /** The download cache, where there is Cache Storage (a browser). */
  readonly cache?: VerifiedCache;
  /**
   * Where there is a download cache, loads follow their files' bytes here rather than through
   * transformers.js's `progress_callback` (see file-progress.ts for why). Elsewhere (Node reads
   * local files itself) undefined: loads use transformers.js's progress.
   */
  readonly progress?: FileProgress;
  /**
   * In a browser: the threads onnxruntime-web's WASM backend runs on, and why that many, read when
   * asked (onnxruntime falls back to one thread at its first session where it cannot start more).
   */
  readonly cpu?: () => CpuFacts;
}

/** What runs chat and embeddings on the CPU, on how many threads, and why. */
export interface CpuFacts extends CpuThreads {
  readonly runtime: string;
}

/** The wasm build the product ships (runtime-layout.ts ORT_WASM_FILE): SIMD, threads, asyncify (WebGPU too). */
export const ORT_WEB_RUNTIME = 'onnxruntime-web (WebAssembly SIMD, threaded build)';

export function configureEnv(options: EnvOptions, folders: FolderChecks = new Map()): ConfiguredEnv {
  if (options.localModelPath !== undefined) env.localModelPath = options.localModelPath;
  // Browsers default to false; local models are this project's normal case.
  env.allowLocalModels = true;
  env.allowRemoteModels = options.allowRemoteModels ?? false;
  if (options.remoteHost !== undefined) env.remoteHost = options.remoteHost;
  const check = (url: string) => checkFor(url, folders);
  const cache = typeof caches === 'undefined' ? undefined : createVerifiedCache(check, undefined, (url, bytes) => fileProgress.report(url, bytes, bytes, true));
  if (cache) {
    env.useCustomCache = true;
    env.customCache = cache;
  }
  // An HTML page where a model file belongs is refused, naming the URL, before it is cached; so
  // is a file that is not what the catalog says, or one that would not fit in storage. With a
  // download cache, a file's hash is checked while the engine goes on, and the cache and the load
  // wait for the verdict; without one (Node), the file's last read waits for it.
  const checked = checkedModelFetch(plainFetch as Parameters<typeof checkedModelFetch>[0], {
    check,
    room: (bytes, url) => checkRoom(bytes, url),
    onBytes: (url, loaded, total, download) => fileProgress.report(url, loaded, total, false, download),
    onFailure: (url, error) => fileProgress.fail(url, error),
    // With a download cache, a cut binary file resumes where it stopped, even after a reload: the
    // bytes received wait in Cache Storage beside the finished files (partial-store.ts).
    ...(cache ? { verdictLater: (url: string, verdict: Promise<void>) => cache.expect(url, verdict), resume: { store: createCachePartialStore('transformers') } } : {}),
  });
  // A file refused before its body (an HTML page, no room) throws from the fetch, and transformers.js
  // takes a throwing fetch in the model's folder as "not here": it logs the error and tries the hub,
  // whose "Failed to fetch" would be the load's error. The load is told the refusal that names the file.
  env.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    try {
      return await checked(input, init);
    } catch (error) {
      if (error instanceof GatewayError) fileProgress.fail(input instanceof Request ? input.url : String(input), error);
      throw error;
    }
  }) as typeof env.fetch;
  const wasm = env.backends.onnx?.wasm;
  if (options.wasmPaths !== undefined && wasm) wasm.wasmPaths = versioned(options.wasmPaths, env.backends.onnx?.versions?.web);
  // With wasmPaths as an object transformers.js would keep its own copy of the wasm and the glue in
  // Cache Storage and hand onnxruntime the bytes and a blob URL: a second copy of what the service
  // worker already keeps offline, and the wasm compiled afresh on every load where a URL lets the
  // browser keep its compiled code. onnxruntime loads them by URL instead.
  if (options.wasmPaths !== undefined) env.useWasmCache = false;
  // Read by onnxruntime once, at its first session: set before any load.
  const planned = browserCpu(options.threads);
  if (planned && wasm) wasm.numThreads = planned.threads;
  const cpu = planned && wasm ? () => liveCpu(planned, wasm.numThreads) : undefined;
  return { ...(cache ? { cache, progress: fileProgress } : {}), ...(cpu ? { cpu } : {}) };
}

/** Threads for the WASM backend where there is one (a browser: a window or a worker), else undefined (Node runs native). */
function browserCpu(asked: number | undefined): CpuFacts | undefined {
  const scope = globalThis as { crossOriginIsolated?: boolean; document?: unknown; WorkerGlobalScope?: unknown; navigator?: { hardwareConcurrency?: number } };
  if (scope.document === undefined && scope.WorkerGlobalScope === undefined) return undefined;
  return { runtime: ORT_WEB_RUNTIME, ...cpuThreads(scope.crossOriginIsolated === true, scope.navigator?.hardwareConcurrency, asked) };
}

/** The planned threads, or what onnxruntime left of them after its first session. */
function liveCpu(planned: CpuFacts, now: number | undefined): CpuFacts {
  if (now === undefined || now >= planned.threads) return planned;
  return { ...planned, threads: Math.max(1, now), reason: `${Math.max(1, now)} thread${now > 1 ? 's' : ''}: onnxruntime-web could not start the ${planned.threads} planned (${planned.reason})` };
}

/**
 * The wasm's URL names the onnxruntime version it must match (`…asyncify.wasm?v=1.31.0`): a copy
 * kept under the URL (the service worker's offline copy, an HTTP cache entry) then never meets
 * another version's glue code after an upgrade, and needs no check against the server.
 */
export function versioned(paths: NonNullable<EnvOptions['wasmPaths']>, version: string | undefined): typeof paths {
  if (typeof paths === 'string' || !version) return paths;
  const tag = (url: string | undefined) => (url && !url.includes('?') ? `${url}?v=${encodeURIComponent(version)}` : url);
  return { ...paths, ...(paths.wasm ? { wasm: tag(paths.wasm) } : {}), ...(paths.mjs ? { mjs: tag(paths.mjs) } : {}) };
}
