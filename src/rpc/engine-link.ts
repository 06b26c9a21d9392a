/**
 * The caller side of the contract: an Engine whose work runs in the engine worker. Streams arrive
 * on one port per link; aborts become `cancel(id)`; errors are rebuilt from data. A host that stops
 * answering (its tab closed, its worker died) fails pending calls with a 503 instead of hanging.
 * @module
 */
import { transfer, type Remote } from 'comlink';
import type { CallOptions, ChatEvent, ChatRequest, EmbedRequest, EmbedResult, Engine, ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { randomId } from '../core/ids.ts';
import type { EngineHostApi, StreamEnvelope, StreamMessage } from './contract.ts';

export interface EngineLink extends Engine {
  /** Fails every pending call with 503 (the host is gone) and refuses new ones. */
  sever(reason: string): void;
  readonly severed: boolean;
}

export function linkEngine(remote: Remote<EngineHostApi>): EngineLink {
  const pending = new Set<(error: GatewayError) => void>();
  let severedBy: GatewayError | undefined;
  let models: Promise<readonly ModelInfo[]> | undefined;
  // One port carries every stream of this link; envelopes are routed to their stream by id.
  const streams = new Map<string, (messages: readonly StreamMessage[]) => void>();
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = (event: MessageEvent<StreamEnvelope>) => streams.get(event.data.id)?.(event.data.messages);
  void Promise.resolve(remote.openStreams(transfer(port2, [port2]))).catch(() => {});

  const guard = () => {
    if (severedBy) throw severedBy;
  };
  /** Races `promise` against the link being severed. */
  const watch = <T>(promise: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.add(reject);
      promise.then(resolve, (error) => reject(GatewayError.from(error))).finally(() => pending.delete(reject));
    });

  return {
    get severed() {
      return severedBy !== undefined;
    },
    sever(reason) {
      severedBy = new GatewayError('engine_unavailable', reason, { retryAfter: 1 });
      for (const fail of pending) fail(severedBy);
      pending.clear();
      port1.close();
    },
    async listModels() {
      guard();
      // The host's catalog is fixed for its lifetime: one round trip per link, not per request.
      models ??= watch(remote.listModels()).catch((error: unknown) => {
        models = undefined;
        throw error;
      });
      return models;
    },
    async embed(request: EmbedRequest, { signal }: CallOptions): Promise<EmbedResult> {
      guard();
      const id = randomId('emb_');
      const onAbort = () => void remote.cancel(id);
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await watch(remote.embed(request, id));
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    },
    async *chat(request: ChatRequest, { signal }: CallOptions): AsyncGenerator<ChatEvent> {
      guard();
      const id = randomId('gen_');
      const queue: StreamMessage[] = [];
      let wake: (() => void) | undefined;
      let failure: GatewayError | undefined;
      let finished = false;
      const fail = (error: GatewayError) => {
        failure = error;
        wake?.();
      };
      pending.add(fail);
      const onAbort = () => void remote.cancel(id);
      signal.addEventListener('abort', onAbort, { once: true });
      streams.set(id, (messages) => {
        queue.push(...messages);
        wake?.();
      });
      try {
        void Promise.resolve(remote.chat(request, id)).catch((error: unknown) => fail(GatewayError.from(error)));
        for (;;) {
          while (queue.length === 0 && !failure) await new Promise<void>((resolve) => (wake = resolve));
          if (failure) throw failure;
          const message = queue.shift()!;
          if (message.type === 'done' || message.type === 'error') finished = true;
          if (message.type === 'done') return;
          if (message.type === 'error') throw GatewayError.from(message.error);
          yield message;
        }
      } finally {
        streams.delete(id);
        pending.delete(fail);
        signal.removeEventListener('abort', onAbort);
        // Leaving early (cap reached, client gone): stop the worker's generation too.
        if (!finished && !severedBy) void Promise.resolve(remote.cancel(id)).catch(() => {});
      }
    },
  };
}
