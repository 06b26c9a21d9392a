/**
 * Starts the engine worker and hands out ports to it: one for the page itself, one for each
 * other caller (the service worker, other tabs). Each caller gets its own port (comlink example 05).
 * @module
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { EngineHostApi } from '../contracts/engine-host.ts';
import type { EngineExit, EngineWorkerEvent, EngineWorkerMessage } from '../contracts/control-messages.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { ENGINE_WORKER_FILE, RUNTIME_DIR } from '../contracts/runtime-layout.ts';
import { createPromptApiBackend } from '../engines/builtin/prompt-api-backend.ts';
import type { LanguageModelStatic } from '../engines/builtin/prompt-api.ts';
import { serveBuiltinModel } from '../rpc/builtin-model-link.ts';

export interface EngineWorker {
  /** The page's own handle on the worker. */
  readonly api: Remote<EngineHostApi>;
  /** A fresh port to the worker, for another caller. */
  connect(): MessagePort;
  /** Stops it on purpose: `onExit` is not called for this. */
  terminate(): void;
}

export interface SpawnOptions {
  readonly onProgress?: (progress: LoadProgress) => void;
  /**
   * Called once if the worker ends without being terminated: it closed itself after losing its GPU
   * device, or it crashed (an out-of-memory kill, a fatal error). Seen through a Web Lock the worker
   * holds for its life, so it is known at once, without polling.
   */
  readonly onExit?: (exit: EngineExit) => void;
  /** Why the worker before this one ended, for its model states. */
  readonly previousExit?: EngineExit;
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

export function spawnEngineWorker(config: WorkerConfig = {}, options: SpawnOptions = {}, create: CreateEngineWorker = engineWorkerAt()): EngineWorker {
  const { onProgress, onExit, previousExit } = options;
  const worker = create();
  const post = (message: EngineWorkerMessage<WorkerConfig>, transfer: Transferable[] = []) => worker.postMessage(message, transfer);
  let ended = false;
  const lifeLock = `inpage-llm:engine-worker:${crypto.randomUUID()}`;
  const exited = (exit: EngineExit) => {
    if (ended) return;
    ended = true;
    onExit?.(exit);
  };
  worker.addEventListener('message', (event: MessageEvent<EngineWorkerEvent>) => {
    // It said why it is closing: replace it now, rather than let calls reach it meanwhile.
    if (event.data?.type === 'EXITING') exited(event.data.exit);
    // Asked only once the worker holds it: being granted it then means the worker is gone.
    else if (event.data?.type === 'ALIVE' && onExit) {
      void navigator.locks.request(lifeLock, () =>
        exited({ reason: 'crashed', message: 'The engine worker ended unexpectedly (a crash, or the browser reclaiming its memory).', at: new Date().toISOString() }),
      );
    }
  });
  // The Prompt API is on `window` only: this page runs the built-in model for its worker. Read at
  // each call, so a `LanguageModel` installed later (a polyfill, a test double) is found.
  const builtin = new MessageChannel();
  const builtinService = serveBuiltinModel(builtin.port1, createPromptApiBackend(() => (globalThis as { LanguageModel?: LanguageModelStatic }).LanguageModel));
  post({ type: 'CONFIGURE', config, lifeLock, builtinModel: builtin.port2, ...(previousExit ? { previousExit } : {}) }, [builtin.port2]);
  const connect = () => {
    const { port1, port2 } = new MessageChannel();
    post({ type: 'CONNECT', port: port1 }, [port1]);
    return port2;
  };
  const api = wrap<EngineHostApi>(connect());
  if (onProgress) void api.onProgress(proxy(onProgress));
  return {
    api,
    connect,
    terminate: () => {
      ended = true;
      worker.terminate();
      // Sessions the old worker asked for are destroyed with it.
      builtinService.close();
      builtin.port1.close();
    },
  };
}
