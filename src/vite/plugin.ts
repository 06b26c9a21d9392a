/**
 * The vite plugin: `plugins: [inpageLLM()]` serves the product's files in dev and emits them into
 * the build, in the layout `startInference()` looks for (src/contracts/runtime-layout.ts), so a
 * vite app needs only this line and `startInference()`. The files are the same that `npx
 * inpage-llm init` copies (src/install/runtime-files.ts).
 * @module
 */
import type { Plugin } from 'vite';
import { precacheManifest, runtimeFiles, type RuntimeFile, type RuntimeFileOptions } from '../install/runtime-files.ts';
import type { PrecacheEntry } from '../sw/runtime-manifest.ts';

/**
 * With a `base` other than `/`, the files are served under it: pass `startInference` the matching
 * `serviceWorkerUrl` and `engineWorkerUrl`.
 */
export interface InpageLLMPluginOptions {
  /** Also serve and emit the tiny generated models (`tiny-embed`, `tiny-chat`), for offline demos and tests. */
  readonly models?: boolean;
}

const TYPES: Record<string, string> = { js: 'text/javascript', wasm: 'application/wasm', json: 'application/json', onnx: 'application/octet-stream' };

export function inpageLLM(options: InpageLLMPluginOptions = {}): Plugin {
  let files: Promise<Map<string, RuntimeFile>> | undefined;
  const byPath = () => (files ??= runtimeFiles({ models: options.models ?? false }).then((list) => new Map(list.map((f) => [f.path, f]))));
  let base = '/';
  return {
    name: 'inpage-llm',
    configResolved(config) {
      base = config.base;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const pathname = req.url?.split('?')[0] ?? '';
        if (!pathname.startsWith(base)) return next();
        void (async () => {
          const file = (await byPath()).get(decodeURIComponent(pathname.slice(base.length)));
          if (!file) return next();
          const content = await file.read();
          res.setHeader('content-type', TYPES[file.path.slice(file.path.lastIndexOf('.') + 1)] ?? 'application/octet-stream');
          res.setHeader('cache-control', 'no-cache');
          res.end(content);
        })().catch(next);
      });
    },
    async generateBundle() {
      // The browser build only: not an SSR or other server-side environment's output.
      if (this.environment && this.environment.config.consumer !== 'client') return;
      for (const file of (await byPath()).values()) {
        this.emitFile({ type: 'asset', fileName: file.path, source: await file.read() });
      }
    },
  };
}

/**
 * The runtime files this plugin emits, as precache entries for a workbox or serwist build of the
 * app's own service worker (vite-plugin-pwa's `workbox.additionalManifestEntries`, or
 * `injectManifest`'s, serwist's `additionalPrecacheEntries`), so that the app works offline with
 * its own worker: `additionalManifestEntries: await inpageRuntimePrecache({ base })`. The URLs
 * start with `base` (default `/`); the onnxruntime wasm is listed as the engine asks for it, with
 * its `?v=`. The models are left out: the engines keep them in caches of their own.
 */
export async function inpageRuntimePrecache(options: { readonly base?: string; readonly scriptsDir?: RuntimeFileOptions['scriptsDir'] } = {}): Promise<PrecacheEntry[]> {
  const base = options.base ?? '/';
  const files = await runtimeFiles(options.scriptsDir === undefined ? {} : { scriptsDir: options.scriptsDir });
  const entries = JSON.parse(String(await precacheManifest(files).read())) as PrecacheEntry[];
  return entries.map((entry) => ({ url: `${base.replace(/\/?$/, '/')}${entry.url}`, revision: entry.revision }));
}

export default inpageLLM;
