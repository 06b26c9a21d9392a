import { afterEach, describe, expect, it, vi } from 'vitest';

const ORIGIN = 'https://app.test';
const WASM = `${ORIGIN}/inpage-llm/ort-wasm-simd-threaded.asyncify.wasm`;
const VERSIONED_WASM = `${WASM}?v=1.31.0`;
const CLIENT = `${ORIGIN}/inpage-llm/client.js`;
const MANIFEST = `${ORIGIN}/inpage-llm/precache-manifest.json`;

/**
 * An app's service worker's globals, faked: Cache Storage (one map per cache name, matched by URL,
 * or by path when told to ignore the query), a network serving `files` (or failing when `down`),
 * and the browser's onLine flag.
 */
function serviceWorkerWorld(files: Record<string, string>, { onLine = true } = {}) {
  const caches = new Map<string, Map<string, Response>>();
  const fetched: string[] = [];
  const world = { down: false, fetched, caches, navigator: { onLine } };
  const open = async (name: string) => {
    const stored = caches.get(name) ?? caches.set(name, new Map()).get(name)!;
    const key = (k: RequestInfo) => (typeof k === 'string' ? k : k.url);
    return {
      match: async (k: RequestInfo, options: CacheQueryOptions = {}) => {
        if (!options.ignoreSearch) return stored.get(key(k))?.clone();
        const path = key(k).split('?')[0];
        return [...stored].find(([url]) => url.split('?')[0] === path)?.[1].clone();
      },
      put: async (k: RequestInfo, response: Response) => void stored.set(key(k), response),
      keys: async () => [...stored.keys()].map((url) => ({ url }) as Request),
      delete: async (k: RequestInfo) => stored.delete(key(k)),
    };
  };
  vi.stubGlobal('self', { location: new URL(`${ORIGIN}/app-sw.js`), registration: { scope: `${ORIGIN}/` }, navigator: world.navigator });
  vi.stubGlobal('caches', { open });
  vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
    const url = input instanceof URL ? input.href : typeof input === 'string' ? input : input.url;
    fetched.push(url);
    if (world.down) throw new TypeError('Failed to fetch');
    const body = files[url] ?? files[url.split('?')[0]!];
    return body === undefined ? new Response('not found', { status: 404 }) : new Response(body);
  });
  return world;
}

const manifest = (entries: Record<string, string>) => JSON.stringify(Object.entries(entries).map(([url, revision]) => ({ url, revision })));

/** A fetch event that records what it was answered with. */
function fetchEvent(url: string, method = 'GET') {
  const event = { request: { url, method } as Request, answer: undefined as Promise<Response> | undefined, respondWith: (r: Promise<Response>) => void (event.answer = r) };
  return event;
}

/** A fresh module each time: it remembers when the network last failed. */
const load = async () => {
  vi.resetModules();
  return import('./runtime-precache.ts');
};

afterEach(() => vi.unstubAllGlobals());

describe('precacheInpageRuntime', () => {
  it('copies the listed files, the wasm under its versioned URL, resolved against the scope', async () => {
    const world = serviceWorkerWorld({ [MANIFEST]: manifest({ 'inpage-llm/client.js': 'a', 'inpage-llm/ort-wasm-simd-threaded.asyncify.wasm?v=1.31.0': 'w' }), [CLIENT]: 'client', [WASM]: 'wasm' });
    const { precacheInpageRuntime } = await load();
    await precacheInpageRuntime('app-runtime');
    expect([...world.caches.get('app-runtime')!.keys()].sort()).toEqual([CLIENT, VERSIONED_WASM]);
    expect(await world.caches.get('app-runtime')!.get(CLIENT)!.text()).toBe('client');
  });

  it('fetches again only what changed, and drops what is no longer listed', async () => {
    const files: Record<string, string> = { [MANIFEST]: manifest({ 'inpage-llm/client.js': 'a', 'inpage-llm/old.js': 'o' }), [CLIENT]: 'client', [`${ORIGIN}/inpage-llm/old.js`]: 'old' };
    const world = serviceWorkerWorld(files);
    const { precacheInpageRuntime } = await load();
    await precacheInpageRuntime();
    files[MANIFEST] = manifest({ 'inpage-llm/client.js': 'a', 'inpage-llm/new.js': 'n' });
    files[`${ORIGIN}/inpage-llm/new.js`] = 'new';
    world.fetched.length = 0;
    await precacheInpageRuntime();
    expect(world.fetched).toEqual([MANIFEST, `${ORIGIN}/inpage-llm/new.js`]);
    expect([...world.caches.get('inpage-llm-runtime')!.keys()].sort()).toEqual([CLIENT, `${ORIGIN}/inpage-llm/new.js`]);
  });

  it('fails the install when the manifest or a file cannot be fetched, naming it', async () => {
    serviceWorkerWorld({});
    const { precacheInpageRuntime } = await load();
    await expect(precacheInpageRuntime()).rejects.toThrow(/precache-manifest\.json: 404.*npx inpage-llm init/);
    serviceWorkerWorld({ [MANIFEST]: manifest({ 'inpage-llm/client.js': 'a' }) });
    await expect((await load()).precacheInpageRuntime()).rejects.toThrow(/client\.js: 404/);
  });
});

describe('handleInpageRuntime', () => {
  const installed = async (options: { onLine?: boolean } = {}) => {
    const world = serviceWorkerWorld({ [MANIFEST]: manifest({ 'inpage-llm/client.js': 'a', 'inpage-llm/ort-wasm-simd-threaded.asyncify.wasm?v=1.31.0': 'w' }), [CLIENT]: 'client', [WASM]: 'wasm' }, options);
    const module = await load();
    await module.precacheInpageRuntime();
    return { world, ...module };
  };

  it('leaves other requests, the models, the manifest and non-GETs to the app', async () => {
    const { handleInpageRuntime } = await installed();
    for (const [url, method] of [[`${ORIGIN}/app.js`, 'GET'], [`${ORIGIN}/inpage-llm/models/tiny-chat/config.json`, 'GET'], [MANIFEST, 'GET'], [CLIENT, 'POST'], [`${ORIGIN}/v1/chat/completions`, 'POST']] as const) {
      const event = fetchEvent(url, method);
      expect(handleInpageRuntime(event as unknown as FetchEvent), url).toBe(false);
      expect(event.answer).toBeUndefined();
    }
  });

  it('answers a runtime file from the network while it is up, and from the copy when it fails', async () => {
    const { world, handleInpageRuntime } = await installed();
    const online = fetchEvent(CLIENT);
    expect(handleInpageRuntime(online as unknown as FetchEvent)).toBe(true);
    expect(await (await online.answer!).text()).toBe('client');
    expect(world.fetched.at(-1)).toBe(CLIENT);
    world.down = true;
    const offline = fetchEvent(CLIENT);
    handleInpageRuntime(offline as unknown as FetchEvent);
    expect(await (await offline.answer!).text()).toBe('client');
  });

  it('leaves the wasm to the browser while the network is up; serves the copy, whatever its ?v=, once the network failed', async () => {
    const { world, handleInpageRuntime } = await installed();
    expect(handleInpageRuntime(fetchEvent(`${WASM}?v=1.31.0`) as unknown as FetchEvent)).toBe(false);
    world.down = true;
    // The page's library fails first on a reload with the server down: that marks the network down.
    const client = fetchEvent(CLIENT);
    handleInpageRuntime(client as unknown as FetchEvent);
    await client.answer;
    const wasm = fetchEvent(`${WASM}?v=9.9.9`);
    expect(handleInpageRuntime(wasm as unknown as FetchEvent)).toBe(true);
    expect(await (await wasm.answer!).text()).toBe('wasm');
  });

  it('serves the wasm copy when the browser says it is offline', async () => {
    const { world, handleInpageRuntime } = await installed({ onLine: false });
    world.down = true;
    const wasm = fetchEvent(VERSIONED_WASM);
    expect(handleInpageRuntime(wasm as unknown as FetchEvent)).toBe(true);
    expect(await (await wasm.answer!).text()).toBe('wasm');
  });

  it('fails as the network did when there is no copy', async () => {
    const { world, handleInpageRuntime } = await installed();
    world.down = true;
    const event = fetchEvent(`${ORIGIN}/inpage-llm/engine-worker.js`);
    expect(handleInpageRuntime(event as unknown as FetchEvent)).toBe(true);
    await expect(event.answer!).rejects.toThrow(/Failed to fetch/);
  });
});
