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
 *   read back (an interrupted download resumes file by file: whole files stay cached);
 * - a file goes into the cache beside the engine's next step, not before it: `put` starts the
 *   write and returns, and a file whose hash is still being checked (`expect`) is written only once
 *   it passes. A load waits for its files' writes and checks (`settled`) before it is done.
 *   transformers.js would otherwise build the model only after the hash and the write, one after
 *   the other; hashing the real-shaped 0.5B model's 0.8 GB takes about 1.5 s on 2 cores.
 *   See docs/decisions/check-files-beside-the-load.md.
 * @module
 */
import { CHECKED_HEADER, corruptFile, fileInFolder, isQuotaError, TRANSFORMERS_CACHE, verifyFile, type FileCheck } from '../files/index.ts';

export interface VerifiedCache {
  match(key: string): Promise<Response | undefined>;
  put(key: string, response: Response): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** The check of the file at `url` is under way: its write waits for it, and `settled` reports it. */
  expect(url: string, verdict: Promise<void>): void;
  /**
   * Once the writes and checks of files under `folder` have ended; rejects with the error naming a
   * file that failed its check (that file was not kept).
   */
  settled(folder: string): Promise<void>;
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
  /** Checks under way or failed, by URL (a passed one is dropped); a failed one until its load settles. */
  const verdicts = new Map<string, Promise<void>>();
  /** Writes under way, by URL; each has handled its own failure. */
  const writes = new Map<string, Promise<void>>();
  const under = (entries: Map<string, Promise<void>>, folder: string) => [...entries].filter(([url]) => fileInFolder(url, folder) !== undefined);

  return {
    async match(key) {
      const url = absolute(key);
      // A file still being written is read once it is whole.
      await writes.get(url);
      const cache = await open();
      const response = await cache.match(key);
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
      const url = absolute(key);
      verified.delete(url);
      const verdict = verdicts.get(url);
      const write = (async () => {
        // A file that fails its check is not written; `settled` reports it.
        if (verdict && !(await verdict.then(() => true, () => false))) return;
        try {
          await (await open()).put(key, response);
        } catch (error) {
          const bytes = Number(response.headers.get('content-length')) || undefined;
          // Other failures to store leave the file uncached, as transformers.js does itself (it
          // logs them and goes on); running out of room is the load's to report.
          if (isQuotaError(error)) quotaFailures.push({ url, bytes, error });
          else console.warn(`inpage-llm: ${url} was not cached: ${error instanceof Error ? error.message : String(error)}`);
        }
      })();
      const tracked = write.finally(() => {
        if (writes.get(url) === tracked) writes.delete(url);
      });
      writes.set(url, tracked);
    },
    async delete(key) {
      verified.delete(absolute(key));
      return (await open()).delete(key);
    },
    expect(url, verdict) {
      const key = absolute(url);
      verdicts.set(key, verdict);
      verdict.then(
        () => void (verdicts.get(key) === verdict && verdicts.delete(key)),
        () => {},
      );
    },
    async settled(folder) {
      await Promise.all(under(writes, folder).map(([, write]) => write));
      const checks = under(verdicts, folder);
      for (const [url, verdict] of checks) if (verdicts.get(url) === verdict) verdicts.delete(url);
      await Promise.all(checks.map(([, verdict]) => verdict));
    },
    takeQuotaFailures(folder) {
      const mine = quotaFailures.filter((f) => fileInFolder(f.url, folder) !== undefined);
      for (const failure of mine) quotaFailures.splice(quotaFailures.indexOf(failure), 1);
      return mine;
    },
  };
}
