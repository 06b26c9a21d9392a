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

export interface EngineWorker {
  /** The page's own handle on the worker. */
  readonly api: Remote<EngineHostApi>;
  /** A fresh port to the worker, for another caller. */
  connect(): MessagePort;
  terminate(): void;
}

/** Starts an engine worker: the product's own by default; an app may bring its own (see `serveEngineWorker`). */
export type CreateEngineWorker = () => Worker;

export const createDefaultEngineWorker: CreateEngineWorker = () => new Worker(new URL('../worker/main.ts', import.meta.url), { type: 'module', name: 'inpage-llm-engine' });

export function spawnEngineWorker(config: WorkerConfig = {}, onProgress?: (progress: LoadProgress) => void, create: CreateEngineWorker = createDefaultEngineWorker): EngineWorker {
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
