/**
 * The caller side of the contract: an Engine whose work runs in the engine worker. Calls go over
 * this link's own call port; aborts become `cancel`; errors are rebuilt from data. A host that
 * stops answering (its tab closed, its worker died) fails pending calls with a 503 instead of
 * hanging.
 * @module
 */
import { transfer, type Remote } from 'comlink';
import type { CallOptions, ChatEvent, ChatRequest, EmbedRequest, EmbedResult, Engine, ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import type { CallMessage, CallReply, EngineHostApi, StreamMessage } from '../contracts/engine-host.ts';

export type SeverCode = 'engine_unavailable' | 'device_lost';

export interface EngineLink extends Engine {
  /** Fails every pending call with 503 (the host is gone) and refuses new ones. */
  /** `code`: what the cut calls fail with (default `engine_unavailable`; `device_lost` when its GPU device went). */
  sever(reason: string, code?: SeverCode): void;
  readonly severed: boolean;
}

export function linkEngine(remote: Remote<EngineHostApi>): EngineLink {
  const pending = new Set<(error: GatewayError) => void>();
  let severedBy: GatewayError | undefined;
  let models: Promise<readonly ModelInfo[]> | undefined;
  // One port carries every call of this link; replies are routed to their call by id.
  const calls = new Map<number, (reply: CallReply) => void>();
  let nextId = 0;
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = ({ data }: MessageEvent<CallReply>) => calls.get(data.id)?.(data);
  const send = (message: CallMessage) => port1.postMessage(message);
  void Promise.resolve(remote.openCalls(transfer(port2, [port2]))).catch(() => {});

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
    sever(reason, code = 'engine_unavailable') {
      severedBy = new GatewayError(code, reason, { retryAfter: 1 });
      for (const fail of pending) fail(severedBy);
      pending.clear();
      calls.clear();
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
    async modelStates() {
      guard();
      // A control call each time, not memoised like the catalog: states change with every load.
      return watch(remote.modelStates());
    },
    async embed(request: EmbedRequest, { signal }: CallOptions): Promise<EmbedResult> {
      guard();
      const id = nextId++;
      const onAbort = () => send({ type: 'cancel', id });
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await watch(
          new Promise<EmbedResult>((resolve, reject) => {
            calls.set(id, (reply) => ('result' in reply ? resolve(reply.result) : reject('error' in reply ? reply.error : reply)));
            send({ type: 'embed', id, request });
          }),
        );
      } finally {
        calls.delete(id);
        signal.removeEventListener('abort', onAbort);
      }
    },
    async *chat(request: ChatRequest, { signal, whole = false }: CallOptions): AsyncGenerator<ChatEvent> {
      guard();
      const id = nextId++;
      const queue: StreamMessage[] = [];
      let wake: (() => void) | undefined;
      let failure: GatewayError | undefined;
      let settled = false;
      const fail = (error: GatewayError) => {
        failure = error;
        wake?.();
      };
      // The worker answers a cancel with the stream's end, so one cancel per call is enough.
      const cancel = () => {
        if (settled || severedBy) return;
        settled = true;
        send({ type: 'cancel', id });
      };
      pending.add(fail);
      signal.addEventListener('abort', cancel, { once: true });
      calls.set(id, (reply) => {
        if (!('messages' in reply)) return;
        // The worker is done once it sends the end, even if the consumer stops reading before it.
        if (reply.messages.some((m) => m.type === 'done' || m.type === 'error')) settled = true;
        queue.push(...reply.messages);
        wake?.();
      });
      try {
        send({ type: 'chat', id, request, whole });
        for (;;) {
          while (queue.length === 0 && !failure) await new Promise<void>((resolve) => (wake = resolve));
          if (failure) throw failure;
          const message = queue.shift()!;
          if (message.type === 'done' || message.type === 'error') settled = true;
          if (message.type === 'done') return;
          if (message.type === 'error') throw GatewayError.from(message.error);
          yield message;
        }
      } finally {
        calls.delete(id);
        pending.delete(fail);
        signal.removeEventListener('abort', cancel);
        // Leaving early (cap reached, client gone): stop the worker's generation too.
        cancel();
      }
    },
  };
}
