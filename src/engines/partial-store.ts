/**
 * The bytes of unfinished model-file downloads, kept in Cache Storage so that a reload or a closed
 * tab resumes where the download stopped. Each file has numbered chunks and a small manifest (its
 * validator, size, and the chunks' sizes), keyed by the file's URL plus a query naming the part:
 * grouped by the same rule as whole files (model-cache.ts), a model's partial bytes count in its
 * storage figures and go with its Delete. The manifest is written after the chunk it lists, so a
 * chunk written without one (the tab closed between the two) is never read. Partial data is never
 * served as a file: the download reads it back, checks the assembled whole, and clears it.
 * @module
 */
import type { CacheEngine } from './model-cache.ts';
import { PARTIAL_CACHES } from './model-cache.ts';
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
  return /[?&]inpage-partial=/.test(url);
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
        const prefix = partKey(url, 'manifest').replace(/manifest$/, '');
        await cache.delete(partKey(url, 'manifest'));
        for (const request of await cache.keys()) if (request.url.startsWith(prefix)) await cache.delete(request);
      });
      writing = write.catch(() => {});
      return write;
    },
  };
}
