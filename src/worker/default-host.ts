/**
 * The model host the product's engine worker serves: the catalog's models (and the app's own) on
 * their engines. Files resolve next to the worker script by default (`npx inpage-llm init` and the
 * vite plugin put the worker, the onnxruntime wasm and the bundled models together under
 * `/inpage-llm/`), so the default models work offline and nothing is fetched from a CDN.
 * @module
 */
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { MODELS_DIR, ORT_MJS_FILE, ORT_WASM_FILE } from '../contracts/runtime-layout.ts';
import { productCatalog, withListedFallbacks } from '../engines/catalog/app-models.ts';
import { createBuiltinAdapter } from '../engines/builtin/builtin-adapter.ts';
import { connectBuiltinModel } from '../rpc/builtin-model-link.ts';
import { createModelHost, type ModelHost } from '../engines/hosting/model-host.ts';
import type { PagePorts } from './serve.ts';
import { loadXGrammar } from '../engines/grammar/load-xgrammar.browser.ts';
import { createTransformersAdapter } from '../engines/transformers/index.ts';
// The adapter module itself, not the folder's index: the index re-exports modules that import
// web-llm, which the adapter loads only when one of its models is loaded.
import { createWebLLMAdapter } from '../engines/webllm/webllm-adapter.ts';

export function createDefaultHost(config: WorkerConfig, onProgress: (progress: LoadProgress) => void, page: PagePorts = {}): ModelHost {
  const here = self.location.href;
  const catalog = productCatalog(config, self.location.origin);
  const transformers = createTransformersAdapter({
    models: catalog.transformers,
    // A path, not a URL: transformers.js skips local lookup for anything that parses as a URL.
    localModelPath: new URL(config.localModelPath ?? MODELS_DIR, here).pathname.replace(/\/?$/, '/'),
    // Catalog entries that are not bundled load from the Hugging Face hub on users' machines.
    allowRemoteModels: true,
    // The glue beside the wasm, loaded by URL rather than from this bundle: its WebAssembly threads
    // start as workers of that script (a bundled copy would start this whole worker instead).
    wasmPaths: { wasm: new URL(config.wasmUrl ?? ORT_WASM_FILE, here).href, mjs: new URL(config.wasmUrl ? config.wasmUrl.replace(/\.wasm(?=$|[?#])/, '.js') : ORT_MJS_FILE, here).href },
    ...(config.threads !== undefined ? { threads: config.threads } : {}),
    remoteHost: config.transformersRemoteHost,
    device: config.device ?? 'auto',
    grammar: loadXGrammar,
    ...(config.prefixCacheBytes !== undefined ? { prefixCacheBytes: config.prefixCacheBytes } : {}),
    ...(config.prefillChunkTokens !== undefined ? { prefillChunkTokens: config.prefillChunkTokens } : {}),
    ...(config.promptLookup !== undefined ? { promptLookup: config.promptLookup } : {}),
  });
  const webllm = createWebLLMAdapter({ models: catalog.webllm, selfHost: config.webllmSelfHost, grammar: loadXGrammar });
  // The browser's own model lives in the page (the Prompt API is on `window` only): reached over the port it gave.
  const builtin = createBuiltinAdapter({ models: catalog.builtin, ...(page.builtinModel ? { backend: connectBuiltinModel(page.builtinModel) } : {}) });
  // A fallback may name one of web-llm's own ids, which are listed once its script is read.
  const host = withListedFallbacks(createModelHost({ adapters: [transformers, webllm, builtin], remoteModels: catalog.remote, onProgress, maxLoaded: config.maxLoaded }), catalog);
  // Every request's gateway asks for the whole list, which waits for web-llm's script (its models
  // are read from it): begin now, while the page is still starting, rather than on the first request.
  // See docs/decisions/webllm-models-from-its-own-list.md.
  void host.listModels().catch(() => {});
  return host;
}
