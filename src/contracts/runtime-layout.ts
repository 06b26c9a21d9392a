/**
 * Where the product's files live on the app's origin: `npx inpage-llm init` and the vite plugin
 * put them here, and the page library and the engine worker look for them here by default.
 * @module
 */

/** The service worker, at the root so that its scope is the whole origin. */
export const SERVICE_WORKER_FILE = 'inpage-llm-sw.js';
/** The folder (under the public root) holding everything else. */
export const RUNTIME_DIR = 'inpage-llm';
/** The engine worker, in RUNTIME_DIR; it looks for the wasm and the models next to itself. */
export const ENGINE_WORKER_FILE = 'engine-worker.js';
/** The page library as one module, in RUNTIME_DIR, for pages without a bundler. */
export const CLIENT_FILE = 'client.js';
/** For an app's own service worker to `importScripts`, in RUNTIME_DIR. */
export const HANDLE_INFERENCE_FILE = 'handle-inference.js';
/** onnxruntime-web's engine (the asyncify build transformers.js loads: WebGPU and WASM), in RUNTIME_DIR. */
export const ORT_WASM_FILE = 'ort-wasm-simd-threaded.asyncify.wasm';
/**
 * Its JavaScript glue (onnxruntime-web's `ort-wasm-simd-threaded.asyncify.mjs`), in RUNTIME_DIR
 * beside it: loaded by URL, so that its WebAssembly threads start as workers of this small script
 * (bundled into the engine worker, they would each start a second copy of the whole engine
 * worker). Served as `.js`: a module import needs a JavaScript MIME type, which every static host
 * gives `.js` and not every one gives `.mjs`.
 */
export const ORT_MJS_FILE = 'ort-wasm-simd-threaded.asyncify.js';
/** The glue's name in onnxruntime-web's package. */
export const ORT_MJS_SOURCE = 'ort-wasm-simd-threaded.asyncify.mjs';
/** The bundled models' folder, in RUNTIME_DIR. */
export const MODELS_DIR = 'models/';
