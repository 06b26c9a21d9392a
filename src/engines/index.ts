/**
 * The engines: transformers.js, web-llm and the browser's built-in model behind one adapter
 * interface, the model host that runs them, and what they share (the catalog, model files, the
 * GPU device, decoding aids). This file names the folder's public surface: every module a folder
 * outside src/engines may import, with what each offers.
 *
 * Outside folders import those modules themselves, not this file. The surface spans execution
 * contexts, and one entry would hand each context the others' code: the playground, which needs
 * only the model caches and the GPU probe, would load the adapters and the model host with them;
 * the engine worker would import the Node loader of xgrammar (node:fs) and Node the browser's; a
 * module of web-llm's that imports web-llm itself would load it on every import, where the adapter
 * loads it only with a web-llm model (worker/default-host.ts imports the adapter module for that
 * reason). So nothing imports this file; it is type-checked like any other (an export renamed
 * without it fails), and it is the list an outside import is read against.
 * @module
 */

/** hosting/: one Engine over the adapters (queue, LRU, batching), and the interface they implement. */
export { createModelHost, type ModelHost, type ModelHostOptions } from './hosting/model-host.ts';

/** catalog/: the models the app offers, and the app's own entries added to them. */
export { builtinModels, transformersModels, webllmModels } from './catalog/catalog.ts';
export { withAppModels, withListedFallbacks, type AppCatalog, type Catalog } from './catalog/app-models.ts';

/** The engine adapters, each in its room. */
export { createTransformersAdapter, type TransformersAdapterOptions } from './transformers/index.ts';
export { createWebLLMAdapter, type WebLLMAdapterOptions } from './webllm/webllm-adapter.ts';
export { createBuiltinAdapter, type BuiltinAdapterOptions } from './builtin/builtin-adapter.ts';
/** The built-in model's side in the page that hosts the engine worker. */
export { createPromptApiBackend } from './builtin/prompt-api-backend.ts';
export type { LanguageModelStatic } from './builtin/prompt-api.ts';

/** grammar/: xgrammar, loaded as each runtime can (the same export, named here by runtime). */
export { loadXGrammar as loadXGrammarInBrowser } from './grammar/load-xgrammar.browser.ts';
export { loadXGrammar as loadXGrammarInNode } from './grammar/load-xgrammar.node.ts';

/** device/: the WebGPU probe, and the watch that tells a lost device. */
export { probeGpu, type GpuReport } from './device/gpu.ts';
export { onGpuDeviceLost, type GpuDeviceLoss } from './device/gpu-device-watch.ts';

/** files/: the model caches as the playground shows and deletes them. */
export { deleteGroups, groupsForModel, listCachedModels, type CachedGroup } from './files/index.ts';
