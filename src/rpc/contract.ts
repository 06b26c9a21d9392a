/**
 * The RPC contract between the engine worker and its callers (the page host, the service worker),
 * carried by comlink over a MessagePort. Only plain data crosses: errors travel as
 * GatewayErrorData, streams as batches of events pushed to a callback.
 * @module
 */
import type { ChatEvent, ChatRequest, EmbedRequest, EmbedResult, ModelInfo } from '../core/engine.ts';
import type { GatewayErrorData } from '../core/errors.ts';
import type { LoadProgress } from '../engines/adapter.ts';
import type { ModelState } from '../engines/model-host.ts';

/**
 * What a chat stream's callback receives. The stream's end always comes through the same callback
 * (`done` or `error`): the call's own reply travels on another port, and two ports keep no common order.
 */
export type StreamMessage = ChatEvent | { readonly type: 'done' } | { readonly type: 'error'; readonly error: GatewayErrorData };

export interface ModelStatus {
  readonly model: string;
  readonly state: ModelState;
  readonly loads: number;
  readonly error?: string;
}

export interface EngineHostApi {
  listModels(): Promise<readonly ModelInfo[]>;
  /** Starts a generation; events arrive in order through `sink`, ending with `done` or `error`. */
  chat(request: ChatRequest, streamId: string, sink: (batch: readonly StreamMessage[]) => void): void;
  /** Rejects with GatewayErrorData (plain data, not an Error) on failure. */
  embed(request: EmbedRequest, callId: string): Promise<EmbedResult>;
  /** Stops the generation or embedding with this id, if it is still running. */
  cancel(id: string): void;
  load(model: string): Promise<void>;
  status(): Promise<readonly ModelStatus[]>;
  /** Subscribes to load progress of every model. */
  onProgress(listener: (progress: LoadProgress) => void): void;
  /** Answers at once: lets a caller tell a live host from a dead port. */
  ping(): Promise<'pong'>;
}
