/** What the MaskBench page (bench/pages/schemas.ts) and its worker (workers/schemas-check.ts) say to each other and post to the driver. @module */

export interface SchemasResult {
  /** The runner's lines as `schemas check --json` prints them: one JSON object a file, `{"summary": …}` last. */
  readonly lines: readonly string[];
  /** Fetching the tokenizer's files and making the tokenizer (transformers.js's browser build). */
  readonly tokenizerMs: number;
  /** The runner: the matcher's tables, the warm-up, then every file (fetches included, outside the timed parts). */
  readonly runMs: number;
  readonly vocabularySize: number;
  /** The worker's: 5 µs timers when true, 100 µs when not. */
  readonly crossOriginIsolated: boolean;
  readonly userAgent: string;
  readonly hardwareConcurrency: number;
}

/** What the page tells the worker. */
export interface SchemasJob {
  /** The files as the CLI names them; each is fetched from /bench/maskbench/ by its last segment. */
  readonly files: readonly string[];
  readonly timeoutMs: number;
}

/** What the worker answers: each line as the runner writes it, then `done`. */
export type SchemasReply =
  | { readonly type: 'line'; readonly line: string }
  | { readonly type: 'done'; readonly tokenizerMs: number; readonly runMs: number; readonly vocabularySize: number; readonly crossOriginIsolated: boolean }
  | { readonly type: 'error'; readonly message: string };

