/**
 * The engines: transformers.js, web-llm and the browser's built-in model behind one adapter
 * interface, the model host that runs them, and what they share (the catalog, model files, the
 * GPU device, decoding aids). This file names the folder's public surface: every module a folder
 * outside src/engines may import, with what each offers.
 *
 * Outside folders import those modules themselves, not this file. The surface spans execution
 * contexts: grammar/load-xgrammar.node.ts reads xgrammar with node:fs, its browser twin imports
 * xgrammar's bundle as a chunk of the engine worker, builtin/prompt-api-backend.ts runs in the
 * page. One entry would give each importer every context's modules to load, leaving tree-shaking
 * to drop them from its bundle, and the dev server (which loads a page's whole import graph) not
 * even that; worker/default-host.ts imports the web-llm adapter module rather than webllm/index.ts
 * for the same reason (that index's re-exports import web-llm itself). So nothing imports this
 * file; it is type-checked like any other (an export renamed without it fails), and
 * scripts/check-imports.ts fails an outside import of a module it does not name. The rooms'
 * order among themselves is ENGINE_ROOMS there.
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
/**
 * grammar/: output constraints as token masks, the grammar a request's output follows, and how a
 * failed xgrammar instance is set aside; what `npx inpage-llm schemas check` measures (src/cli).
 */
export { createConstraintCompiler, type ConstraintCompiler } from './grammar/token-constraint.ts';
export type { TokenConstraint, Vocabulary } from './grammar/vocabulary.ts';
export { createSchemaConstraints } from './grammar/schema-constraint.ts';
export { jsonMatcher } from './grammar/schema-matcher/json-matcher.ts';
export { createTokenMasks } from './grammar/token-masks/token-masks.ts';
export { grammarSpecOf, type GrammarSpec } from './grammar/ebnf.ts';
export { discardInstance } from './grammar/xgrammar-instances.ts';
export type { XGrammar } from './grammar/xgrammar.ts';
/** transformers/: a transformers.js tokenizer's vocabulary, as the constraint compiler reads it. */
export { tokenizerVocabulary } from './transformers/tokenizer-vocabulary.ts';

/** device/: the WebGPU probe, and the watch that tells a lost device. */
export { probeGpu, type GpuReport } from './device/gpu.ts';
export { onGpuDeviceLost, type GpuDeviceLoss } from './device/gpu-device-watch.ts';

/** files/: the model caches as the playground shows and deletes them. */
export { deleteGroups, groupsForModel, listCachedModels, type CachedGroup } from './files/index.ts';
