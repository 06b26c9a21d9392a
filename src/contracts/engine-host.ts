/**
 * The contract between the engine worker and its callers (the page host, other pages, the service worker),
 * carried by comlink over a MessagePort, with the requests themselves on a plain port of their own.
 * Only plain data crosses: errors travel as GatewayErrorData, streams as batches of events.
 * @module
 */
import type { ChatEvent, ChatRequest, EmbedRequest, EmbedResult, ModelInfo, ModelLocalState } from '../core/engine.ts';
import type { GatewayErrorData } from '../core/errors.ts';
import type { LoadProgress, ModelStatus } from './model-progress.ts';

/**
 * What a chat stream delivers, in order, ending with `done` or `error`. The end travels with the
 * events (not as a separate reply), so nothing has to order two ports.
 */
export type StreamMessage = ChatEvent | { readonly type: 'done' } | { readonly type: 'error'; readonly error: GatewayErrorData };

/** Posted by a caller on its call port (see `openCalls`). Ids are the caller's own. */
export type CallMessage =
  /** `whole`: the caller uses nothing before the end, so the events may come in one message. */
  | { readonly type: 'chat'; readonly id: number; readonly request: ChatRequest; readonly whole: boolean }
  | { readonly type: 'embed'; readonly id: number; readonly request: EmbedRequest }
  /** Stops the call with this id if it is still running; its answer still comes (as an error). */
  | { readonly type: 'cancel'; readonly id: number };

/** Posted by the worker on a caller's call port, answering the CallMessage with the same id. */
export type CallReply =
  | { readonly id: number; readonly messages: readonly StreamMessage[] }
  | { readonly id: number; readonly result: EmbedResult }
  | { readonly id: number; readonly error: GatewayErrorData };

export interface EngineHostApi {
  listModels(): Promise<readonly ModelInfo[]>;
  /**
   * Gives the worker this caller's call port, once per connection. Chats, embeddings and cancels
   * go over it as plain messages (CallMessage / CallReply): a request costs one message each way,
   * where a comlink call costs a reply of its own, and a stream needs no callback proxy.
   */
  openCalls(port: MessagePort): void;
  load(model: string): Promise<void>;
  status(): Promise<readonly ModelStatus[]>;
  /** Each model's state, files on disk and device support, read when asked (it changes). */
  modelStates(): Promise<readonly ModelLocalState[]>;
  /** Subscribes to load progress of every model. */
  onProgress(listener: (progress: LoadProgress) => void): void;
  /** Answers at once: lets a caller tell a live host from a dead port. */
  ping(): Promise<'pong'>;
}
