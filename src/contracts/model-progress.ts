/**
 * What the engine worker tells its callers about models over time: load progress events and each
 * model's place in memory. Produced by the engines, read by the page host and the playground.
 * @module
 */
import type { ModelLocalState } from '../core/engine.ts';

/** Load progress, one union for every engine (after transformers.js's ProgressInfo). */
export type LoadProgress =
  | { readonly status: 'initiate'; readonly model: string }
  /**
   * Bytes of one file; `total` may be unknown (0). `cached`: read back from the browser's storage,
   * not downloaded. `download`: how a download that was cut or resumed is going (absent when it
   * went in one piece).
   */
  | { readonly status: 'progress'; readonly model: string; readonly file: string; readonly loaded: number; readonly total: number; readonly cached?: boolean; readonly download?: DownloadState }
  /** A stage without byte counts (e.g. shader compilation), `fraction` in 0..1 over the whole load. */
  | { readonly status: 'stage'; readonly model: string; readonly text: string; readonly fraction: number }
  | { readonly status: 'ready'; readonly model: string; readonly device: string; readonly ms: number }
  | { readonly status: 'error'; readonly model: string; readonly message: string };

/** How a file's download is going when it did not come in one piece (resumable-download.ts). */
export interface DownloadState {
  /** Bytes it began with, kept from an earlier download of the file (a reload, a closed tab). */
  readonly resumedFrom: number;
  /** Attempts after the first. */
  readonly retries: number;
  /** Why the last attempt ended early. */
  readonly lastCut?: string;
  /** Whether the server resumes where a cut stopped; false: a cut starts the file over. */
  readonly ranges: boolean;
}

/** In memory or not: `available` (not loaded), `loading`, `loaded`, or `failed` (its last load failed). */
export type ModelState = ModelLocalState['state'];

/**
 * One model's status in the model host. `loads` counts completed loads (tests use it to see a
 * model load once); `requests` counts the calls made for the model and `engineCalls` those made to
 * the engine: fewer engine calls than requests is what batching merged.
 */
export interface ModelStatus {
  readonly model: string;
  readonly state: ModelState;
  readonly loads: number;
  readonly requests: number;
  readonly engineCalls: number;
  readonly error?: string;
}
