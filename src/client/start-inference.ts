/**
 * The one call a page makes: registers the service worker, takes part in electing the tab that
 * hosts the engine worker (Web Locks: exactly one per origin; when it closes, another tab takes
 * over), and resolves once this page is controlled, so its very first fetch to the base URL is
 * answered locally.
 *
 * The page answers its own requests in the page, over a link of its own to the engine worker (the
 * host tab's directly, other tabs' through a port the service worker passes on once): a browser
 * cuts a service-worker fetch whose response has not begun within 5 minutes (a long model load, a
 * deep queue), and these requests then never meet that limit. The service worker answers every
 * other context. See docs/decisions/service-worker-limits.md.
 * @module
 */
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { ApiKey } from '../gateway/auth.ts';
import type { ModelStatus } from '../contracts/model-progress.ts';
import { BUILD, describeExit, PROTOCOL, VERSION, type EngineExit, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import { createEngineConnection, type EngineConnection } from '../rpc/engine-connection.ts';
import type { WorkerConfig } from '../contracts/worker-config.ts';
import { SERVICE_WORKER_FILE } from '../contracts/runtime-layout.ts';
import { GatewayError } from '../core/errors.ts';
import { installFetchShim } from './fetch-shim.ts';
import { engineWorkerAt, spawnEngineWorker, type CreateEngineWorker, type EngineWorker } from './spawn-worker.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';

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

/** What the service worker controlling this page said of itself. */
export interface ServiceWorkerInfo {
  readonly scriptUrl: string;
  /** The package version it was built from; `unknown` when it did not answer. */
  readonly version: string;
  /** Same version as this page's library. */
  readonly upToDate: boolean;
  /** Why it is not, and the command that fixes it. */
  readonly warning?: string;
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
  /** Stops hosting and releases the engine; the service worker stays registered. */
  stop(): Promise<void>;
}

/** Where `npx inpage-llm init` and the vite plugin put the service worker (scope: the whole origin). */
const DEFAULT_SERVICE_WORKER_URL = `/${SERVICE_WORKER_FILE}`;
/** Says how to replace a stale copy of the worker scripts. */
const FIX = 'copy the current worker scripts with `npx inpage-llm init <your public folder>` (with the vite plugin: rebuild), then reload';
const LOCK = 'inpage-llm:engine-host';
/** The id this tab's own link gives the host when the host is this tab. */
const SELF = 'self';
/** The id of a host that did not say its Web Locks id: then any holder of the host lock will do. */
const UNKNOWN_HOST = 'unknown';

export async function startInference(options: StartOptions = {}): Promise<Inference> {
  if (!('serviceWorker' in navigator)) {
    throw new Error('Service workers are unavailable here (a private window, or not a secure context): use installFetchShim instead.');
  }
  const baseUrl = options.baseUrl ?? DEFAULT_BASE_URL;
  const script = new URL(options.serviceWorkerUrl ?? DEFAULT_SERVICE_WORKER_URL, location.href);
  script.searchParams.set('base', baseUrl);
  if (options.crossOriginIsolation) script.searchParams.set('isolate', '1');
  const container = navigator.serviceWorker;
  const registration = await container.register(script, { type: options.serviceWorkerType ?? 'module', updateViaCache: 'none' });
  await controlled(container);
  if (options.crossOriginIsolation && reloadToIsolate()) return new Promise<never>(() => {});
  void registration.update().catch(() => {});
  const serviceWorker = await handshake(container);

  let engine: EngineWorker | undefined;
  /** This tab's id in Web Locks while it hosts: other tabs watch the host lock's holder by it. */
  let hostLock: string | undefined;
  let stopHosting: (() => void) | undefined;
  const post = (message: PageMessage, transfer: Transferable[] = []) => container.controller?.postMessage(message, transfer);
  /** A port to this tab's engine worker for the service worker, or (`forClient`) for another tab. */
  const offer = (forClient?: string) => {
    if (!engine) return;
    const port = engine.connect();
    post({ type: 'ENGINE_PORT', port, apiKeys: options.apiKeys, build: BUILD, ...(forClient ? { for: forClient, hostLock } : {}) }, [port]);
    if (!forClient) tellRemoteModels(engine);
  };
  /** The service worker serves remote models itself, with no tab hosting the engine too: it is told which. */
  const tellRemoteModels = (worker: EngineWorker) =>
    void untilGone(worker.api.listModels()).then(
      (models) => post({ type: 'REMOTE_MODELS', models: models.filter((model) => model.upstream !== undefined) }),
      () => {},
    );
  /** Whether persistent storage was granted; asked once, when a download starts. */
  let persisted: Promise<boolean> | undefined;
  const progressed = (progress: LoadProgress) => {
    if (progress.status === 'progress' && !progress.cached && !persisted && navigator.storage?.persist) {
      persisted = navigator.storage.persist().catch(() => false);
      void persisted.then((granted) => {
        if (!granted) console.info('inpage-llm: the browser did not grant persistent storage: downloaded models may be evicted under storage pressure.');
      });
    }
    options.onProgress?.(progress);
  };
  /**
   * A worker that ends on its own (its GPU device lost, a crash) is replaced as a restart is: its
   * callers' calls in flight fail with a 503 at once, and the next ones go to the fresh worker.
   */
  const spawn = (previousExit?: EngineExit): EngineWorker =>
    spawnEngineWorker(
      options.engine,
      { onProgress: progressed, previousExit, onExit: (exit) => void replaceWorker(describeExit(exit).reason, exit) },
      options.engineWorker ?? engineWorkerAt(options.engineWorkerUrl),
    );
  /**
   * Calls made to the worker itself (`load`, `status`: comlink, which never settles once its
   * worker is gone) end with the worker: each waits against this, which the replacement rejects.
   */
  let workerGone = goneSignal();
  const untilGone = <T>(call: Promise<T>): Promise<T> => Promise.race([call, workerGone.promise]);
  /** A fresh engine worker in place of this tab's: every link to the old one is cut. */
  const replaceWorker = (reason: string, exit?: EngineExit) => {
    if (!engine) return;
    engine.terminate();
    workerGone.reject(new GatewayError(exit ? describeExit(exit).code : 'engine_unavailable', reason, { retryAfter: 1 }));
    workerGone = goneSignal();
    // Staying: this tab keeps its place as host while it offers the new worker.
    post({ type: 'HOST_GONE', staying: true, ...(exit ? { exit } : {}) });
    own?.detach(reason, exit ? describeExit(exit).code : 'engine_unavailable');
    engine = spawn(exit);
    own?.attach(engine.connect(), SELF);
    offer();
    options.onEngineExit?.(exit);
  };

  // This page's own link: to its own worker while it hosts, else to the host tab's.
  let own: EngineConnection | undefined;
  if (options.inPage ?? true) {
    // Where keys are configured, the service worker passes a link to the engine only to a page that shows one.
    const apiKey = keyText(options.apiKeys?.[0]);
    own = createEngineConnection({
      requestPort: () => (engine ? own!.attach(engine.connect(), SELF) : post({ type: 'PAGE_PORT_REQUEST', ...(apiKey !== undefined ? { apiKey } : {}) })),
      hostAlive: async (id) => (id === SELF ? engine !== undefined : holdsLock(id)),
    });
    installFetchShim({ engine: own, baseUrl, apiKeys: options.apiKeys });
  }

  container.addEventListener('message', (event: MessageEvent<WorkerMessage>) => {
    const message = event.data;
    switch (message?.type) {
      case 'PORT_REQUEST':
        return offer(message.for);
      case 'ENGINE_PORT':
        // A port to another tab's worker; this tab may have become the host meanwhile.
        if (own && !engine) own.attach(message.port, message.hostLock ?? UNKNOWN_HOST);
        else message.port.close();
        return;
      case 'HOST_GONE': {
        if (engine) return;
        const cut = message.exit ? describeExit(message.exit) : undefined;
        own?.detach(cut?.reason ?? 'The tab hosting the inference engine was closed, or restarted its engine; this request was cut off.', cut?.code);
        return;
      }
    }
  });
  // A new service worker (an update) starts without a link: give it one.
  container.addEventListener('controllerchange', () => offer());
  addEventListener('pagehide', () => {
    if (engine) post({ type: 'HOST_GONE' });
  });
  post({ type: 'CACHE_SHELL', urls: loadedUrls() });

  /** Hosts until stopped; `started` runs once the worker is up and offered. */
  const host = async (started?: () => void) => {
    // Web Locks names the holder with an id of its own (not the service worker's Client id).
    hostLock = (await navigator.locks.query()).held?.find((lock) => lock.name === LOCK)?.clientId;
    // A link this tab held to a former host is dead or about to be: its own worker replaces it,
    // and calls already waiting for a port get this one.
    own?.detach('The inference engine moved to this tab; this request was cut off.');
    engine = spawn();
    own?.attach(engine.connect(), SELF);
    offer();
    options.onHostChange?.(true);
    for (const model of options.preload ?? []) void untilGone(engine.api.load(model)).catch(() => {});
    started?.();
    await new Promise<void>((resolve) => (stopHosting = resolve));
    post({ type: 'HOST_GONE' });
    own?.detach('This tab stopped hosting the inference engine; this request was cut off.');
    engine.terminate();
    engine = undefined;
    options.onHostChange?.(false);
  };

  // Host now if the lock is free (resolving only after the worker is offered, so the first fetch
  // finds it); otherwise wait in line to take over when the hosting tab goes away.
  const hostingNow = await new Promise<boolean>((resolve) => {
    void navigator.locks.request(LOCK, { ifAvailable: true }, async (lock) => {
      if (!lock) return resolve(false);
      await host(() => resolve(true));
    });
  });
  if (!hostingNow) void navigator.locks.request(LOCK, () => host());

  return {
    baseUrl,
    serviceWorker,
    get isHost() {
      return engine !== undefined;
    },
    async status() {
      return engine ? untilGone(engine.api.status()) : null;
    },
    async load(model) {
      if (!engine) throw new Error('This tab does not host the engine.');
      await untilGone(engine.api.load(model));
    },
    async restartWorker() {
      if (!engine) throw new Error('This tab does not host the engine.');
      replaceWorker('The engine worker was restarted; this request was cut off.');
    },
    async stop() {
      stopHosting?.();
    },
    async storage() {
      const { usage, quota } = (await navigator.storage?.estimate?.().catch(() => undefined)) ?? {};
      const granted = persisted ? await persisted : undefined;
      return { usage, quota, ...(granted !== undefined ? { persisted: granted } : {}) };
    },
  };
}

/** A promise that only ever rejects, when `reject` is called; unobserved, its rejection is no error. */
function goneSignal(): { promise: Promise<never>; reject(error: unknown): void } {
  let reject!: (error: unknown) => void;
  const promise = new Promise<never>((_, fail) => (reject = fail));
  promise.catch(() => {});
  return { promise, reject };
}

function keyText(key: ApiKey | undefined): string | undefined {
  return typeof key === 'string' ? key : key?.key;
}

/** Whether the tab with this Web Locks id still holds the host lock (it is gone, or no longer hosts, otherwise). */
async function holdsLock(lockId: string): Promise<boolean> {
  const { held = [] } = await navigator.locks.query();
  return held.some((lock) => lock.name === LOCK && (lockId === UNKNOWN_HOST || lock.clientId === undefined || lock.clientId === lockId));
}

/**
 * Asks the controlling worker what it is. A copy of an older version is reported (console and
 * `inference.serviceWorker`) and kept working while it speaks this library's protocol; one that
 * does not cannot serve this page, so starting fails with the fix.
 */
async function handshake(container: ServiceWorkerContainer): Promise<ServiceWorkerInfo> {
  const controller = container.controller!;
  const { port1, port2 } = new MessageChannel();
  const reply = new Promise<Extract<WorkerMessage, { type: 'HELLO_REPLY' }> | undefined>((resolve) => {
    port1.onmessage = (event) => resolve(event.data);
    setTimeout(() => resolve(undefined), 3000);
  });
  controller.postMessage({ type: 'HELLO', port: port2 } satisfies PageMessage, [port2]);
  const hello = await reply;
  port1.close();
  const scriptUrl = controller.scriptURL;
  if (!hello) {
    const warning = `inpage-llm: the service worker ${scriptUrl} does not answer inpage-llm's handshake. If it is an app's own worker, it must import ours (handleInference from 'inpage-llm/service-worker'); otherwise ${FIX}.`;
    console.warn(warning);
    return { scriptUrl, version: 'unknown', upToDate: false, warning };
  }
  // Workers from before the handshake named no version; their messages are protocol 1's.
  const version = hello.version ?? 'unknown';
  if ((hello.protocol ?? 1) !== PROTOCOL) {
    throw new Error(`inpage-llm: the service worker ${scriptUrl} is inpage-llm ${version}, which cannot serve this page's inpage-llm ${VERSION} (protocol ${hello.protocol ?? 1}, not ${PROTOCOL}): ${FIX}.`);
  }
  if (version === VERSION) return { scriptUrl, version, upToDate: true };
  const warning = `inpage-llm: the service worker ${scriptUrl} is inpage-llm ${version}, this page's library ${VERSION}. Requests still work (same protocol), but ${FIX}.`;
  console.warn(warning);
  return { scriptUrl, version, upToDate: false, warning };
}

/** Set for the reload that isolation asked for: a page still not isolated after it goes on as it is. */
const ISOLATION_RELOAD = 'inpage-llm:isolation-reload';

/**
 * Reloads a page that is not cross-origin isolated yet, once: the service worker now controlling
 * it adds the headers to the reloaded page. True when the page is reloading. Where the reload did
 * not isolate it (a browser without COEP, an app's own service worker that does not add them), the
 * page goes on, and the engine runs on one thread and says why.
 */
function reloadToIsolate(): boolean {
  if (globalThis.crossOriginIsolated) {
    sessionStorage.removeItem(ISOLATION_RELOAD);
    return false;
  }
  if (sessionStorage.getItem(ISOLATION_RELOAD)) {
    sessionStorage.removeItem(ISOLATION_RELOAD);
    console.info('inpage-llm: the page is still not cross-origin isolated after a reload: the CPU engine runs on one thread.');
    return false;
  }
  sessionStorage.setItem(ISOLATION_RELOAD, '1');
  location.reload();
  return true;
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
