/**
 * The one call a page makes: registers the service worker (register-service-worker.ts), takes part
 * in electing the tab that hosts the engine worker (host-election.ts: Web Locks, exactly one per
 * origin; when it closes, another tab takes over), hosts it while elected (engine-hosting.ts), and
 * resolves once this page is controlled, so its very first fetch to the base URL is answered.
 *
 * The page answers its own requests in the page (which-gateway.ts), over an engine link of its own
 * (page-engine-link.ts: to the host tab's worker directly, or through a port the service worker
 * passes on once): a browser cuts a service-worker fetch whose response has not begun within 5
 * minutes (a long model load, a deep queue), and these requests then never meet that limit. The
 * service worker answers every other context. See docs/decisions/service-worker-limits.md.
 * @module
 */
import type { LoadProgress, ModelStatus } from '../contracts/model-progress.ts';
import type { EngineExit, PageMessage, WorkerMessage } from '../contracts/control-messages.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import type { ModelInfo } from '../core/engine.ts';
import { remoteModelsOf } from '../engines/catalog/app-models.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';
import { createEngineHosting } from './engine-hosting.ts';
import { installFetchShim } from './fetch-shim.ts';
import { createHostElection, holdsHostLock } from './host-election.ts';
import { createPageEngineLink } from './page-engine-link.ts';
import { createStoragePersistence } from './persistent-storage.ts';
import { registerServiceWorker, type ServiceWorkerInfo } from './register-service-worker.ts';
import { engineWorkerAt, type CreateEngineWorker } from './spawn-worker.ts';
import { answersInPage } from './which-gateway.ts';

export type { ServiceWorkerInfo } from './register-service-worker.ts';

export interface StartOptions {
  /** Where the API answers: a path (default `/v1`) or a virtual absolute URL such as `https://llm.local/v1`. */
  readonly baseUrl?: string;
  /**
   * The service worker script (default `/inpage-llm-sw.js`, where `npx inpage-llm init` and the
   * vite plugin put it). An app with a service worker of its own names that one; it must import
   * ours (see `inpage-llm/service-worker`).
   */
  readonly serviceWorkerUrl?: string;
  /**
   * How to load `serviceWorkerUrl` (default `module`; the product's script loads either way). An
   * app's own worker that pulls ours in with `importScripts` is a `classic` one.
   */
  readonly serviceWorkerType?: WorkerType;
  /** The engine worker script (default `/inpage-llm/engine-worker.js`). */
  readonly engineWorkerUrl?: string;
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
  /**
   * Called when this tab's engine worker was replaced: after `restartWorker()` (no argument), or
   * because it ended on its own (`exit` says why: its GPU device was lost, or it crashed).
   */
  readonly onEngineExit?: (exit?: EngineExit) => void;
  /**
   * Answer this page's own requests in the page (default true), so that they never depend on the
   * service worker's lifetime. false: through the service worker, like every other context. Only
   * `fetch` calls made after `startInference` resolves are answered in the page (a client built
   * earlier keeps the fetch it was given, and is answered by the service worker).
   */
  readonly inPage?: boolean;
  /** Starts the engine worker, when the app brings its own (see `serveEngineWorker`). */
  readonly engineWorker?: CreateEngineWorker;
  /**
   * Have the product's service worker make this app's own pages cross-origin isolated (default
   * false): it adds `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy:
   * credentialless` (`require-corp` where the browser lacks it) to the pages and worker scripts it
   * passes on, so the CPU engine runs on every core (WebAssembly threads need
   * SharedArrayBuffer). A page loaded before the worker controlled it has no such headers: the
   * first visit reloads once. What it costs (cross-origin popups lose their opener, cross-origin
   * iframes and resources must allow it): docs/guides/cross-origin-isolation.md. Not needed where
   * the server sends the headers itself (the vite plugin does in dev and preview).
   */
  readonly crossOriginIsolation?: boolean;
}

export interface Inference {
  readonly baseUrl: string;
  /** The service worker's version against this library's (a copied worker may be stale). */
  readonly serviceWorker: ServiceWorkerInfo;
  /** Whether this tab hosts the engine worker right now. */
  readonly isHost: boolean;
  /** Model states from the engine (null when another tab hosts it). */
  status(): Promise<readonly ModelStatus[] | null>;
  /** Loads a model in the hosting engine (this tab must host it). */
  load(model: string): Promise<void>;
  /** Replaces the engine worker with a fresh one (in-flight requests fail with a clear error). */
  restartWorker(): Promise<void>;
  /**
   * This origin's storage: bytes used and allowed, and whether the browser granted persistent
   * storage (asked the first time a model's files are downloaded, so that they are not evicted
   * under storage pressure); `persisted` is undefined until it was asked.
   */
  storage(): Promise<{ readonly usage?: number; readonly quota?: number; readonly persisted?: boolean }>;
  /**
   * Stops hosting and releases the engine, or, in a tab waiting to host, leaves the line; for good
   * (the tab's own requests still go to the host tab). The service worker stays registered.
   */
  stop(): Promise<void>;
}

/** The host lock: whoever holds it hosts the engine worker for the origin. */
const HOST_LOCK = 'inpage-llm:engine-host';

export async function startInference(options: StartOptions = {}): Promise<Inference> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('Service workers are unavailable here (a private window, or not a secure context): use installFetchShim instead.');
  }
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const registered = await registerServiceWorker({ ...options, baseUrl });
  if (registered === 'reloading') return new Promise<never>(() => {});
  const { container } = registered;
  const post = (message: PageMessage, transfer: Transferable[] = []) => container.controller?.postMessage(message, transfer);
  const remoteModels = pageRemoteModels(options.engine);
  const persistence = createStoragePersistence();

  // This page's own link: to its own worker while it hosts, else to the host tab's.
  const pageEngineLink = answersInPage(options)
    ? createPageEngineLink({ ownWorker: () => hosting.worker, post, apiKey: keyText(options.apiKeys?.[0]), hostHoldsLock: (id) => holdsHostLock(navigator.locks, HOST_LOCK, id) })
    : undefined;
  const hosting = createEngineHosting({
    config: options.engine,
    createWorker: options.engineWorker ?? engineWorkerAt(options.engineWorkerUrl),
    apiKeys: options.apiKeys,
    preload: options.preload,
    remoteModels,
    post,
    pageEngineLink,
    onProgress: (progress) => {
      persistence.watch(progress);
      options.onProgress?.(progress);
    },
    onHostChange: options.onHostChange,
    onEngineExit: options.onEngineExit,
    onWorkerEnded: (end) => election.send({ type: 'workerEnded', ...end }),
  });
  const election = createHostElection<EngineExit>({
    locks: navigator.locks,
    lockName: HOST_LOCK,
    effects: {
      host: (lockId) => hosting.start(lockId),
      unhost: () => hosting.stop(),
      replaceWorker: (end) => hosting.replace(end),
      announceLeaving: () => hosting.announceLeaving(),
    },
  });
  if (pageEngineLink) installFetchShim({ engine: pageEngineLink.engine, baseUrl, apiKeys: options.apiKeys, ...(remoteModels ? { knownModels: remoteModels } : {}) });

  container.addEventListener('message', (event: MessageEvent<WorkerMessage>) => {
    const message = event.data;
    if (message?.type === 'PORT_REQUEST') hosting.offer(message.for);
    else if (message?.type === 'ENGINE_PORT' || message?.type === 'HOST_GONE') {
      if (pageEngineLink) pageEngineLink.receive(message);
      else if (message.type === 'ENGINE_PORT') message.port.close();
    }
  });
  // A new service worker (an update) starts without a link: give it one.
  container.addEventListener('controllerchange', () => hosting.offer());
  addEventListener('pagehide', () => election.send({ type: 'pageHidden' }));
  post({ type: 'CACHE_SHELL', urls: loadedUrls() });

  // Hosts now if the lock is free (resolving only after the worker is offered, so the first fetch
  // finds it); otherwise waits in line to take over when the hosting tab goes away.
  await election.start();

  const hostOnly = () => {
    if (!hosting.worker) throw new Error('This tab does not host the engine.');
    return hosting.worker;
  };
  return {
    baseUrl,
    serviceWorker: registered.info,
    get isHost() {
      return hosting.worker !== undefined;
    },
    async status() {
      return hosting.worker ? hosting.untilGone(hosting.worker.api.status()) : null;
    },
    async load(model) {
      await hosting.untilGone(hostOnly().api.load(model));
    },
    async restartWorker() {
      hostOnly();
      election.send({ type: 'workerEnded', reason: 'The engine worker was restarted; this request was cut off.' });
    },
    async stop() {
      election.send({ type: 'stopAsked' });
    },
    async storage() {
      const { usage, quota } = (await navigator.storage?.estimate?.().catch(() => undefined)) ?? {};
      const persisted = await persistence.granted();
      return { usage, quota, ...(persisted !== undefined ? { persisted } : {}) };
    },
  };
}

/**
 * The page's remote models, read from its own settings with the engine worker's checks, for its
 * gateways: its own (the fetch shim's) and the service worker's. Settings the checks refuse give
 * none: the engine worker refuses them too, and answers each request with why.
 */
function pageRemoteModels(config: WorkerConfig | undefined): readonly ModelInfo[] | undefined {
  try {
    return remoteModelsOf(config ?? {}, location.origin);
  } catch {
    return undefined;
  }
}

function keyText(key: ApiKey | undefined): string | undefined {
  return typeof key === 'string' ? key : key?.key;
}

/** The page and the shell files it has loaded so far, for the offline copy. */
function loadedUrls(): string[] {
  const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
  const shell = new Set(['script', 'link', 'css', 'img', 'other']);
  return [location.href, ...entries.filter((e) => shell.has(e.initiatorType) && !e.name.includes('/models/')).map((e) => e.name)];
}
