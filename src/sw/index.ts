/**
 * For an app that has a service worker of its own: `import { handleInference } from
 * 'inpage-llm/service-worker'` and call it before the app's own fetch listeners (or
 * `importScripts('/inpage-llm/handle-inference.js')` from `npx inpage-llm init`, which also puts
 * the helpers below on `self.inpageLLM`). The app's worker keeps its lifecycle and its caching;
 * ours answers the API. To work offline, it also keeps our runtime files: `precacheInpageRuntime`
 * at install and `handleInpageRuntime` in its fetch listener, or the list
 * (`inpage-llm/precache-manifest.json`) in workbox's or serwist's precache.
 * @module
 */
export { handleInference } from './handle-inference.ts';
export type { HandleInferenceOptions, InferenceHandler } from './handle-inference.ts';
export { handleInpageRuntime, inpageRuntimeEntries, matchInpageRuntime, precacheInpageRuntime, RUNTIME_CACHE } from './runtime-precache.ts';
export type { RuntimePrecacheOptions } from './runtime-precache.ts';
export { PRECACHE_MANIFEST_PATH } from './runtime-manifest.ts';
export type { PrecacheEntry } from './runtime-manifest.ts';
