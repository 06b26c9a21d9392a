/**
 * For an app that runs its own engine worker (its own engines, or the product's with extras):
 * `serveEngineWorker(createDefaultHost)` is the product's worker; pass `startInference({
 * engineWorker })` a function that starts yours.
 * @module
 */
export { serveEngineWorker } from './serve.ts';
export { createDefaultHost } from './default-host.ts';
