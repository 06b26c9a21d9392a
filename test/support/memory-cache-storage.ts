/**
 * TEST DOUBLE. The part of the browser's Cache Storage the engines read (`caches.keys/open/delete`,
 * `cache.keys/match/put/delete`), in memory, so what the adapters report of stored files can be
 * checked in Node, which has no Cache Storage. Install it with `vi.stubGlobal('caches', ...)`.
 */

export class MemoryCache {
  readonly #entries = new Map<string, Response>();

  async keys(): Promise<Request[]> {
    return [...this.#entries.keys()].map((url) => new Request(url));
  }

  async match(request: RequestInfo | URL): Promise<Response | undefined> {
    return this.#entries.get(urlOf(request))?.clone();
  }

  /** Like the browser's: the body is read whole first, and one that fails is not stored. */
  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    const body = await response.arrayBuffer();
    this.#entries.set(urlOf(request), new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers }));
  }

  async delete(request: RequestInfo | URL): Promise<boolean> {
    return this.#entries.delete(urlOf(request));
  }
}

export class MemoryCacheStorage {
  readonly #caches = new Map<string, MemoryCache>();

  async keys(): Promise<string[]> {
    return [...this.#caches.keys()];
  }

  async open(name: string): Promise<MemoryCache> {
    let cache = this.#caches.get(name);
    if (!cache) this.#caches.set(name, (cache = new MemoryCache()));
    return cache;
  }

  async has(name: string): Promise<boolean> {
    return this.#caches.has(name);
  }

  async delete(name: string): Promise<boolean> {
    return this.#caches.delete(name);
  }

  /** Stores `body` under `url` in cache `name`, with a Content-Length header unless `length` is false. */
  async store(name: string, url: string, body: string | Uint8Array<ArrayBuffer>, { length = true } = {}): Promise<void> {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const headers: Record<string, string> = length ? { 'content-length': String(bytes.byteLength) } : {};
    await (await this.open(name)).put(url, new Response(bytes, { headers }));
  }
}

/**
 * The key as the browser keeps it: a relative URL resolved against the context's own (`location`),
 * so `keys()` lists absolute URLs whatever form they were stored under. Without a `location` a
 * relative URL throws, as `new Request('/x')` does in Node.
 */
function urlOf(request: RequestInfo | URL): string {
  if (typeof request !== 'string') return request instanceof URL ? request.href : request.url;
  return new URL(request, globalThis.location?.href).href;
}
