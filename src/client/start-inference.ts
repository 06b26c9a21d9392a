/**
 * The one call a page makes: registers the service worker, takes part in electing the tab that
 * hosts the engine worker (Web Locks: exactly one per origin; when it closes, another tab takes
 * over), and resolves once this page is controlled, so its very first fetch to the base URL is
 * answered locally.
 * @module
 */
import type { LoadProgress } from '../engines/adapter.ts';
import type { ApiKey } from '../gateway/auth.ts';
import type { ModelStatus } from '../rpc/contract.ts';
import { BUILD, type PageMessage, type WorkerMessage } from './control-messages.ts';
import type { WorkerConfig } from '../worker/default-host.ts';
import { spawnEngineWorker, type EngineWorker } from './spawn-worker.ts';

export interface StartOptions {
  /** Where the API answers: a path (default `/v1`) or a virtual absolute URL such as `https://llm.local/v1`. */
  readonly baseUrl?: string;
  /** The service worker script, as built (default `sw.js` next to the app). */
  readonly serviceWorkerUrl?: string;
  /** Accepted API keys; none (the default) accepts every caller. */
  readonly apiKeys?: readonly ApiKey[];
  /** Engine settings (backend, models kept in memory). */
  readonly engine?: WorkerConfig;
  /** Models to load as soon as this tab hosts the engine. */
  readonly preload?: readonly string[];
  /** Load progress of the engine (in the hosting tab). */
  readonly onProgress?: (progress: LoadProgress) => void;
  /** Called when this tab starts or stops hosting the engine. */
  readonly onHostChange?: (isHost: boolean) => void;
}

export interface Inference {
  readonly baseUrl: string;
  /** Whether this tab hosts the engine worker right now. */
  readonly isHost: boolean;
  /** Model states from the engine (null when another tab hosts it). */
  status(): Promise<readonly ModelStatus[] | null>;
  /** Loads a model in the hosting engine (this tab must host it). */
  load(model: string): Promise<void>;
  /** Replaces the engine worker with a fresh one (in-flight requests fail with a clear error). */
  restartWorker(): Promise<void>;
  /** Stops hosting and releases the engine; the service worker stays registered. */
  stop(): Promise<void>;
}

const LOCK = 'inpage-llm:engine-host';

export async function startInference(options: StartOptions = {}): Promise<Inference> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('Service workers are unavailable here (a private window, or not a secure context): use installFetchShim instead.');
  }
  const baseUrl = options.baseUrl ?? '/v1';
  const script = new URL(options.serviceWorkerUrl ?? `${import.meta.env.BASE_URL}sw.js`, location.href);
  script.searchParams.set('base', baseUrl);
  const container = navigator.serviceWorker;
  const registration = await container.register(script, { type: 'module', updateViaCache: 'none' });
  await controlled(container);
  void registration.update().catch(() => {});

  let engine: EngineWorker | undefined;
  let stopHosting: (() => void) | undefined;
  const post = (message: PageMessage, transfer: Transferable[] = []) => container.controller?.postMessage(message, transfer);
  const offer = () => {
    if (!engine) return;
    const port = engine.connect();
    post({ type: 'ENGINE_PORT', port, apiKeys: options.apiKeys, build: BUILD }, [port]);
  };

  container.addEventListener('message', (event: MessageEvent<WorkerMessage>) => {
    if (event.data?.type === 'PORT_REQUEST') offer();
  });
  // A new service worker (an update) starts without a link: give it one.
  container.addEventListener('controllerchange', () => offer());
  addEventListener('pagehide', () => {
    if (engine) post({ type: 'HOST_GONE' });
  });
  post({ type: 'CACHE_SHELL', urls: loadedUrls() });

  const host = async () => {
    engine = spawnEngineWorker(options.engine, options.onProgress);
    offer();
    options.onHostChange?.(true);
    for (const model of options.preload ?? []) void engine.api.load(model).catch(() => {});
    await new Promise<void>((resolve) => (stopHosting = resolve));
    post({ type: 'HOST_GONE' });
    engine.terminate();
    engine = undefined;
    options.onHostChange?.(false);
  };

  // Host now if the lock is free (resolving only after the worker is offered, so the first fetch
  // finds it); otherwise wait in line to take over when the hosting tab goes away.
  const hostingNow = await new Promise<boolean>((resolve) => {
    void navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) => {
      if (!lock) return resolve(false);
      const hosting = host();
      resolve(true);
      await hosting;
    });
  });
  if (!hostingNow) void navigator.locks.request(LOCK, host);

  return {
    baseUrl,
    get isHost() {
      return engine !== undefined;
    },
    async status() {
      return engine ? engine.api.status() : null;
    },
    async load(model) {
      if (!engine) throw new Error('This tab does not host the engine.');
      await engine.api.load(model);
    },
    async restartWorker() {
      if (!engine) throw new Error('This tab does not host the engine.');
      engine.terminate();
      post({ type: 'HOST_GONE' });
      engine = spawnEngineWorker(options.engine, options.onProgress);
      offer();
    },
    async stop() {
      stopHosting?.();
    },
  };
}

/** Resolves once a service worker controls this page (`ready` alone resolves before `claim()` lands). */
function controlled(container: ServiceWorkerContainer): Promise<void> {
  if (container.controller) return Promise.resolve();
  return new Promise((resolve) => container.addEventListener('controllerchange', () => resolve(), { once: true }));
}

/** The page and the shell files it has loaded so far, for the offline copy. */
function loadedUrls(): string[] {
  const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const shell = new Set(['script', 'link', 'css', 'img', 'other']);
  return [location.href, ...entries.filter((e) => shell.has(e.initiatorType) && !e.name.includes('/models/')).map((e) => e.name)];
}
