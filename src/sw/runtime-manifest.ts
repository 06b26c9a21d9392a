/**
 * The precache manifest of the product's runtime files, as `npx inpage-llm init` and the vite
 * plugin write it (src/install/runtime-files.ts) and an app's own service worker reads it
 * (runtime-precache.ts). Kept apart from both so that either side imports it alone.
 * @module
 */

/** Where the manifest is, under the site root: beside the files it lists. */
export const PRECACHE_MANIFEST_PATH = 'inpage-llm/precache-manifest.json';

/** One runtime file, in the shape workbox's and serwist's precache lists take. */
export interface PrecacheEntry {
  /**
   * Relative to the site root (`inpage-llm/client.js`): resolved against the service worker's
   * scope. The onnxruntime wasm is listed as the engine asks for it, with its `?v=` version.
   */
  readonly url: string;
  /** A hash of the file's content: it changes when the file does. */
  readonly revision: string;
}
