/**
 * The service worker's side of starting: registers it, waits until it controls this page (so the
 * page's first fetch to the base URL is answered), reloads once where cross-origin isolation was
 * asked for and the page is not isolated yet, and asks the worker what it is (the handshake: a
 * stale copy is reported, one of another protocol refused with the fix).
 * @module
 */
import { PROTOCOL, VERSION, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import { SERVICE_WORKER_FILE } from '../contracts/runtime-layout.ts';

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

export interface RegistrationOptions {
  readonly baseUrl: string;
  /** Default `/inpage-llm-sw.js`. */
  readonly serviceWorkerUrl?: string;
  /** Default `module`. */
  readonly serviceWorkerType?: WorkerType;
  readonly crossOriginIsolation?: boolean;
}

export interface RegisteredServiceWorker {
  readonly container: ServiceWorkerContainer;
  readonly info: ServiceWorkerInfo;
}

/** Where `npx inpage-llm init` and the vite plugin put the service worker (scope: the whole origin). */
const DEFAULT_SERVICE_WORKER_URL = `/${SERVICE_WORKER_FILE}`;
/** Says how to replace a stale copy of the worker scripts. */
const FIX = 'copy the current worker scripts with `npx inpage-llm init <your public folder>` (with the vite plugin: rebuild), then reload';

/**
 * Resolves once a service worker of ours controls this page; `reloading` when the page reloads to
 * become cross-origin isolated (nothing more is to be done in it).
 */
export async function registerServiceWorker(options: RegistrationOptions): Promise<RegisteredServiceWorker | 'reloading'> {
  const script = new URL(options.serviceWorkerUrl ?? DEFAULT_SERVICE_WORKER_URL, location.href);
  script.searchParams.set('base', options.baseUrl);
  if (options.crossOriginIsolation) script.searchParams.set('isolate', '1');
  const container = navigator.serviceWorker;
  const registration = await container.register(script, { type: options.serviceWorkerType ?? 'module', updateViaCache: 'none' });
  await controlled(container);
  if (options.crossOriginIsolation && reloadToIsolate()) return 'reloading';
  void registration.update().catch(() => {});
  return { container, info: await handshake(container) };
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
