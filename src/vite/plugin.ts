/**
 * The vite plugin: `plugins: [inpageLLM()]` serves the product's files in dev and emits them into
 * the build, in the layout `startInference()` looks for (src/contracts/runtime-layout.ts), so a
 * vite app needs only this line and `startInference()`. The files are the same that `npx
 * inpage-llm init` copies (src/install/runtime-files.ts).
 * @module
 */
import type { Connect, Plugin } from 'vite';
import { isolationHeaders } from '../contracts/cross-origin-isolation.ts';
import { precacheManifest, runtimeFiles, type RuntimeFile, type RuntimeFileOptions } from '../install/runtime-files.ts';
import type { PrecacheEntry } from '../sw/runtime-manifest.ts';

/**
 * With a `base` other than `/`, the files are served under it: pass `startInference` the matching
 * `serviceWorkerUrl` and `engineWorkerUrl`.
 */
export interface InpageLLMPluginOptions {
  /** Also serve and emit the tiny generated models (`tiny-embed`, `tiny-chat`), for offline demos and tests. */
  readonly models?: boolean;
  /**
   * Make every page the dev and preview servers serve cross-origin isolated (default true):
   * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: credentialless`
   * (`require-corp` for a browser without credentialless), so the CPU engines run on every core
   * (WebAssembly threads need SharedArrayBuffer). A production server needs the same headers, or
   * `startInference({ crossOriginIsolation: true })`; what they cost an app (cross-origin popups
   * and embeds): docs/guides/cross-origin-isolation.md. false: no headers.
   */
  readonly crossOriginIsolation?: boolean;
}

/** Adds the isolation headers to every response of a dev or preview server, chosen by the browser's user agent. */
function isolate(req: Connect.IncomingMessage, res: { setHeader(name: string, value: string): unknown }, next: Connect.NextFunction): void {
  for (const [name, value] of Object.entries(isolationHeaders(req.headers['user-agent'] ?? ''))) res.setHeader(name, value);
  next();
}

const TYPES: Record<string, string> = { js: 'text/javascript', mjs: 'text/javascript', wasm: 'application/wasm', json: 'application/json', onnx: 'application/octet-stream' };

export function inpageLLM(options: InpageLLMPluginOptions = {}): Plugin {
  let files: Promise<Map<string, RuntimeFile>> | undefined;
  const byPath = () => (files ??= runtimeFiles({ models: options.models ?? false }).then((list) => new Map(list.map((f) => [f.path, f]))));
  let base = '/';
  return {
    name: 'inpage-llm',
    configResolved(config) {
      base = config.base;
    },
    configurePreviewServer(server) {
      if (options.crossOriginIsolation !== false) server.middlewares.use(isolate);
    },
    configureServer(server) {
      if (options.crossOriginIsolation !== false) server.middlewares.use(isolate);
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
