/**
 * The service worker's part of the product, as one call: answers fetches under the base URL with
 * the gateway, its engine calls going to the engine worker hosted by one of the app's pages, and
 * passes ports between tabs, so that each page running `startInference` gets a link of its own to
 * the engine; only the hosting tab's own messages may change that link or the API keys
 * (`host-channel.ts`). Every other request is left to the listeners the app registers after this
 * call (or, with none, to the browser). The product's own service worker script calls it; so does
 * an app's own service worker (workbox, serwist, hand-written) that imports the package.
 *
 * Chromium cuts a fetch event whose response has not begun within 5 minutes, and stops the whole
 * worker when an event (its `waitUntil` included) outlives that; a streamed body by itself is not
 * limited. So a response is handed over as soon as it begins, with no `waitUntil` on its body, and
 * a request still waiting for a model at `respondWithin` gets a clear 503 instead of a network
 * error. See docs/decisions/service-worker-limits.md.
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway, type Gateway } from '../gateway/create-gateway.ts';
import { BUILD, PROTOCOL, VERSION, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import { createEngineConnection } from '../rpc/engine-connection.ts';
import { createIndexedDBResponseStore } from '../storage/indexeddb-response-store.ts';
import { createHostChannel } from './host-channel.ts';
import { loadApiKeys, loadHostId, loadRemoteModels, saveApiKeys, saveHostId, saveRemoteModels } from './key-store.ts';
import { cacheShell } from './offline-shell.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';

declare const self: ServiceWorkerGlobalScope;

export interface HandleInferenceOptions {
  /**
   * Where the API answers. Default: the `base` parameter of this worker's registration URL (which
   * `startInference` sets), else `/v1`.
   */
  readonly baseUrl?: string;
  /**
   * A request whose response has not begun within this many milliseconds gets a 503 (default: the
   * registration URL's `respondWithin`, else 270 s; Chromium's own limit is 300 s).
   */
  readonly respondWithin?: number;
}

export interface InferenceHandler {
  readonly baseUrl: string;
  /** Whether the gateway answers this URL (an app's own fetch listener may skip these). */
  handles(url: string): boolean;
}

let installed: InferenceHandler | undefined;

/** Adds the listeners (once: a second call returns the first handler). */
export function handleInference(options: HandleInferenceOptions = {}): InferenceHandler {
  if (installed) return installed;
  const settings = new URL(self.location.href).searchParams;
  const baseUrl = options.baseUrl ?? settings.get('base') ?? DEFAULT_BASE_URL;
  const respondWithin = options.respondWithin ?? (Number(settings.get('respondWithin')) || 270_000);

  const connection = createEngineConnection({
    requestPort: () => void channel.requestPort(),
    hostAlive: async (id) => (await self.clients.get(id)) !== undefined,
  });

  // One gateway for the worker's life: a change of keys changes its key table, not the gateway, so
  // what it has learnt (remote servers' health and requests in flight) is kept. Its store is in the
  // database the pages' fetch shims share. Bodies come from the app's pages: read whole (a Request
  // here never shows its Content-Length).
  // Remote models are served here, their servers reached from this worker: a request for one needs
  // no tab hosting the engine. The host tells them after each port; they are kept for restarts.
  let remoteModels: readonly ModelInfo[] = [];
  const remoteKnown = loadRemoteModels().then((models) => void (remoteModels = models));
  const gateway: Gateway = createGateway({ engine: connection, baseUrl, readBodyWhole: true, responseStore: createIndexedDBResponseStore(), knownModels: () => remoteModels });
  // Keys are kept in Cache Storage: a restarted service worker must not answer before it knows them.
  let apiKeys: Promise<readonly ApiKey[] | undefined> = loadApiKeys();
  /** Settles once the keys in force are the gateway's (and the remote models known): requests wait for it. */
  let keysInForce: Promise<void> = Promise.all([apiKeys.then((keys) => gateway.setApiKeys(keys)), remoteKnown]).then(() => {});

  let lastKeys: string | undefined;
  /** The host offers its keys with every port: rebuild the gateway only when they changed. */
  const sameKeys = (offered: readonly ApiKey[] | undefined): boolean => {
    const text = JSON.stringify(offered ?? null);
    if (text === lastKeys) return true;
    lastKeys = text;
    return false;
  };

  // Only the host's own messages change the link and the keys (see host-channel.ts).
  const channel = createHostChannel({
    clientExists: async (id) => (await self.clients.get(id)) !== undefined,
    async post(id, message, transfer = []) {
      const client = await self.clients.get(id);
      client?.postMessage(message, transfer);
      return client !== undefined;
    },
    broadcast,
    loadHost: loadHostId,
    saveHost: saveHostId,
    apiKeys: () => apiKeys,
    link(port, hostId, offered) {
      connection.attach(port, hostId);
      if (!sameKeys(offered)) {
        // Requests wait for the keys to be stored: a restart right after must not forget them.
        apiKeys = saveApiKeys(offered).then(
          () => offered,
          () => offered,
        );
        keysInForce = apiKeys.then((keys) => gateway.setApiKeys(keys));
      }
    },
    remoteModels(models) {
      remoteModels = models;
      void saveRemoteModels(models).catch(() => {});
    },
    unlink: (reason, code) => connection.detach(reason, code),
    hello: (port) => port.postMessage({ type: 'HELLO_REPLY', build: BUILD, version: VERSION, protocol: PROTOCOL, baseUrl, linked: connection.linked } satisfies WorkerMessage),
  });

  self.addEventListener('fetch', (event) => {
    const { request } = event;
    // The worker's own script (and an imported copy of it) always comes from the network.
    if (new URL(request.url).pathname === new URL(self.location.href).pathname) return;
    if (gateway.handles(request.url)) event.respondWith(keysInForce.then(() => gateway.fetch(request, { respondWithin })));
  });

  self.addEventListener('message', (event) => {
    const message = event.data as PageMessage;
    if (message?.type === 'CACHE_SHELL') return event.waitUntil(cacheShell(message.urls));
    // Only a tab can host the engine or ask for a link: other senders are never trusted.
    event.waitUntil(channel.receive(message, event.source instanceof WindowClient ? event.source.id : null));
  });

  return (installed = { baseUrl, handles: (url) => gateway.handles(url) });
}

async function broadcast(message: WorkerMessage, except?: string): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window' })) if (client.id !== except) client.postMessage(message);
}
