/**
 * What the pages post back (bench/pages/bench.ts, bench/pages/load.ts): the shape of the
 * results file's `main` and `load` entries, as the report reads them.
 * @module
 */
import type { Summary } from '../pages/lib/stats.ts';
import type { Device, Profile } from './options.ts';

export interface Named {
  name: string;
}

/** Requests the service worker's engine host received, and the engine calls they took. */
export interface Merging {
  requests: number;
  engineCalls: number;
}

export interface Exactness {
  requests: number;
  vectors: number;
  bitIdentical: number;
  maxAbsDiff: number;
  usageExact: number;
  merging?: Merging;
}

export type StreamPath = Named & {
  tokens: number[];
  tokensPerSec: Summary;
  decodeTokensPerSec: Summary;
  firstTokenMs: Summary;
  totalMs: Summary;
  /** The path's first stream in the page (its warm-up, not in the summaries); absent in older results. */
  firstRun?: { firstTokenMs: number; totalMs: number; headersMs?: number };
};

export type Paced = { maxTokens: number; paceMs: number; yieldEach?: boolean; paths: StreamPath[] };

export interface MainResult {
  device: Device;
  profile: Profile;
  env: Record<string, unknown>;
  latency?: (Summary & Named & { roundMedians: number[]; samples?: number[] })[];
  streaming?: { maxTokens: number; paths: StreamPath[] };
  grammar?: { maxTokens: number; paths: StreamPath[] };
  embeddings?: {
    texts: number;
    batch: (Named & { ms: Summary; textsPerSec: Summary; rounds: number[] })[];
    concurrent: (Named & { ms: Summary; textsPerSec: Summary; rounds: number[]; merging?: Merging })[];
    exact: Record<string, Exactness>;
    /** The engine alone: each multi-text request's texts in one call vs one call each. */
    engineBatch?: Exactness;
  };
  burst?: { chunks: number; paths: (Named & { ms: Summary; usPerChunk: number; chunksPerSec: number; reads?: number })[]; paced?: Paced; pacedFast?: Paced; pacedYielding?: Paced; sameWorker?: { maxTokens: number; paths: StreamPath[] } };
  memory: { label: string; pageHeapBytes?: number; totalBytes?: number; byRealm?: Record<string, number>; error?: string }[];
  checks: Record<string, unknown>;
}

export interface LoadResult {
  engine: 'product' | 'raw';
  device: Device;
  /** The models loaded, `chat + embedding` (absent in results from before `--models real`: the tiny ones). */
  models?: string;
  cold: boolean;
  startToLoadedMs: number;
  loadCallsMs: number;
  workerReadyMs: number;
  chatLoadMs: number;
  embedLoadMs: number;
  controlledMs?: number;
  /** Product only: progress events that reached the page (absent in results from before they were counted). */
  progressEvents?: number;
  userAgent?: string;
  hardwareConcurrency?: number;
}
