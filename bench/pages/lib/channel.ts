/**
 * The page's line to bench/run.ts: the task's settings come in the URL (`?cfg=<json>`), logs,
 * errors and the result go out as POSTs to the bench server. With no DevTools attached this is
 * the only way out of the page, so nothing here runs inside a timed loop.
 * @module
 */

import type { RealWorkload } from '../../driver/real-size-results.ts';
import type { CpuCandidate, CpuWorkload } from '../../driver/cpu-paths-results.ts';
import type { ConversationTexts } from './conversation.ts';
import type { DraftRow } from './drafts.ts';
import type { StructuredSetup } from './structured.ts';

export interface TaskConfig {
  /** Names the task in logs and in the result. */
  readonly task: string;
  readonly device: 'wasm' | 'webgpu';
  /** Repetition profile: `quick` (smoke), `short` (the WebGPU section), `full`. */
  readonly profile: 'quick' | 'short' | 'full';
  /** Load pages: which runtime loads the models. */
  readonly engine?: 'product' | 'raw';
  /** Load pages: 0 is the cold load of a fresh profile, later ones are warm reloads. */
  readonly iteration?: number;
  readonly iterations?: number;
  /** Main and real-size pages: which sections to run (all when absent). */
  readonly sections?: readonly string[];
  /** Real-size page: the real-shaped models and the inputs the driver made for them. */
  readonly real?: RealWorkload;
  /** Prefix-cache page: the workload's texts, runs a side, reply length, and the chat model it runs. */
  readonly conversation?: { readonly texts: ConversationTexts; readonly runs: number; readonly replyTokens: number; readonly newTokensPerTurn: number; readonly chat: RealWorkload['chat'] };
  /** CPU-path page: this round's candidates, in this round's order, and the completion each runs. */
  readonly cpu?: { readonly candidates: readonly CpuCandidate[]; readonly workload: CpuWorkload; readonly round: number };
  /** MaskBench page: the files (named as the CLI names them; served under /bench/maskbench/ by name) and the time a file may take. */
  readonly schemas?: { readonly files: readonly string[]; readonly timeoutMs: number };
  /** Structured-output page: the token cap, the rounds, and the chat model it runs. */
  readonly structured?: StructuredSetup & { readonly chat: RealWorkload['chat'] };
  /** Drafted-decoding page: the chat model, the rows and the rounds. */
  readonly drafts?: { readonly chat: RealWorkload['chat']; readonly rows: readonly DraftRow[]; readonly rounds: number };
}



export const config: TaskConfig = JSON.parse(new URLSearchParams(location.search).get('cfg') ?? '{"task":"manual","device":"wasm","profile":"quick"}');

// Captured before anything (the fetch shim) can wrap it.
const send = globalThis.fetch.bind(globalThis);

function post(kind: string, body: unknown): Promise<Response> {
  return send(`/__bench/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: config.task, ...(body as object) }) });
}

/** Progress lines for the terminal (never from inside a timed loop; await it so no POST overlaps a measurement). */
export async function log(message: string): Promise<void> {
  await post('log', { message }).catch(() => {});
}

export async function finish(result: unknown): Promise<void> {
  await post('result', { result });
}

export function fail(error: unknown): void {
  const message = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : typeof error === 'object' ? JSON.stringify(error) : String(error);
  void post('error', { message }).catch(() => {});
}

addEventListener('error', (event) => fail(event.error ?? event.message));
addEventListener('unhandledrejection', (event) => fail(event.reason));

/** Reads a task's numbers from the repetition profile. */
export function byProfile<T>(values: { quick: T; short: T; full: T }): T {
  return values[config.profile];
}
