/**
 * Serves a ModelHost over a comlink endpoint (the worker side of the contract).
 * @module
 */
import { expose, transfer, type Endpoint } from 'comlink';
import { GatewayError } from '../core/errors.ts';
import type { LoadProgress } from '../engines/adapter.ts';
import type { ModelHost } from '../engines/model-host.ts';
import type { EmbedResult } from '../core/engine.ts';
import type { EngineHostApi, StreamEnvelope, StreamMessage } from './contract.ts';

export interface HostService {
  /** Publishes load progress to every subscribed caller. */
  progress(progress: LoadProgress): void;
  /** Exposes the API on another endpoint (each caller gets its own port and stream port). */
  serve(endpoint: Endpoint): void;
}

export function createHostService(host: ModelHost): HostService {
  const running = new Map<string, AbortController>();
  const listeners = new Set<(progress: LoadProgress) => void>();

  const track = (id: string) => {
    const controller = new AbortController();
    running.set(id, controller);
    return { signal: controller.signal, done: () => running.delete(id) };
  };

  /** The API as one caller sees it: its streams go to its own stream port. */
  const apiFor = (): EngineHostApi => {
    let streams: MessagePort | undefined;
    const post = (id: string, messages: readonly StreamMessage[]) => streams?.postMessage({ id, messages } satisfies StreamEnvelope);
    return {
      ...shared,
      openStreams(port) {
        streams?.close();
        streams = port;
      },
      chat(request, streamId) {
        const { signal, done } = track(streamId);
        void (async () => {
          // One message per event: ~10 µs each, negligible at real token rates, and no added latency.
          try {
            for await (const event of host.chat(request, { signal })) post(streamId, [event]);
            post(streamId, [{ type: 'done' }]);
          } catch (error) {
            post(streamId, [{ type: 'error', error: GatewayError.from(error).toJSON() }]);
          } finally {
            done();
          }
        })();
      },
    };
  };

  const shared: Omit<EngineHostApi, 'openStreams' | 'chat'> = {
    listModels: () => host.listModels(),
    async embed(request, callId) {
      const { signal, done } = track(callId);
      try {
        const result = await host.embed(request, { signal });
        // Move the vectors' memory instead of copying it.
        return transfer(result, uniqueBuffers(result));
      } catch (error) {
        throw GatewayError.from(error).toJSON();
      } finally {
        done();
      }
    },
    cancel(id) {
      running.get(id)?.abort();
    },
    async load(model) {
      try {
        await host.load(model);
      } catch (error) {
        throw GatewayError.from(error).toJSON();
      }
    },
    async status() {
      return host.status();
    },
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
