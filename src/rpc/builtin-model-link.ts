/**
 * The built-in model's port between the host page and the engine worker: the page serves its
 * `BuiltinModelBackend` (`serveBuiltinModel`), the worker calls it as if it were its own
 * (`connectBuiltinModel`). Typed messages with an id per call, as the engine links' call port:
 * an answer streams one message per piece, one way, and a cancel is one message.
 * @module
 */
import { abortedError, GatewayError } from '../core/errors.ts';
import type { BuiltinCall, BuiltinEvent, BuiltinModelBackend, BuiltinReply } from '../contracts/builtin-model.ts';

interface PortLike {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

/** Page side: answers the worker's calls with `backend`; `close` stops every answer in progress (the worker is gone). */
export function serveBuiltinModel(port: PortLike, backend: BuiltinModelBackend): { close(): void } {
  const running = new Map<number, AbortController>();
  const reply = (message: BuiltinReply) => port.postMessage(message);
  const fail = (id: number, error: unknown) => reply({ id, type: 'error', error: GatewayError.from(error).toJSON() });
  port.onmessage = (event: MessageEvent<BuiltinCall>) => {
    const call = event.data;
    switch (call?.type) {
      case 'availability':
        return void backend.availability().then((value) => reply({ id: call.id, type: 'result', value }), (error) => fail(call.id, error));
      case 'prepare':
        return void backend.prepare((loaded) => reply({ id: call.id, type: 'progress', loaded })).then(() => reply({ id: call.id, type: 'done' }), (error) => fail(call.id, error));
      case 'cancel':
        return running.get(call.id)?.abort(abortedError());
      case 'prompt': {
        const controller = new AbortController();
        running.set(call.id, controller);
        void (async () => {
          try {
            for await (const event of backend.prompt(call.prompt, controller.signal)) reply({ id: call.id, type: 'event', event });
            reply({ id: call.id, type: 'done' });
          } catch (error) {
            fail(call.id, error);
          } finally {
            running.delete(call.id);
          }
        })();
      }
    }
  };
  return {
    close() {
      for (const controller of running.values()) controller.abort(abortedError());
      port.onmessage = null;
    },
  };
}

/** Worker side: the page's backend, over `port`. */
export function connectBuiltinModel(port: PortLike): BuiltinModelBackend {
  let nextId = 1;
  const listeners = new Map<number, (reply: BuiltinReply) => void>();
  port.onmessage = (event: MessageEvent<BuiltinReply>) => listeners.get(event.data?.id)?.(event.data);
  const send = (call: BuiltinCall) => port.postMessage(call);
  /** A call that ends with one `result` or `done`. */
  const once = <T>(call: Omit<BuiltinCall, 'id'>, onProgress?: (loaded: number) => void) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      listeners.set(id, (reply) => {
        if (reply.type === 'progress') return onProgress?.(reply.loaded);
        listeners.delete(id);
        if (reply.type === 'error') reject(GatewayError.from(reply.error));
        else resolve((reply.type === 'result' ? reply.value : undefined) as T);
      });
      send({ ...call, id } as BuiltinCall);
    });
  return {
    availability: () => once({ type: 'availability' }),
    prepare: (onProgress) => once({ type: 'prepare' }, onProgress),
    async *prompt(prompt, signal) {
      const id = nextId++;
      const queue: BuiltinReply[] = [];
      let wake: (() => void) | undefined;
      listeners.set(id, (reply) => {
        queue.push(reply);
        wake?.();
      });
      /** The page has ended the call: nothing to cancel there. */
      let finished = false;
      const cancel = () => {
        // The caller has gone: stop waiting for the page to confirm (the `finally` cancels there).
        queue.push({ id, type: 'error', error: abortedError('while the built-in model was answering').toJSON() });
        wake?.();
      };
      if (signal.aborted) throw abortedError();
      signal.addEventListener('abort', cancel, { once: true });
      send({ id, type: 'prompt', prompt });
      try {
        for (;;) {
          if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const reply = queue.shift()!;
          if (reply.type === 'event') {
            yield reply.event satisfies BuiltinEvent;
            continue;
          }
          finished = reply.type === 'done' || reply.type === 'error';
          if (reply.type === 'error') throw GatewayError.from(reply.error);
          if (reply.type === 'done') return;
        }
      } finally {
        listeners.delete(id);
        signal.removeEventListener('abort', cancel);
        // Ended early by its reader (the gateway has its answer, or the token cap was met): stop the page's session.
        if (!finished || signal.aborted) send({ id, type: 'cancel' });
      }
    },
  };
}
