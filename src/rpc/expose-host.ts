/**
 * Serves a ModelHost over a comlink endpoint (the worker side of the contract).
 * @module
 */
import { expose, type Endpoint } from 'comlink';
import type { ChatRequest, EmbedRequest, EmbedResult } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { ModelHost } from '../engines/hosting/model-host.ts';
import type { CallMessage, CallReply, EngineHostApi, StreamMessage } from '../contracts/engine-host.ts';

export interface HostService {
  /** Publishes load progress to every subscribed caller. */
  progress(progress: LoadProgress): void;
  /** Exposes the API on another endpoint (each caller gets its own port and call port). */
  serve(endpoint: Endpoint): void;
  /**
   * Ends every call in flight or waiting, on every port, with `error` now, without waiting for the
   * engine to notice (an engine whose GPU device is gone may never answer). Returns how many.
   */
  failAll(error: GatewayError): number;
  /** `failAll`, and every call that arrives later is answered with `error` at once (the worker is closing). */
  closeWith(error: GatewayError): void;
}

/** A call in flight: its abort, and how to answer it with an error at once (once only). */
interface RunningCall {
  readonly controller: AbortController;
  fail(error: GatewayError): void;
}

export function createHostService(host: ModelHost): HostService {
  const listeners = new Set<(progress: LoadProgress) => void>();
  const ports = new Set<Map<number, RunningCall>>();
  let closing: GatewayError | undefined;

  /** Serves one caller's call port: its calls, their cancels and their answers. Returns a closer. */
  const serveCalls = (port: MessagePort): (() => void) => {
    const running = new Map<number, RunningCall>();
    ports.add(running);
    const reply = (message: CallReply, transfer: Transferable[] = []) => port.postMessage(message, transfer);
    /** Registers a call; `answered()` says whether it was already failed (then its own end is dropped). */
    const start = (id: number, failure: (error: GatewayError) => CallReply) => {
      const controller = new AbortController();
      let failed = false;
      running.set(id, {
        controller,
        fail(error) {
          if (failed) return;
          failed = true;
          running.delete(id);
          reply(failure(error));
          controller.abort(error);
        },
      });
      return { signal: controller.signal, answered: () => failed };
    };

    const chat = async (id: number, request: ChatRequest, whole: boolean) => {
      const { signal, answered } = start(id, (error) => ({ id, messages: [{ type: 'error', error: error.toJSON() }] }));
      // Streamed: one message per event (~10 µs each, no added latency), except that `end` waits for
      // `done`, which follows at once. Whole: everything in one message at the end.
      const held: StreamMessage[] = [];
      try {
        for await (const event of host.chat(request, { signal })) {
          if (answered()) break;
          if (whole || event.type === 'end') held.push(event);
          else reply({ id, messages: [event] });
        }
        held.push({ type: 'done' });
      } catch (error) {
        held.push({ type: 'error', error: GatewayError.from(error).toJSON() });
      }
      if (answered()) return;
      running.delete(id);
      reply({ id, messages: held });
    };

    const embed = async (id: number, request: EmbedRequest) => {
      const { signal, answered } = start(id, (error) => ({ id, error: error.toJSON() }));
      let answer: CallReply;
      let transfer: Transferable[] = [];
      try {
        const result = await host.embed(request, { signal });
        answer = { id, result };
        // Move the vectors' memory instead of copying it.
        transfer = uniqueBuffers(result);
      } catch (error) {
        answer = { id, error: GatewayError.from(error).toJSON() };
      }
      if (answered()) return;
      running.delete(id);
      reply(answer, transfer);
    };

    port.onmessage = ({ data: call }: MessageEvent<CallMessage>) => {
      if (closing && call.type !== 'cancel') {
        return call.type === 'chat' ? reply({ id: call.id, messages: [{ type: 'error', error: closing.toJSON() }] }) : reply({ id: call.id, error: closing.toJSON() });
      }
      switch (call.type) {
        case 'chat':
          return void chat(call.id, call.request, call.whole);
        case 'embed':
          return void embed(call.id, call.request);
        case 'cancel':
          return running.get(call.id)?.controller.abort();
      }
    };
    return () => {
      port.close();
      ports.delete(running);
      for (const call of running.values()) call.controller.abort();
    };
  };

  /** The API as one caller sees it: its calls go over its own call port. */
  const apiFor = (): EngineHostApi => {
    let close: (() => void) | undefined;
    return {
      ...shared,
      openCalls(port) {
        close?.();
        close = serveCalls(port);
      },
    };
  };

  /** comlink passes on only an Error's message: a failure crosses as GatewayErrorData, so its code and status survive. */
  const asData = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw GatewayError.from(error).toJSON();
    }
  };

  const shared: Omit<EngineHostApi, 'openCalls'> = {
    listModels: () => asData(() => host.listModels()),
    load: (model) => asData(() => host.load(model)),
    async status() {
      return host.status();
    },
    modelStates: () => asData(() => host.modelStates()),
    onProgress(listener) {
      listeners.add(listener);
    },
    async ping() {
      return 'pong';
    },
  };

  return {
    progress(progress) {
      for (const listener of listeners) {
        Promise.resolve(listener(progress)).catch(() => listeners.delete(listener));
      }
    },
    serve(endpoint) {
      expose(apiFor(), endpoint);
    },
    failAll(error) {
      let count = 0;
      for (const running of ports) {
        for (const call of [...running.values()]) {
          call.fail(error);
          count++;
        }
      }
      return count;
    },
    closeWith(error) {
      closing = error;
      this.failAll(error);
    },
  };
}

/** The vectors' buffers, each once, when each vector owns its whole buffer (else copying is safer). */
function uniqueBuffers(result: EmbedResult): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const v of result.embeddings) {
    if (!(v.buffer instanceof ArrayBuffer) || v.byteOffset !== 0 || v.byteLength !== v.buffer.byteLength) return [];
    buffers.add(v.buffer);
  }
  return [...buffers];
}
