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
 * What a chat stream delivers, in order, ending with `done` or `error`. The end travels with the
 * events (not as the call's reply): the reply and the events use different ports, and two ports
 * keep no common order.
 */
export type StreamMessage = ChatEvent | { readonly type: 'done' } | { readonly type: 'error'; readonly error: GatewayErrorData };

/** Posted by the worker on a caller's stream port (see `openStreams`). */
export interface StreamEnvelope {
  readonly id: string;
  readonly messages: readonly StreamMessage[];
}

export interface ModelStatus {
  readonly model: string;
  readonly state: ModelState;
  readonly loads: number;
  readonly error?: string;
}

export interface EngineHostApi {
  listModels(): Promise<readonly ModelInfo[]>;
  /**
   * Gives the worker this caller's stream port, once per connection: every chat stream of the
   * caller is posted there as StreamEnvelopes. One plain port instead of a comlink callback per
   * call saves a MessageChannel and a reply message per event on every request.
   */
  openStreams(port: MessagePort): void;
  /** Starts a generation; its events arrive on the stream port under `streamId`. */
  chat(request: ChatRequest, streamId: string): void;
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
