/**
 * transformers.js's download cache (`env.customCache`), kept in the same Cache Storage cache it
 * would use itself, with three differences:
 * - a cached file is checked before it is trusted: its body must be as long as it was when stored,
 *   and match the catalog's size and hash where there are some; one that does not is evicted, so
 *   the engine fetches it again. A file stamped as checked on its way in (`CHECKED_HEADER`, with the
 *   catalog's hash) and of the catalog's size is not hashed again;
 * - a quota failure while storing is remembered for the load that met it (transformers.js logs it
 *   and goes on), so the load can be reported as out of storage rather than pass half-cached;
 * - each file read back whole is told to `onRead`, so progress can tell bytes fetched from bytes
 *   read back (an interrupted download resumes file by file: whole files stay cached).
 * @module
 */
import { TRANSFORMERS_CACHE } from '../model-cache.ts';
import { CHECKED_HEADER, corruptFile, fileInFolder, verifyFile, type FileCheck } from '../file-integrity.ts';
import { isQuotaError } from '../storage.ts';

export interface VerifiedCache {
  match(key: string): Promise<Response | undefined>;
  put(key: string, response: Response): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Quota failures met while storing files whose URL contains `folder`, since the last call (then forgotten). */
  takeQuotaFailures(folder: string): { readonly url: string; readonly bytes?: number; readonly error: unknown }[];
}

/** `onRead`: a file came back whole from the cache (its URL and size), for load progress. */
export function createVerifiedCache(check: (url: string) => FileCheck | undefined, cacheName = TRANSFORMERS_CACHE, onRead?: (url: string, bytes: number) => void): VerifiedCache {
  let opened: Promise<Cache> | undefined;
  const open = () => (opened ??= caches.open(cacheName));
  const quotaFailures: { url: string; bytes?: number; error: unknown }[] = [];
  /**
   * Entries already checked by this engine, by URL, with their size: each is hashed once per
   * engine lifetime, not at every read (transformers.js reads an entry twice per load: once for
   * its size, once for its bytes).
   */
  const verified = new Map<string, number>();
  const absolute = (key: string) => new URL(key, globalThis.location?.href ?? 'http://relative.invalid/').href;

  return {
    async match(key) {
      const cache = await open();
      const response = await cache.match(key);
      const url = absolute(key);
      if (!response) return undefined;
      const body = await response.blob();
      const stored = Number(response.headers.get('content-length'));
      const expected = check(url);
      // Checked by this engine already, or on its way in (the fetch stamped it) and still the size
      // it was stored at and the catalog's: trusted without hashing it again.
      const stamped =
        expected?.integrity !== undefined &&
        response.headers.get(CHECKED_HEADER) === expected.integrity &&
        (expected.bytes === undefined || body.size === expected.bytes) &&
        (stored <= 0 || body.size === stored);
      if (verified.get(url) !== body.size && !stamped) {
        try {
          if (stored > 0 && body.size !== stored) throw corruptFile(url, `the cached copy is ${body.size} bytes, ${stored} were stored`);
          if (expected?.integrity !== undefined) await verifyFile(url, await body.arrayBuffer(), expected);
          else if (expected?.bytes !== undefined && body.size !== expected.bytes) throw corruptFile(url, `it is ${body.size} bytes, the catalog says ${expected.bytes}`);
        } catch (error) {
          // Evicted: the engine then fetches the file again, and the fresh copy is checked on the way in.
          console.warn(`inpage-llm: ${error instanceof Error ? error.message : String(error)} Fetching it again.`);
          await cache.delete(key);
          return undefined;
        }
      }
      verified.set(url, body.size);
      onRead?.(url, body.size);
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    async put(key, response) {
      const cache = await open();
      const url = absolute(key);
      verified.delete(url);
      try {
        await cache.put(key, response);
      } catch (error) {
        const bytes = Number(response.headers.get('content-length')) || undefined;
        if (isQuotaError(error)) quotaFailures.push({ url, bytes, error });
        throw error;
      }
    },
    async delete(key) {
      verified.delete(absolute(key));
      return (await open()).delete(key);
    },
    takeQuotaFailures(folder) {
      const mine = quotaFailures.filter((f) => fileInFolder(f.url, folder) !== undefined);
      for (const failure of mine) quotaFailures.splice(quotaFailures.indexOf(failure), 1);
      return mine;
    },
  };
}
