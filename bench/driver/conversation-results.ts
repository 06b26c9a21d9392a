/**
 * What the prefix-cache benchmark measures, in Node (conversation-node.ts) and in the browser
 * (bench/pages/conversation.ts): the workload of bench/pages/lib/conversation.ts run with the
 * engine's prefix cache on and off, several times each, each run on a fresh engine (nothing kept
 * from the run before). Times in ms.
 * @module
 */
import type { TurnFigures } from '../pages/lib/conversation.ts';

export interface CacheRuns {
  /** Per run, per turn (or agent step). */
  readonly on: readonly (readonly TurnFigures[])[];
  readonly off: readonly (readonly TurnFigures[])[];
}

export interface ConversationResult {
  /** `node` (onnxruntime-node), or the browser's backend. */
  readonly where: 'node' | 'wasm' | 'webgpu';
  readonly model: string;
  readonly replyTokens: number;
  /** New tokens each turn adds (the user message with its template tokens). */
  readonly newTokensPerTurn: number;
  readonly conversation: CacheRuns;
  readonly agent: CacheRuns;
  /** The prefix cache after each run with it on (GET /models `local.prefix_cache`): the largest seen, and its bound. */
  readonly cache: { readonly peakBytes: number; readonly maxBytes: number; readonly entries: number };
}
