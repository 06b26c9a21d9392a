import { afterEach, describe, expect, it, vi } from 'vitest';

const ORIGIN = 'https://app.test';
const WASM = `${ORIGIN}/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm`;

interface FetchCall {
  readonly url: string;
  readonly cache?: RequestCache;
  readonly headers: Record<string, string>;
}

/**
 * The service worker's globals, faked: one Cache Storage cache (a map by URL), a network that
 * answers from `files` (or fails when `down`), and the browser's onLine flag.
 */
function serviceWorkerWorld({ onLine = true, files = {} as Record<string, Response | (() => Response)> } = {}) {
  const stored = new Map<string, Response>();
  const calls: FetchCall[] = [];
  const navigator = { onLine };
  const world = { down: false, calls, stored, navigator };
  const cache = {
    match: async (key: RequestInfo) => stored.get(typeof key === 'string' ? key : key.url)?.clone(),
    put: async (key: RequestInfo, response: Response) => void stored.set(typeof key === 'string' ? key : key.url, response.clone()),
    keys: async () => [...stored.keys()].map((url) => ({ url }) as Request),
    delete: async (key: RequestInfo) => stored.delete(typeof key === 'string' ? key : key.url),
  };
  vi.stubGlobal('self', { location: new URL(`${ORIGIN}/inpage-llm-sw.js`), navigator });
  vi.stubGlobal('caches', { open: async () => cache });
  vi.stubGlobal('fetch', async (input: RequestInfo, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input.url;
    calls.push({ url, cache: init.cache, headers: Object.fromEntries(new Headers(init.headers).entries()) });
    if (world.down) throw new TypeError('Failed to fetch');
    const file = files[url];
    const response = !file ? new Response('not found', { status: 404 }) : typeof file === 'function' ? file() : file.clone();
    // A same-origin answer from the network is 'basic'; a constructed Response says 'default'.
    return Object.defineProperty(response, 'type', { value: 'basic' });
  });
  return world;
}

/** A fresh module each time: it remembers when the network last failed. */
const load = async () => {
  vi.resetModules();
  return import('./offline-shell.ts');
};

// Request's constructor drops `destination` and refuses mode 'navigate'; the handler reads only these.
const request = (url: string, init: { destination?: RequestDestination; mode?: RequestMode } = {}) =>
  ({ url, method: 'GET', destination: init.destination ?? '', mode: init.mode ?? 'cors' }) as Request;

const wasmFile = (etag = '"v1"') => () => new Response(new Uint8Array([0, 97, 115, 109]), { headers: { etag, 'content-length': '4' } });

afterEach(() => vi.unstubAllGlobals());

describe('the onnxruntime wasm', () => {
  it('is left to the browser while the network is up (so V8 can reuse its compiled code), and a copy is kept beside it', async () => {
    const world = serviceWorkerWorld({ files: { [WASM]: wasmFile() } });
    const { handleShellRequest } = await load();
    const handling = handleShellRequest(request(WASM));
    expect(handling?.respondWith).toBeUndefined();
    await handling?.waitUntil;
    expect(world.stored.has(WASM)).toBe(true);
    expect(world.calls).toEqual([{ url: WASM, cache: undefined, headers: {} }]);
  });

  it('is copied once per URL: with a copy kept, the server is not asked again', async () => {
    const world = serviceWorkerWorld({ files: { [WASM]: wasmFile() } });
    const { handleShellRequest } = await load();
    await handleShellRequest(request(WASM))?.waitUntil;
    await handleShellRequest(request(WASM))?.waitUntil;
    expect(world.calls).toHaveLength(1);
  });

  it("a new onnxruntime version's URL gets its own copy, which replaces the old one", async () => {
    const next = `${WASM}?v=2`;
    const world = serviceWorkerWorld({ files: { [`${WASM}?v=1`]: wasmFile('"v1"'), [next]: wasmFile('"v2"') } });
    const { handleShellRequest } = await load();
    await handleShellRequest(request(`${WASM}?v=1`))?.waitUntil;
    await handleShellRequest(request(next))?.waitUntil;
    expect([...world.stored.keys()]).toEqual([next]);
    expect(world.stored.get(next)?.headers.get('etag')).toBe('"v2"');
  });

  it('comes from the copy when the browser says it is offline', async () => {
    const world = serviceWorkerWorld({ files: { [WASM]: wasmFile() } });
    const { handleShellRequest } = await load();
    await handleShellRequest(request(WASM))?.waitUntil;
    world.down = true;
    world.navigator.onLine = false;
    const before = world.calls.length;
    const answer = await handleShellRequest(request(WASM))?.respondWith;
    expect(answer?.headers.get('etag')).toBe('"v1"');
    expect(world.calls.length).toBe(before);
  });

  it('comes from the copy for a minute after the page itself could not reach the server (onLine stays true behind a dead server)', async () => {
    const page = `${ORIGIN}/`;
    const world = serviceWorkerWorld({ files: { [WASM]: wasmFile(), [page]: new Response('<!doctype html>') } });
    const { handleShellRequest, NETWORK_DOWN_FOR_MS } = await load();
    await handleShellRequest(request(page, { mode: 'navigate' }))?.respondWith;
    await handleShellRequest(request(WASM))?.waitUntil;
    world.down = true;
    const shown = await handleShellRequest(request(page, { mode: 'navigate' }))?.respondWith;
    expect(await shown?.text()).toBe('<!doctype html>');
    const before = world.calls.length;
    const answer = await handleShellRequest(request(WASM))?.respondWith;
    expect(answer?.headers.get('etag')).toBe('"v1"');
    expect(world.calls.length).toBe(before);

    vi.useFakeTimers({ now: Date.now() + NETWORK_DOWN_FOR_MS + 1, toFake: ['Date'] });
    try {
      world.down = false;
      expect(handleShellRequest(request(WASM))?.respondWith).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('other shell requests', () => {
  it('go to the network first, with a copy kept, and fall back to it when the network fails', async () => {
    const script = `${ORIGIN}/assets/app.js`;
    const world = serviceWorkerWorld({ files: { [script]: new Response('export {}') } });
    const { handleShellRequest } = await load();
    expect(await (await handleShellRequest(request(script, { destination: 'script' }))?.respondWith)?.text()).toBe('export {}');
    await vi.waitFor(() => expect(world.stored.has(script)).toBe(true));
    world.down = true;
    expect(await (await handleShellRequest(request(script, { destination: 'script' }))?.respondWith)?.text()).toBe('export {}');
  });

  it('leave model files, other origins and other methods alone', async () => {
    serviceWorkerWorld();
    const { handleShellRequest } = await load();
    expect(handleShellRequest(request(`${ORIGIN}/inpage-llm/models/m/onnx/model.onnx`))).toBeUndefined();
    expect(handleShellRequest(request('https://cdn.test/ort.wasm'))).toBeUndefined();
    expect(handleShellRequest({ ...request(WASM), method: 'POST' } as Request)).toBeUndefined();
  });
});
