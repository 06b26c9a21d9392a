/**
 * Serves a ModelHost over a comlink endpoint (the worker side of the contract).
 * @module
 */
import { expose, releaseProxy, type Endpoint, type Remote } from 'comlink';
import { GatewayError } from '../core/errors.ts';
import type { LoadProgress } from '../engines/adapter.ts';
import type { ModelHost } from '../engines/model-host.ts';
import type { EngineHostApi } from './contract.ts';

export interface HostService {
  readonly api: EngineHostApi;
  /** Publishes load progress to every subscribed caller. */
  progress(progress: LoadProgress): void;
  /** Exposes the API on another endpoint (each caller gets its own port). */
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

  const api: EngineHostApi = {
    listModels: () => host.listModels(),
    chat(request, streamId, sink) {
      const { signal, done } = track(streamId);
      void (async () => {
        // One message per event: ~10 µs each, negligible at real token rates, and no added latency.
        try {
          for await (const event of host.chat(request, { signal })) sink([event]);
          sink([{ type: 'done' }]);
        } catch (error) {
          sink([{ type: 'error', error: GatewayError.from(error).toJSON() }]);
        } finally {
          done();
          // The callback is a comlink proxy with its own MessageChannel: close it.
          (sink as Remote<typeof sink>)[releaseProxy]?.();
        }
      })();
    },
    async embed(request, callId) {
      const { signal, done } = track(callId);
      try {
        return await host.embed(request, { signal });
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
    api,
    progress(progress) {
      for (const listener of listeners) {
        Promise.resolve(listener(progress)).catch(() => listeners.delete(listener));
      }
    },
    serve(endpoint) {
      expose(api, endpoint);
    },
  };
}
