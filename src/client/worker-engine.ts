/**
 * An Engine backed by a dedicated engine worker started by this page: what the fetch shim and the
 * msw handlers use when there is no service worker in between.
 * @module
 */
import { wrap } from 'comlink';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { EngineHostApi } from '../contracts/engine-host.ts';
import { linkEngine, type EngineLink } from '../rpc/engine-link.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { spawnEngineWorker, type CreateEngineWorker } from './spawn-worker.ts';

/** `engineWorker`: starts the worker (default: the product's, at `/inpage-llm/engine-worker.js`). */
export function createWorkerEngine(config: WorkerConfig = {}, onProgress?: (progress: LoadProgress) => void, engineWorker?: CreateEngineWorker): EngineLink & { terminate(): void } {
  const worker = spawnEngineWorker(config, onProgress, engineWorker);
  const link = linkEngine(wrap<EngineHostApi>(worker.connect()));
  return Object.assign(link, {
    terminate() {
      worker.terminate();
      link.sever('The engine worker was stopped.');
    },
  });
}
