/**
 * What the real-size page (bench/pages/real.ts) posts back: the service worker path against
 * direct engine calls and the browser's floor, on the real-shaped generated models
 * (`npm run models:real`), and how each cost grows with the work. Times in ms, rates per second.
 * @module
 */
import type { Summary } from '../pages/lib/stats.ts';
import type { Device, Profile } from './options.ts';

/** One measured path of a comparison (`sw`, `direct`, `floor`, `raw`). */
export interface PathSummary {
  readonly name: string;
  readonly ms: Summary;
}

/** One point of a curve: the x value and each path's median. */
export interface CurvePoint {
  readonly x: number;
  /** Median per path name (ms, or a rate, as the curve says). */
  readonly values: Readonly<Record<string, number>>;
}

export interface Curve {
  readonly title: string;
  readonly x: string;
  readonly y: string;
  /** Draw x on a log scale (concurrency, token counts that double). */
  readonly logX?: boolean;
  readonly points: readonly CurvePoint[];
}

export interface RealSizeResult {
  readonly device: Device;
  readonly profile: Profile;
  readonly env: Record<string, unknown>;
  /** The models measured, with their files' total size. */
  readonly models: { readonly embed: { id: string; bytes: number }; readonly chat: { id: string; bytes: number } };
  /** One text of `tokens` tokens, one request at a time: sw, direct, floor (bare service worker + worker, no engine). */
  readonly embedOne: { readonly tokens: number; readonly paths: readonly PathSummary[] };
  /** A one-token chat completion, whole: sw, direct. */
  readonly chatOne: { readonly promptTokens: number; readonly paths: readonly PathSummary[] };
  /** Streams of `maxTokens` tokens: time to first token and decode rate (first to last token), per path. */
  readonly stream: {
    readonly maxTokens: number;
    readonly paths: readonly { readonly name: string; readonly firstTokenMs: Summary; readonly decodeTokensPerSec: Summary }[];
  };
  /** Batching: `texts` one-text requests at once through the service worker vs one at a time directly; one request of `texts` texts, sw vs direct. */
  readonly batching: {
    readonly texts: number;
    readonly concurrentSw: Summary;
    readonly sequentialDirect: Summary;
    readonly oneRequestSw: Summary;
    readonly oneRequestDirect: Summary;
  };
  /** Named curves: embedLatencyVsTokens, embedThroughputVsConcurrency, ttftVsPromptTokens, decodeRateVsLength, memoryVsModels. */
  readonly curves: Readonly<Record<string, Curve>>;
  /** The same work on each backend (`auto`'s choice): the embedder's one-text latency and tiny-chat's decode rate. */
  readonly backends?: readonly { readonly name: 'wasm' | 'webgpu'; readonly embed16Ms: number; readonly embed128Ms: number; readonly tinyChatTokensPerSec: number }[];
  /**
   * The one-text embedding and the streams again, with the service worker linked to the very
   * engine worker the direct calls go to (the comparisons above use two workers): sw, direct, and
   * (newer results) the floor interleaved with them. `embedVsTokens`: sw and direct medians of one
   * text of each length on that worker (newer results), to tell a per-request cost from one that
   * grows with the engine's work.
   */
  readonly oneWorker?: {
    readonly embedOne: RealSizeResult['embedOne'];
    readonly stream: RealSizeResult['stream'];
    readonly embedVsTokens?: readonly CurvePoint[];
    /** CPU the floor's bare worker spent per answer in this block: the engine's own time for the text (newer results). */
    readonly floorBusyMs?: number;
    /** (sw − direct) − (floor − floor worker) per sample of four back-to-back requests (newer results). */
    readonly pairedOverheadMs?: Summary;
    /**
     * Every sample behind `embedOne` and `pairedOverheadMs`, by path (newer results), so the report
     * can say how far each estimate could move by chance. `direct again` is the direct call as a
     * second path in the same rounds: an A/A comparison, what the method reads where the two
     * routes are one. `pairedAA`: direct again − direct per sample of the paired estimate, the direct
     * call taking sw's place among the four (newer results). `firstToken`: time to the first token of one-token streams, by path (sw, direct,
     * direct again).
     */
    readonly samples?: {
      readonly embedOne: Readonly<Record<string, readonly number[]>>;
      readonly paired: readonly number[];
      readonly pairedAA?: readonly number[];
      readonly firstToken?: Readonly<Record<string, readonly number[]>>;
    };
  };
  readonly checks: Record<string, unknown>;
}

type Files = Readonly<Record<string, { readonly bytes: number; readonly integrity: string }>>;

/** What the driver gives the real-size page: the models (with their files' checks) and inputs of exact lengths. */
export interface RealWorkload {
  readonly embed: { readonly id: string; readonly bytes: number; readonly dtype: string; readonly files: Files };
  readonly chat: { readonly id: string; readonly bytes: number; readonly dtype: string; readonly files: Files };
  /** Embedder inputs of exactly N tokens, by N. */
  readonly embedTexts: Readonly<Record<string, string>>;
  /** Chat prompts (the user message) of about N tokens, by N. */
  readonly prompts: Readonly<Record<string, string>>;
}
