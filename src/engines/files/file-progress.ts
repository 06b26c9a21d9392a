/**
 * Load progress told by the product's own model-file fetch and download cache, not by the engine:
 * bytes of each file as they arrive from the network, and whole files as they come back from the
 * cache. A load watches its model's folder for as long as it runs.
 *
 * Why not transformers.js's `progress_callback`: given one, transformers.js first requests every
 * file of the model once more to learn its size (a whole GET for a local model, whose body it never
 * reads), then reads each body chunk by chunk in JS; without one it reads each body whole. On the
 * real-shaped 0.5B model and embedder, a first load took 15.5–16.1 s that way, 13.8–14.4 s with
 * progress told here (2 cores, `npm run bench -- --models real --device wasm --no-main`). See
 * docs/decisions/load-progress-without-progress-callback.md.
 * @module
 */
import type { DownloadState } from '../../contracts/model-progress.ts';
import { fileInFolder } from './file-integrity.ts';

/** One file's bytes so far; `total` 0 when unknown. `cached`: read back from the cache, not downloaded. */
export interface FileBytes {
  readonly file: string;
  readonly loaded: number;
  readonly total: number;
  readonly cached: boolean;
  /** Resumed bytes, retries and the last cut, when the download did not come in one piece. */
  readonly download?: DownloadState;
}

export interface FileWatcher {
  onBytes(bytes: FileBytes): void;
  /** A file's body failed as it was read, with the error that names it. */
  onFailure?(file: string, error: unknown): void;
}

export interface FileProgress {
  /** Bytes of the file at `url` so far (from the fetch), or all of it (from the cache). */
  report(url: string, loaded: number, total: number, cached: boolean, download?: DownloadState): void;
  /** The body of the file at `url` failed as it was read. */
  fail(url: string, error: unknown): void;
  /** Tells `watcher` of files under the model folder `folder` until the returned function is called. */
  watch(folder: string, watcher: FileWatcher): () => void;
}

export function createFileProgress(): FileProgress {
  const watchers = new Set<{ readonly folder: string; readonly watcher: FileWatcher }>();
  const tell = (url: string, each: (watcher: FileWatcher, file: string) => void) => {
    for (const { folder, watcher } of watchers) {
      const file = fileInFolder(url, folder);
      if (file === undefined) continue;
      try {
        each(watcher, file);
      } catch {
        // A broken progress listener must not fail the download.
      }
    }
  };
  return {
    report: (url, loaded, total, cached, download) => tell(url, (watcher, file) => watcher.onBytes({ file, loaded, total, cached, ...(download ? { download } : {}) })),
    fail: (url, error) => tell(url, (watcher, file) => watcher.onFailure?.(file, error)),
    watch(folder, watcher) {
      const entry = { folder, watcher };
      watchers.add(entry);
      return () => void watchers.delete(entry);
    },
  };
}
