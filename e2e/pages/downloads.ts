/**
 * What the resumable-download tests drive: the product's model-file fetch (as the transformers.js
 * engine is given it) and web-llm's file fetch, in a page with real Cache Storage, so a reload
 * stops a download midway as a closed tab does. Tests call these through `page.evaluate`.
 */
import { hasModelInCache, type ModelRecord } from '@mlc-ai/web-llm';
import type { DownloadState } from '../../src/contracts/model-progress.ts';
import { integrityOf } from '../../src/engines/files/file-integrity.ts';
import { listCachedModels, PARTIAL_CACHES } from '../../src/engines/files/model-cache.ts';
import { checkedModelFetch } from '../../src/engines/files/model-file-fetch.ts';
import { createCachePartialStore } from '../../src/engines/files/partial-store.ts';
import { fetchWebLLMFiles } from '../../src/engines/webllm/fetch-files.ts';

export interface FileResult {
  readonly size: number;
  /** The hash of the bytes the engine would be handed, made here again. */
  readonly integrity: string;
  readonly ms: number;
  /** The last progress report's download state (absent when it came in one piece). */
  readonly download?: DownloadState;
  readonly reports: number;
}

const downloads = {
  /** The file at `url` as the engine's fetch gets it, checked against `check` (size, and hash where given). */
  async file(url: string, check: { bytes: number; integrity?: string }): Promise<FileResult> {
    const started = performance.now();
    let download: DownloadState | undefined;
    let reports = 0;
    const fetch = checkedModelFetch((input, init) => globalThis.fetch(input, init), {
      check: () => check,
      resume: { store: createCachePartialStore('transformers'), backoffMs: 20 },
      onBytes: (_url, _loaded, _total, state) => {
        reports++;
        if (state) download = { resumedFrom: state.resumedFrom, retries: state.retries, ranges: state.ranges, ...(state.lastCut ? { lastCut: state.lastCut } : {}) };
      },
    });
    const bytes = await (await fetch(url)).arrayBuffer();
    return { size: bytes.byteLength, integrity: await integrityOf(bytes), ms: performance.now() - started, reports, ...(download ? { download } : {}) };
  },
  /** Bytes kept of unfinished downloads, by engine, as the storage figures count them. */
  async partialBytes(): Promise<number> {
    const groups = await listCachedModels();
    return groups.reduce((sum, group) => sum + group.partialBytes, 0);
  },
  async partialKeys(): Promise<string[]> {
    const keys: string[] = [];
    for (const name of Object.values(PARTIAL_CACHES)) if (await caches.has(name)) keys.push(...(await (await caches.open(name)).keys()).map((r) => r.url));
    return keys;
  },
  /** web-llm's files for `record` through the product's fetch; then what web-llm itself finds in its caches. */
  async webllm(record: ModelRecord) {
    const retries = new Map<string, number>();
    await fetchWebLLMFiles(record, {
      resume: { store: createCachePartialStore('webllm'), backoffMs: 20 },
      onBytes: ({ file, download }) => download && retries.set(file, download.retries),
    });
    const stored: Record<string, string> = {};
    for (const name of ['webllm/config', 'webllm/model', 'webllm/wasm']) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) stored[`${name} ${request.url}`] = await integrityOf(await (await cache.match(request))!.arrayBuffer());
    }
    return { stored, retries: Object.fromEntries(retries), inCache: await hasModelInCache(record.model_id, { model_list: [record] }) };
  },
};

declare global {
  interface Window {
    downloads: typeof downloads;
  }
}
window.downloads = downloads;
