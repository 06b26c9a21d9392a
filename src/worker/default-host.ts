/**
 * The model host the worker serves: the catalog's models on their engines, with files resolved
 * against the app's own origin (models under `models/`, the onnxruntime wasm among the build's
 * assets), so the default models work offline.
 * @module
 */
// The onnxruntime-web wasm, emitted by the build next to the app: never fetched from a CDN.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { transformersModels, webllmModels } from '../engines/catalog.ts';
import { createModelHost, type ModelHost } from '../engines/model-host.ts';
import { createTransformersAdapter } from '../engines/transformers/index.ts';
// The adapter module itself, not the folder's index: the index re-exports modules that import
// web-llm, which the adapter loads only when one of its models is loaded.
import { createWebLLMAdapter } from '../engines/webllm/webllm-adapter.ts';

export function createDefaultHost(config: WorkerConfig, onProgress: (progress: LoadProgress) => void): ModelHost {
  const base = new URL(import.meta.env.BASE_URL, self.location.origin);
  const transformers = createTransformersAdapter({
    models: transformersModels,
    // A path, not a URL: transformers.js skips local lookup for anything that parses as a URL.
    localModelPath: new URL('models/', base).pathname,
    // Catalog entries that are not bundled load from the Hugging Face hub on users' machines.
    allowRemoteModels: true,
    wasmPaths: { wasm: new URL(ortWasmUrl, self.location.href).href },
    remoteHost: config.transformersRemoteHost,
    device: config.device ?? 'auto',
  });
  const webllm = createWebLLMAdapter({ models: webllmModels, selfHost: config.webllmSelfHost });
  return createModelHost({ adapters: [transformers, webllm], onProgress, maxLoaded: config.maxLoaded });
}
