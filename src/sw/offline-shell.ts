/**
 * The app shell offline: the service worker keeps a copy of the app's pages and the scripts,
 * styles and wasm they load, and serves them only when the network fails.
 * Online, requests go to the network untouched. Model files are not copied: the engines keep
 * their own caches.
 * @module
 */

const CACHE = 'inpage-llm-shell';
const SHELL_DESTINATIONS = new Set(['document', 'script', 'style', 'worker', 'manifest', 'font', 'image']);

/**
 * Copies the shell files a page loaded before this worker controlled it (the page sends their
 * URLs); later loads are copied as they pass by, in `shellFallback`.
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

/** A response for a same-origin shell request that falls back to the cache when the network fails. */
export function shellFallback(request: Request): Promise<Response> | undefined {
  const sameOrigin = new URL(request.url).origin === self.location.origin;
  // The onnxruntime wasm is fetched by the engine worker with no destination; it is shell too.
  const shell = request.mode === 'navigate' || SHELL_DESTINATIONS.has(request.destination) || new URL(request.url).pathname.endsWith('.wasm');
  if (request.method !== 'GET' || !sameOrigin || !shell) return undefined;
  return (async () => {
    try {
      const response = await fetch(request);
      if (response.ok && response.type === 'basic') {
        const copy = response.clone();
        void caches.open(CACHE).then((cache) => cache.put(request, copy)).catch(() => {});
      }
      return response;
    } catch (error) {
      // ignoreVary: the server varies on Origin, which module scripts send and the copies made
      // from CACHE_SHELL lack.
      const cached = await (await caches.open(CACHE)).match(request, { ignoreSearch: request.mode === 'navigate', ignoreVary: true });
      if (cached) return cached;
      throw error;
    }
  })();
}
