/**
 * The browser's built-in model between the page that hosts the engine worker (where
 * `window.LanguageModel` is) and the engine worker (where the model host and its adapter are).
 * The page serves a `BuiltinModelBackend` on a port it hands the worker with `CONFIGURE`; the
 * worker's adapter calls it through `src/rpc/builtin-model-link.ts`. See
 * docs/decisions/builtin-model.md.
 * @module
 */
import type { GatewayErrorData } from '../core/errors.ts';

/** What `LanguageModel.availability()` says here, and why where it is `unavailable`. */
export interface BuiltinAvailability {
  readonly state: 'unavailable' | 'downloadable' | 'downloading' | 'available';
  readonly reason?: string;
}

/** One message of a session, as the Prompt API takes it (`prefix`: an assistant prefill, last only). */
export interface BuiltinTurn {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  readonly prefix?: boolean;
}

/** One answer to ask of the built-in model: a fresh session per request. */
export interface BuiltinPrompt {
  /** The conversation before the last turn: system, user and assistant messages. */
  readonly initialPrompts: readonly BuiltinTurn[];
  /** The last turn (a user message, and an assistant prefill after it when there is one). */
  readonly input: readonly BuiltinTurn[];
  readonly temperature?: number;
  readonly topK?: number;
  /** A JSON schema the answer must match. */
  readonly responseConstraint?: Readonly<Record<string, unknown>>;
}

export type BuiltinEvent =
  /** The prompt's tokens: from `measureInputUsage`, or (`estimated`) from its length where the browser has no count. */
  | { readonly type: 'usage'; readonly promptTokens: number; readonly estimated: boolean }
  /** The next piece of the answer, as the browser streamed it. */
  | { readonly type: 'text'; readonly text: string };

/** What the host page offers the engine worker. Failures are `GatewayError`s. */
export interface BuiltinModelBackend {
  availability(): Promise<BuiltinAvailability>;
  /** Makes the model ready: the browser downloads it first where it must (`loaded` in 0..1). */
  prepare(onProgress: (loaded: number) => void): Promise<void>;
  prompt(prompt: BuiltinPrompt, signal: AbortSignal): AsyncIterable<BuiltinEvent>;
}

/** Engine worker → host page, on the built-in model's port. */
export type BuiltinCall =
  | { readonly id: number; readonly type: 'availability' }
  | { readonly id: number; readonly type: 'prepare' }
  | { readonly id: number; readonly type: 'prompt'; readonly prompt: BuiltinPrompt }
  /** Stop the call `id`: its session is destroyed. */
  | { readonly id: number; readonly type: 'cancel' };

/** Host page → engine worker: each call ends with exactly one `result`, `done` or `error`. */
export type BuiltinReply =
  | { readonly id: number; readonly type: 'result'; readonly value: BuiltinAvailability }
  | { readonly id: number; readonly type: 'progress'; readonly loaded: number }
  | { readonly id: number; readonly type: 'event'; readonly event: BuiltinEvent }
  | { readonly id: number; readonly type: 'done' }
  | { readonly id: number; readonly type: 'error'; readonly error: GatewayErrorData };
