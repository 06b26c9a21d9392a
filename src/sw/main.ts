/**
 * The service worker: answers fetches under the base URL with the gateway, its engine calls going
 * to the engine worker hosted by one of the app's pages; every other request is left alone, so
 * the browser fetches it exactly as it would without a service worker. It also passes ports
 * between tabs, so that each page running `startInference` gets a link of its own to the engine.
 * Its settings come from the registration URL (`sw.js?base=/v1`), so they survive restarts.
 *
 * Chromium cuts a fetch event whose response has not begun within 5 minutes, and stops the whole
 * worker when an event (its `waitUntil` included) outlives that; a streamed body by itself is not
 * limited. So a response is handed over as soon as it begins, with no `waitUntil` on its body, and
 * a request still waiting for a model at `respondWithin` gets a clear 503 instead of a network
 * error. See docs/decisions/service-worker-limits.md.
 * @module
 */
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway, type Gateway } from '../gateway/index.ts';
import { BUILD, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import { createEngineConnection } from '../rpc/engine-connection.ts';
import { loadApiKeys, saveApiKeys } from './key-store.ts';
import { cacheShell, shellFallback } from './offline-shell.ts';

declare const self: ServiceWorkerGlobalScope;

const settings = new URL(self.location.href).searchParams;
const baseUrl = settings.get('base') ?? '/v1';
/** Chromium's limit is 300 s from the fetch event; the margin covers a slow start of this worker. */
const respondWithin = Number(settings.get('respondWithin')) || 270_000;

const connection = createEngineConnection({
  requestPort: () => void broadcast({ type: 'PORT_REQUEST' }),
  hostAlive: async (id) => (await self.clients.get(id)) !== undefined,
});

// Keys are kept in Cache Storage: a restarted service worker must not answer before it knows them.
let gateway: Promise<Gateway> = loadApiKeys().then(build);
// Scope tests are pure and independent of keys: one gateway built for this base answers them.
const scope = build(undefined);

function build(apiKeys: readonly ApiKey[] | undefined): Gateway {
  // Bodies come from the app's pages: read whole (a Request here never shows its Content-Length).
  return createGateway({ engine: connection, baseUrl, apiKeys, readBodyWhole: true });
}

async function broadcast(message: WorkerMessage, except?: string): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window' })) if (client.id !== except) client.postMessage(message);
}

self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (new URL(request.url).pathname === new URL(self.location.href).pathname) return;
  if (scope.handles(request.url)) {
    event.respondWith(gateway.then((g) => g.fetch(request, { respondWithin })));
    return;
  }
  const fallback = shellFallback(request);
  if (fallback) event.respondWith(fallback);
});

self.addEventListener('message', (event) => {
  const message = event.data as PageMessage;
  const source = event.source as Client | null;
  switch (message?.type) {
    case 'ENGINE_PORT':
      if (message.for !== undefined) {
        // The host's answer to a page that asked for a link of its own: pass the port on.
        event.waitUntil(passPort(message.for, message.port, message.hostLock));
        break;
      }
      connection.attach(message.port, source?.id ?? null);
      if (!sameKeys(message.apiKeys)) {
        const apiKeys = message.apiKeys;
        gateway = saveApiKeys(apiKeys).then(() => build(apiKeys));
      }
      break;
    case 'PAGE_PORT_REQUEST':
      if (source) event.waitUntil(broadcast({ type: 'PORT_REQUEST', for: source.id }, source.id));
      break;
    case 'CACHE_SHELL':
      event.waitUntil(cacheShell(message.urls));
      break;
    case 'HOST_GONE':
      connection.detach('The tab hosting the inference engine was closed.');
      event.waitUntil(broadcast({ type: 'HOST_GONE' }, source?.id));
      break;
    case 'HELLO':
      message.port.postMessage({ type: 'HELLO_REPLY', build: BUILD, baseUrl, linked: connection.linked } satisfies WorkerMessage);
      break;
  }
});

async function passPort(clientId: string, port: MessagePort, hostLock: string | undefined): Promise<void> {
  const client = await self.clients.get(clientId);
  if (client) client.postMessage({ type: 'ENGINE_PORT', port, ...(hostLock ? { hostLock } : {}) } satisfies WorkerMessage, [port]);
  else port.close();
}

let lastKeys: string | undefined;
/** The host offers its keys with every port: rebuild the gateway only when they changed. */
function sameKeys(apiKeys: readonly ApiKey[] | undefined): boolean {
  const text = JSON.stringify(apiKeys ?? null);
  if (text === lastKeys) return true;
  lastKeys = text;
  return false;
}
