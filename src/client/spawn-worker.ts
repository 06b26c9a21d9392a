/**
 * Starts the engine worker and hands out ports to it: one for the page itself, one for each
 * other caller (the service worker, other tabs). Each caller gets its own port (comlink example 05).
 * @module
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { EngineHostApi } from '../contracts/engine-host.ts';
import type { EngineWorkerMessage } from '../contracts/control-messages.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { ENGINE_WORKER_FILE, RUNTIME_DIR } from '../contracts/runtime-layout.ts';

export interface EngineWorker {
  /** The page's own handle on the worker. */
  readonly api: Remote<EngineHostApi>;
  /** A fresh port to the worker, for another caller. */
  connect(): MessagePort;
  terminate(): void;
}

/** Starts an engine worker: the product's own by default; an app may bring its own (see `serveEngineWorker`). */
export type CreateEngineWorker = () => Worker;

/** Where `npx inpage-llm init` and the vite plugin put the product's engine worker. */
export const DEFAULT_ENGINE_WORKER_URL = `/${RUNTIME_DIR}/${ENGINE_WORKER_FILE}`;

/** Starts the product's engine worker from its script URL. */
export const engineWorkerAt =
  (url: string | URL = DEFAULT_ENGINE_WORKER_URL): CreateEngineWorker =>
  () =>
    new Worker(url, { type: 'module', name: 'inpage-llm-engine' });

export function spawnEngineWorker(config: WorkerConfig = {}, onProgress?: (progress: LoadProgress) => void, create: CreateEngineWorker = engineWorkerAt()): EngineWorker {
  const worker = create();
  const post = (message: EngineWorkerMessage<WorkerConfig>, transfer: Transferable[] = []) => worker.postMessage(message, transfer);
  post({ type: 'CONFIGURE', config });
  const connect = () => {
    const { port1, port2 } = new MessageChannel();
    post({ type: 'CONNECT', port: port1 }, [port1]);
    return port2;
  };
  const api = wrap<EngineHostApi>(connect());
  if (onProgress) void api.onProgress(proxy(onProgress));
  return { api, connect, terminate: () => worker.terminate() };
}
