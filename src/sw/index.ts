/**
 * For an app that has a service worker of its own: `import { handleInference } from
 * 'inpage-llm/service-worker'` and call it before the app's own fetch listeners (or
 * `importScripts('/inpage-llm/handle-inference.js')` from `npx inpage-llm init`). The app's worker
 * keeps its lifecycle and its caching; ours answers the API.
 * @module
 */
export { handleInference } from './handle-inference.ts';
export type { HandleInferenceOptions, InferenceHandler } from './handle-inference.ts';
