import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryCacheStorage } from '../../../test/support/memory-cache-storage.ts';
import { CHECKED_HEADER, corruptFile, integrityOf } from '../files/file-integrity.ts';
import { createVerifiedCache } from './verified-cache.ts';

// Cache Storage is the browser's; in Node it is the in-memory double (which, like the browser's,
// reads a body whole before storing it, and stores nothing when the body fails).
let storage: MemoryCacheStorage;
beforeEach(() => {
  storage = new MemoryCacheStorage();
  vi.stubGlobal('caches', storage);
});
afterEach(() => vi.unstubAllGlobals());

const FOLDER = 'org/model';
const URL_OF = (file: string) => `https://hub.test/${FOLDER}/resolve/main/${file}`;
const WEIGHTS = URL_OF('onnx/model.onnx');
const bytes = new Uint8Array(Array.from({ length: 64 }, (_, i) => i));

/** A promise settled from outside, as a hash still being computed is. */
function pending() {
  let pass!: () => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => {
    pass = resolve;
    fail = reject;
  });
  return { promise, pass, fail };
}
const stored = async (url: string) => (await storage.open('transformers-cache')).match(url);
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createVerifiedCache: files stored beside the engine', () => {
  it('returns from put at once, stores the file only once its check passes, and settles when it is stored', async () => {
    const integrity = await integrityOf(bytes);
    const cache = createVerifiedCache(() => ({ bytes: 64, integrity }));
    const check = pending();
    cache.expect(WEIGHTS, check.promise);
    await cache.put(WEIGHTS, new Response(bytes, { headers: { [CHECKED_HEADER]: integrity } }));
    await tick();
    expect(await stored(WEIGHTS)).toBeUndefined();
    let settled = false;
    const settling = cache.settled(FOLDER).then(() => void (settled = true));
    await tick();
    expect(settled).toBe(false);
    check.pass();
    await settling;
    expect(new Uint8Array(await (await stored(WEIGHTS))!.arrayBuffer())).toEqual(bytes);
    // Read back as checked (stamped), without hashing again.
    expect(new Uint8Array(await (await cache.match(WEIGHTS))!.arrayBuffer())).toEqual(bytes);
  });

  it('keeps nothing of a file that fails its check, and settles with the error naming it', async () => {
    const cache = createVerifiedCache(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const check = pending();
    cache.expect(WEIGHTS, check.promise);
    await cache.put(WEIGHTS, new Response(bytes));
    const wrong = corruptFile(WEIGHTS, 'its hash is sha256-x, the catalog says sha256-y');
    check.fail(wrong);
    await expect(cache.settled(FOLDER)).rejects.toBe(wrong);
    expect(await stored(WEIGHTS)).toBeUndefined();
    // The failure is reported once, by the load that settles it, not logged as a caching problem.
    expect(warn).not.toHaveBeenCalled();
    await expect(cache.settled(FOLDER)).resolves.toBeUndefined();
    warn.mockRestore();
  });

  it('settles a folder without waiting on another folder\'s files', async () => {
    const cache = createVerifiedCache(() => undefined);
    const other = pending();
    cache.expect('https://hub.test/org/other/resolve/main/onnx/model.onnx', other.promise);
    await cache.put('https://hub.test/org/other/resolve/main/onnx/model.onnx', new Response(bytes));
    await cache.put(URL_OF('config.json'), new Response('{}'));
    await cache.settled(FOLDER);
    expect(await (await stored(URL_OF('config.json')))!.text()).toBe('{}');
    other.pass();
    await cache.settled('org/other');
  });

  it('reads a file still being written only once it is whole', async () => {
    const cache = createVerifiedCache(() => undefined);
    const check = pending();
    cache.expect(WEIGHTS, check.promise);
    await cache.put(WEIGHTS, new Response(bytes));
    const reading = cache.match(WEIGHTS);
    check.pass();
    expect(new Uint8Array(await (await reading)!.arrayBuffer())).toEqual(bytes);
  });

  it('remembers a write that did not fit for the load that settles', async () => {
    const cache = createVerifiedCache(() => undefined);
    const full = new DOMException('The quota has been exceeded.', 'QuotaExceededError');
    vi.spyOn(await storage.open('transformers-cache'), 'put').mockRejectedValue(full);
    await cache.put(WEIGHTS, new Response(bytes, { headers: { 'content-length': '64' } }));
    await cache.settled(FOLDER);
    expect(cache.takeQuotaFailures(FOLDER)).toEqual([{ url: WEIGHTS, bytes: 64, error: full }]);
  });
});
