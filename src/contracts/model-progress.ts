/**
 * What the engine worker tells its callers about models over time: load progress events and each
 * model's place in memory. Produced by the engines, read by the page host and the playground.
 * @module
 */
import type { ModelLocalState } from '../core/engine.ts';

/** Load progress, one union for every engine (after transformers.js's ProgressInfo). */
export type LoadProgress =
  | { readonly status: 'initiate'; readonly model: string }
  /** Bytes of one file; `total` may be unknown (0). `cached`: read back from the browser's storage, not downloaded. */
  | { readonly status: 'progress'; readonly model: string; readonly file: string; readonly loaded: number; readonly total: number; readonly cached?: boolean }
  /** A stage without byte counts (e.g. shader compilation), `fraction` in 0..1 over the whole load. */
  | { readonly status: 'stage'; readonly model: string; readonly text: string; readonly fraction: number }
  | { readonly status: 'ready'; readonly model: string; readonly device: string; readonly ms: number }
  | { readonly status: 'error'; readonly model: string; readonly message: string };

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
