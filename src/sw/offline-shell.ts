/**
 * The app shell offline: the service worker keeps a copy of the app's pages and the scripts,
 * styles and wasm they load, and serves them only when the network fails.
 * Online, requests go to the network untouched. Model files are not copied: the engines keep
 * their own caches.
 *
 * The onnxruntime wasm is not even relayed while the network is up: Chromium reuses V8's compiled
 * code for a wasm file that comes from its HTTP cache, and a response the service worker fetched
 * and relayed did not get that reuse (measured: about 1.5 s of a 5.5 s warm load of a 0.5B model
 * on 2 cores). See docs/decisions/wasm-outside-the-service-worker.md.
 * @module
 */

const CACHE = 'inpage-llm-shell';
const SHELL_DESTINATIONS = new Set(['document', 'script', 'style', 'worker', 'manifest', 'font', 'image']);
/** How long after a shell request failed to reach the network the network is taken to be down. */
export const NETWORK_DOWN_FOR_MS = 60_000;

/** When a shell request last failed to reach the network (the page's own navigation, usually). */
let networkFailedAt = Number.NEGATIVE_INFINITY;

/** What the service worker does with one shell request: answer it, and/or keep working after. */
export interface ShellHandling {
  readonly respondWith?: Promise<Response>;
  readonly waitUntil?: Promise<unknown>;
}

/**
 * Whether the wasm should come from the offline copy: only when the network is known to be down
 * (the browser says so, or a shell request failed to reach it a moment ago, as the page's own
 * navigation does first when the server cannot be reached).
 */
function networkLooksDown(onLine: boolean, failedAt: number, now: number): boolean {
  return !onLine || now - failedAt < NETWORK_DOWN_FOR_MS;
}

/**
 * Copies the shell files a page loaded before this worker controlled it (the page sends their
 * URLs); later loads are copied as they pass by, in `handleShellRequest`.
 */
export async function cacheShell(urls: readonly string[]): Promise<void> {
  const cache = await caches.open(CACHE);
  await Promise.all(
    urls
      .filter((url) => new URL(url).origin === self.location.origin)
      .map(async (url) => {
        try {
          const response = await fetch(url);
          if (response.ok) await cache.put(url.split('#')[0]!, response);
        } catch {
          // Offline right now: keep the copy we have.
        }
      }),
  );
}

/**
 * A same-origin shell request: answered from the network with a copy kept, falling back to the
 * copy when the network fails; the wasm (fetched by the engine worker with no destination) left
 * to the browser while the network is up, its copy made beside it.
 */
export function handleShellRequest(request: Request): ShellHandling | undefined {
  const url = new URL(request.url);
  const wasm = url.pathname.endsWith('.wasm');
  const shell = request.mode === 'navigate' || SHELL_DESTINATIONS.has(request.destination) || wasm;
  if (request.method !== 'GET' || url.origin !== self.location.origin || !shell) return undefined;
  if (wasm && !networkLooksDown(self.navigator.onLine, networkFailedAt, Date.now())) return { waitUntil: copyOnce(request.url).catch(() => {}) };
  if (wasm) return { respondWith: fromCopy(request).then((copy) => copy ?? fetch(request)) };
  return { respondWith: networkFirst(request) };
}

async function networkFirst(request: Request): Promise<Response> {
  try {
    const response = await fetch(request);
    if (response.ok && response.type === 'basic') {
      const copy = response.clone();
      void caches.open(CACHE).then((cache) => cache.put(request, copy)).catch(() => {});
    }
    return response;
  } catch (error) {
    networkFailedAt = Date.now();
    const cached = await fromCopy(request);
    if (cached) return cached;
    throw error;
  }
}

function fromCopy(request: Request): Promise<Response | undefined> {
  // ignoreVary: the server varies on Origin, which module scripts send and the copies made from
  // CACHE_SHELL lack.
  return caches.open(CACHE).then((cache) => cache.match(request, { ignoreSearch: request.mode === 'navigate', ignoreVary: true }));
}

/**
 * Keeps the offline copy of a file the browser fetched itself, once per URL: the engine's wasm URL
 * names its onnxruntime version (`?v=`), so a copy never goes stale, and a new version's copy
 * replaces the old one. (A check against the server at every start is what this avoids: it ran
 * beside the engine's own request and cost the later warm loads about 1.5 s in the benchmark.)
 */
async function copyOnce(url: string): Promise<void> {
  const cache = await caches.open(CACHE);
  if (await cache.match(url, { ignoreVary: true })) return;
  const response = await fetch(url);
  if (!response.ok || response.type !== 'basic') return void (await response.body?.cancel());
  await cache.put(url, response);
  const path = new URL(url).pathname;
  for (const old of await cache.keys()) {
    if (old.url !== url && new URL(old.url).pathname === path) await cache.delete(old);
  }
}
