/**
 * An Engine backed by a dedicated engine worker started by this page: what the fetch shim and the
 * msw handlers use when there is no service worker in between. A worker that ends on its own (its
 * GPU device lost, a crash) has its calls in flight failed with a 503 and is replaced by a fresh one
 * for the next call.
 * @module
 */
import { wrap } from 'comlink';
import { describeExit, type EngineExit } from '../contracts/control-messages.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { EngineHostApi } from '../contracts/engine-host.ts';
import { GatewayError } from '../core/errors.ts';
import { linkEngine, type EngineLink } from '../rpc/engine-link.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { spawnEngineWorker, type CreateEngineWorker, type EngineWorker } from './spawn-worker.ts';

/** `engineWorker`: starts the worker (default: the product's, at `/inpage-llm/engine-worker.js`). */
export function createWorkerEngine(config: WorkerConfig = {}, onProgress?: (progress: LoadProgress) => void, engineWorker?: CreateEngineWorker): EngineLink & { terminate(): void } {
  let worker: EngineWorker;
  let link: EngineLink;
  let stopped: GatewayError | undefined;
  const start = (previousExit?: EngineExit) => {
    worker = spawnEngineWorker(config, { onProgress, previousExit, onExit: restart }, engineWorker);
    link = linkEngine(wrap<EngineHostApi>(worker.connect()));
  };
  function restart(exit: EngineExit) {
    const { reason, code } = describeExit(exit);
    link.sever(reason, code);
    if (!stopped) start(exit);
  }
  start();
  const current = () => {
    if (stopped) throw stopped;
    return link;
  };
  return {
    get severed() {
      return stopped !== undefined;
    },
    sever(reason) {
      stopped = new GatewayError('engine_unavailable', reason, { retryAfter: 1 });
      link.sever(reason);
    },
    listModels: () => current().listModels(),
    chat: (request, call) => current().chat(request, call),
    embed: (request, call) => current().embed(request, call),
    modelStates: async () => (await current().modelStates?.()) ?? [],
    terminate() {
      stopped ??= new GatewayError('engine_unavailable', 'The engine worker was stopped.');
      worker.terminate();
      link.sever('The engine worker was stopped.');
    },
  };
}
