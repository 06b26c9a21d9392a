/**
 * What the host tab does while it hosts: spawns the engine worker, replaces it when it ends on its
 * own or a restart is asked (every link to the old one is cut), offers ports to it (the service
 * worker's own, and one for each tab that asks through the service worker), tells the service
 * worker the page's remote models, and preloads. When it hosts is the election's to say
 * (host-election.ts); this only does it.
 * @module
 */
import { BUILD, describeExit, type EngineExit, type PageMessage } from '../contracts/control-messages.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import type { ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import type { ApiKey } from '../gateway/auth.ts';
import type { WorkerEnd } from './host-election.ts';
import type { PageEngineLink } from './page-engine-link.ts';
import { spawnEngineWorker, type CreateEngineWorker, type EngineWorker } from './spawn-worker.ts';

export interface EngineHostingOptions {
  readonly config?: WorkerConfig;
  readonly createWorker: CreateEngineWorker;
  /** Offered with each port to the service worker, whose gateway checks them. */
  readonly apiKeys?: readonly ApiKey[];
  /** Loaded as soon as a worker starts hosting. */
  readonly preload?: readonly string[];
  /**
   * The page's remote models (read from its own settings: `remoteModelsOf`), told to the service
   * worker after each port it is offered, so that it serves them with no tab hosting the engine.
   * Undefined: the page could not read them (its settings are refused), and tells nothing.
   */
  readonly remoteModels?: readonly ModelInfo[];
  /** To the service worker. */
  post(message: PageMessage, transfer?: Transferable[]): void;
  /** This page's own link, moved to the worker while it hosts. */
  readonly pageEngineLink?: PageEngineLink;
  readonly onProgress?: (progress: LoadProgress) => void;
  readonly onHostChange?: (isHost: boolean) => void;
  /** After a replacement: `exit` when the worker ended on its own, none for a restart. */
  readonly onEngineExit?: (exit?: EngineExit) => void;
  /** The worker ended on its own (its GPU device lost, a crash): replacing it is the election's call. */
  readonly onWorkerEnded: (end: WorkerEnd<EngineExit>) => void;
}

export interface EngineHosting {
  /** The engine worker, while this tab hosts. */
  readonly worker: EngineWorker | undefined;
  /** Spawns the worker and offers it; `lockId` is this tab's Web Locks id, given with ports to other tabs. */
  start(lockId: string | undefined): void;
  /** Ends the worker, and tells the service worker and this page's link. */
  stop(): void;
  /** A fresh worker in place of the current one; links to the old one are cut with `end.reason`. */
  replace(end: WorkerEnd<EngineExit>): void;
  /** A port to the worker for the service worker, or (`forClient`) for another tab. */
  offer(forClient?: string): void;
  /** The page is going away: the service worker stops sending it requests at once. */
  announceLeaving(): void;
  /**
   * A call to the worker itself (`load`, `status`: comlink, which never settles once its worker is
   * gone), ended with the worker: a replacement rejects it.
   */
  untilGone<T>(call: Promise<T>): Promise<T>;
}

export function createEngineHosting(options: EngineHostingOptions): EngineHosting {
  const { post, pageEngineLink } = options;
  let worker: EngineWorker | undefined;
  let lockId: string | undefined;
  let workerGone = goneSignal();

  /** A worker that ends on its own is replaced as a restart is (the election decides: only while hosting). */
  const spawn = (previousExit?: EngineExit): EngineWorker =>
    spawnEngineWorker(options.config, { onProgress: options.onProgress, previousExit, onExit: (exit) => options.onWorkerEnded({ reason: describeExit(exit).reason, exit }) }, options.createWorker);

  const offer = (forClient?: string) => {
    if (!worker) return;
    const port = worker.connect();
    post({ type: 'ENGINE_PORT', port, apiKeys: options.apiKeys, build: BUILD, ...(forClient ? { for: forClient, hostLock: lockId } : {}) }, [port]);
    // After the port: the service worker takes the list only from the tab whose port it holds.
    if (!forClient && options.remoteModels) post({ type: 'REMOTE_MODELS', models: options.remoteModels });
  };

  return {
    get worker() {
      return worker;
    },
    start(id) {
      lockId = id;
      // A link this tab held to a former host is dead or about to be: its own worker replaces it,
      // and calls already waiting for a port get this one.
      pageEngineLink?.cut('The inference engine moved to this tab; this request was cut off.');
      worker = spawn();
      pageEngineLink?.toOwnWorker(worker.connect());
      offer();
      options.onHostChange?.(true);
      for (const model of options.preload ?? []) void untilGone(worker.api.load(model)).catch(() => {});
    },
    stop() {
      if (!worker) return;
      post({ type: 'HOST_GONE' });
      pageEngineLink?.cut('This tab stopped hosting the inference engine; this request was cut off.');
      worker.terminate();
      worker = undefined;
      options.onHostChange?.(false);
    },
    replace({ reason, exit }) {
      if (!worker) return;
      worker.terminate();
      const code = exit ? describeExit(exit).code : 'engine_unavailable';
      workerGone.reject(new GatewayError(code, reason, { retryAfter: 1 }));
      workerGone = goneSignal();
      // Staying: this tab keeps its place as host while it offers the new worker.
      post({ type: 'HOST_GONE', staying: true, ...(exit ? { exit } : {}) });
      pageEngineLink?.cut(reason, code);
      worker = spawn(exit);
      pageEngineLink?.toOwnWorker(worker.connect());
      offer();
      options.onEngineExit?.(exit);
    },
    offer,
    announceLeaving() {
      if (worker) post({ type: 'HOST_GONE' });
    },
    untilGone,
  };

  function untilGone<T>(call: Promise<T>): Promise<T> {
    return Promise.race([call, workerGone.promise]);
  }
}

/** A promise that only ever rejects, when `reject` is called; unobserved, its rejection is no error. */
function goneSignal(): { promise: Promise<never>; reject(error: unknown): void } {
  let reject!: (error: unknown) => void;
  const promise = new Promise<never>((_, fail) => (reject = fail));
  promise.catch(() => {});
  return { promise, reject };
}
