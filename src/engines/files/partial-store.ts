/**
 * The bytes of unfinished model-file downloads, kept in Cache Storage so that a reload or a closed
 * tab resumes where the download stopped. Each file has numbered chunks and a small manifest (its
 * validator, size, and the chunks' sizes), keyed by the file's URL plus a query naming the part:
 * grouped by the same rule as whole files (model-cache.ts), a model's partial bytes count in its
 * storage figures and go with its Delete. The manifest is written after the chunk it lists, so a
 * chunk written without one (the tab closed between the two) is never read. Partial data is never
 * served as a file: the download reads it back, checks the assembled whole, and clears it; parts
 * of a file that is whole in its engine's cache (left by a download that could not clear them) are
 * swept by `clearFinishedParts`.
 * @module
 */
import type { CacheEngine } from './model-cache.ts';
import { PARTIAL_CACHES, TRANSFORMERS_CACHE, WEBLLM_CACHES } from './model-cache.ts';
import type { KeptPart, PartialStore } from './resumable-download.ts';

interface Manifest {
  readonly validator: string;
  readonly total?: number;
  /** Each chunk's size, in order. */
  readonly chunks: readonly number[];
}

/** The key a part of `url` is kept under: `manifest`, or a chunk's number. */
export function partKey(url: string, part: 'manifest' | number): string {
  return `${url}${url.includes('?') ? '&' : '?'}inpage-partial=${part}`;
}

/** Whether a cached URL is a part of an unfinished download rather than a file. */
export function isPartKey(url: string): boolean {
  return PART_QUERY.test(url);
}

const PART_QUERY = /[?&]inpage-partial=[^&]*$/;

/**
 * The file a cached part belongs to, as Cache Storage keys it (absolute), or undefined for a key
 * that is not a part. Cache Storage resolves a relative URL against the page's or worker's own
 * when it stores it, and `keys()` returns the resolved form: a same-origin model's parts are
 * stored under `/models/…` but listed as `https://app.example/models/…`.
 */
export function fileOfPart(key: string): string | undefined {
  return PART_QUERY.test(key) ? key.replace(PART_QUERY, '') : undefined;
}

/** `url` as Cache Storage keys it: resolved against this context's own URL, as `Request` does. */
export function cacheKeyOf(url: string): string {
  return new URL(url, globalThis.location?.href).href;
}

export function createCachePartialStore(engine: CacheEngine): PartialStore {
  let opened: Promise<Cache> | undefined;
  const open = () => (opened ??= caches.open(PARTIAL_CACHES[engine]));
  const manifestOf = async (cache: Cache, url: string): Promise<Manifest | undefined> => {
    const response = await cache.match(partKey(url, 'manifest'));
    if (!response) return undefined;
    try {
      const manifest = (await response.json()) as Manifest;
      return typeof manifest.validator === 'string' && Array.isArray(manifest.chunks) ? manifest : undefined;
    } catch {
      return undefined;
    }
  };
  // One write at a time per store: a manifest must list exactly the chunks written before it.
  let writing = Promise.resolve();
  return {
    async read(url): Promise<KeptPart | undefined> {
      await writing;
      const cache = await open();
      const manifest = await manifestOf(cache, url);
      if (!manifest) return undefined;
      const chunks: Uint8Array[] = [];
      for (const [index, size] of manifest.chunks.entries()) {
        const response = await cache.match(partKey(url, index));
        const bytes = response && new Uint8Array(await response.arrayBuffer());
        // A chunk missing or not its listed size: keep what comes before it.
        if (!bytes || bytes.byteLength !== size) break;
        chunks.push(bytes);
      }
      return { validator: manifest.validator, ...(manifest.total !== undefined ? { total: manifest.total } : {}), chunks };
    },
    append(url, chunk, validator, total) {
      const write = writing.then(async () => {
        const cache = await open();
        const manifest = await manifestOf(cache, url);
        const chunks = manifest?.validator === validator ? [...manifest.chunks] : [];
        await cache.put(partKey(url, chunks.length), new Response(chunk as Uint8Array<ArrayBuffer>, { headers: { 'content-length': String(chunk.byteLength) } }));
        chunks.push(chunk.byteLength);
        const next: Manifest = { validator, ...(total !== undefined ? { total } : {}), chunks };
        await cache.put(partKey(url, 'manifest'), new Response(JSON.stringify(next), { headers: { 'content-type': 'application/json' } }));
      });
      writing = write.catch(() => {});
      return write;
    },
    clear(url) {
      const write = writing.then(async () => {
        const cache = await open();
        // The manifest first: chunks without one are never read, whatever happens after.
        await cache.delete(partKey(url, 'manifest'));
        const file = cacheKeyOf(url);
        for (const request of await cache.keys()) if (fileOfPart(request.url) === file) await cache.delete(request);
      });
      writing = write.catch(() => {});
      return write;
    },
  };
}

/** The caches an engine keeps whole files in. */
const WHOLE_CACHES: Record<CacheEngine, readonly string[]> = { transformers: [TRANSFORMERS_CACHE], webllm: Object.values(WEBLLM_CACHES) };

/**
 * Deletes the parts of every file that is whole in `engine`'s own cache: a finished file's parts
 * can never be read again (the engine reads the whole file), yet they would count as an unfinished
 * download and take the file's size a second time. A download clears its own parts when it ends;
 * this sweeps those it could not (a tab closed while they were cleared, or an earlier version
 * whose clearing missed same-origin files). Returns how many entries went.
 */
export async function clearFinishedParts(engine: CacheEngine): Promise<number> {
  if (typeof caches === 'undefined' || !(await caches.has(PARTIAL_CACHES[engine]))) return 0;
  const partial = await caches.open(PARTIAL_CACHES[engine]);
  const parts = await partial.keys();
  if (parts.length === 0) return 0;
  const whole = new Set<string>();
  for (const name of WHOLE_CACHES[engine]) {
    if (!(await caches.has(name))) continue;
    for (const request of await (await caches.open(name)).keys()) whole.add(request.url);
  }
  let cleared = 0;
  for (const request of parts) {
    const file = fileOfPart(request.url);
    if (file !== undefined && whole.has(file) && (await partial.delete(request))) cleared++;
  }
  return cleared;
}
