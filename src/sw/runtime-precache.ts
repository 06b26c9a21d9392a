/**
 * For an app's own service worker that works offline: our runtime files (the page library, the
 * engine worker and its chunks, the onnxruntime wasm) are requests like the app's own, and without
 * a copy the page fails after an offline reload (`/inpage-llm/client.js`, then the wasm). `init`
 * and the vite plugin write the list of them, `inpage-llm/precache-manifest.json`
 * (`{url, revision}` entries, workbox's and serwist's shape); these helpers keep and serve them in
 * a hand-written worker:
 *
 *   self.addEventListener('install', (e) => e.waitUntil(precacheInpageRuntime()));
 *   self.addEventListener('fetch', (e) => { if (handleInpageRuntime(e)) return; … the app's own … });
 *
 * Online, the files still come from the network (a changed file is seen at once), the wasm even
 * without passing through the worker: Chromium reuses its compiled code only for a wasm from its
 * own HTTP cache (docs/decisions/wasm-outside-the-service-worker.md). The copies answer when the
 * network fails.
 * @module
 */
import { MODELS_DIR, RUNTIME_DIR } from '../contracts/runtime-layout.ts';
import { PRECACHE_MANIFEST_PATH, type PrecacheEntry } from './runtime-manifest.ts';

declare const self: ServiceWorkerGlobalScope;

/** The cache the helpers use unless told otherwise. */
export const RUNTIME_CACHE = 'inpage-llm-runtime';

export interface RuntimePrecacheOptions {
  /** The Cache Storage cache to keep the files in (default `inpage-llm-runtime`). */
  readonly cacheName?: string;
  /**
   * Where the files are: the folder holding `inpage-llm/` (default: the worker's scope, which is
   * the site root for a worker at `/sw.js`).
   */
  readonly base?: string;
}

/** How long after a runtime request failed to reach the network the network is taken to be down. */
const NETWORK_DOWN_FOR_MS = 60_000;
let networkFailedAt = Number.NEGATIVE_INFINITY;

/** The manifest's entries, with absolute URLs (for `precacheAndRoute`-style lists, or your own). */
export async function inpageRuntimeEntries(options: RuntimePrecacheOptions = {}): Promise<PrecacheEntry[]> {
  const base = baseOf(options);
  const response = await fetch(new URL(PRECACHE_MANIFEST_PATH, base), { cache: 'no-cache' });
  if (!response.ok) throw new Error(`${new URL(PRECACHE_MANIFEST_PATH, base).href}: ${response.status}; run \`npx inpage-llm init\` (or use the vite plugin) so that it is served.`);
  const entries = (await response.json()) as PrecacheEntry[];
  return entries.map((entry) => ({ url: new URL(entry.url, base).href, revision: entry.revision }));
}

/**
 * Copies the runtime files into the cache (for `install`, in `waitUntil`): only those whose
 * revision changed since the last copy; files no longer listed are removed. Rejects when one
 * cannot be fetched, as an install must (a worker that is only half ready offline is not ready).
 */
export async function precacheInpageRuntime(options: RuntimePrecacheOptions | string = {}): Promise<void> {
  const settings = typeof options === 'string' ? { cacheName: options } : options;
  const entries = await inpageRuntimeEntries(settings);
  const cache = await caches.open(settings.cacheName ?? RUNTIME_CACHE);
  const kept = new Map<string, string | null>();
  for (const request of await cache.keys()) kept.set(request.url, (await cache.match(request))?.headers.get(REVISION_HEADER) ?? null);
  await Promise.all(
    entries
      .filter((entry) => kept.get(entry.url) !== entry.revision)
      .map(async (entry) => {
        const response = await fetch(entry.url, { cache: 'no-cache' });
        if (!response.ok) throw new Error(`${entry.url}: ${response.status}, so the runtime cannot be kept for offline use.`);
        await cache.put(entry.url, withRevision(response, entry.revision));
      }),
  );
  const listed = new Set(entries.map((entry) => entry.url));
  for (const url of kept.keys()) if (!listed.has(url)) await cache.delete(url);
}

/**
 * The cached copy of a runtime file, or undefined for any other request (or one not cached). The
 * wasm matches whatever its `?v=` says: the engine adds it, and the copy is the one installed
 * beside this worker.
 */
export async function matchInpageRuntime(request: Request, options: RuntimePrecacheOptions | string = {}): Promise<Response | undefined> {
  const settings = typeof options === 'string' ? { cacheName: options } : options;
  if (!isRuntimeRequest(request, baseOf(settings))) return undefined;
  const cache = await caches.open(settings.cacheName ?? RUNTIME_CACHE);
  // ignoreVary: the static server may vary on Origin, which module scripts send and a copy lacks.
  return cache.match(request, { ignoreSearch: isWasm(request), ignoreVary: true });
}

/**
 * The fetch listener's part: answers a runtime file from the network, or from the cache when the
 * network fails; returns whether it took the event (else the app's own handling goes on). The
 * wasm is left to the browser while the network looks up, and answered from the cache when it is
 * down (the browser says so, or a runtime request just failed to reach it).
 */
export function handleInpageRuntime(event: FetchEvent, options: RuntimePrecacheOptions | string = {}): boolean {
  const { request } = event;
  const settings = typeof options === 'string' ? { cacheName: options } : options;
  if (!isRuntimeRequest(request, baseOf(settings))) return false;
  if (isWasm(request)) {
    if (self.navigator.onLine && Date.now() - networkFailedAt >= NETWORK_DOWN_FOR_MS) return false;
    event.respondWith(matchInpageRuntime(request, settings).then((copy) => copy ?? fetch(request)));
    return true;
  }
  event.respondWith(
    fetch(request).catch(async (error: unknown) => {
      networkFailedAt = Date.now();
      const copy = await matchInpageRuntime(request, settings);
      if (copy) return copy;
      throw error;
    }),
  );
  return true;
}

/** Where each copy records the manifest revision it was made for. */
const REVISION_HEADER = 'x-inpage-llm-revision';

function withRevision(response: Response, revision: string): Response {
  const headers = new Headers(response.headers);
  headers.set(REVISION_HEADER, revision);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

function baseOf(options: RuntimePrecacheOptions): string {
  return new URL(options.base ?? self.registration?.scope ?? new URL('./', self.location.href).href, self.location.href).href;
}

/** A GET under `<base>inpage-llm/`, models and the manifest aside. */
function isRuntimeRequest(request: Request, base: string): boolean {
  if (request.method !== 'GET') return false;
  const root = new URL(`${RUNTIME_DIR}/`, base).href;
  const url = request.url.split(/[?#]/)[0]!;
  return url.startsWith(root) && !url.startsWith(root + MODELS_DIR) && url !== new URL(PRECACHE_MANIFEST_PATH, base).href;
}

function isWasm(request: Request): boolean {
  return new URL(request.url).pathname.endsWith('.wasm');
}
