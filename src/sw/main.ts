/**
 * The service worker: answers fetches under the base URL with the gateway, its engine calls going
 * to the engine worker hosted by one of the app's pages; every other request is left alone, so
 * the browser fetches it exactly as it would without a service worker.
 * The base URL comes from the registration URL (`sw.js?base=/v1`), so it survives restarts.
 * @module
 */
import { BUILD, type PageMessage, type WorkerMessage } from '../client/control-messages.ts';
import { createGateway, type Gateway } from '../gateway/index.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createEngineConnection } from './engine-connection.ts';
import { loadApiKeys, saveApiKeys } from './key-store.ts';
import { cacheShell, shellFallback } from './offline-shell.ts';

declare const self: ServiceWorkerGlobalScope;

const baseUrl = new URL(self.location.href).searchParams.get('base') ?? '/v1';

const connection = createEngineConnection({
  requestPort: () => void broadcast({ type: 'PORT_REQUEST' }),
  clientAlive: async (id) => (await self.clients.get(id)) !== undefined,
});

// Keys are kept in Cache Storage: a restarted service worker must not answer before it knows them.
let gateway: Promise<Gateway> = loadApiKeys().then(build);

function build(apiKeys: readonly ApiKey[] | undefined): Gateway {
  // Bodies come from the app's pages: read whole (a Request here never shows its Content-Length).
  return createGateway({ engine: connection, baseUrl, apiKeys, readBodyWhole: true });
}

async function broadcast(message: WorkerMessage): Promise<void> {
  for (const client of await self.clients.matchAll({ type: 'window' })) client.postMessage(message);
}

self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (new URL(request.url).pathname === new URL(self.location.href).pathname) return;
  // Cheap synchronous scope test: the gateway answers only under the base URL.
  if (isUnderBase(request.url)) {
    // waitUntil: a streamed answer keeps this worker alive until its body ends.
    event.respondWith(gateway.then((g) => g.fetch(request, event)));
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
      connection.attach(message.port, source?.id ?? null);
      gateway = saveApiKeys(message.apiKeys as ApiKey[] | undefined).then(() => build(message.apiKeys as ApiKey[] | undefined));
      break;
    case 'CACHE_SHELL':
      event.waitUntil(cacheShell(message.urls));
      break;
    case 'HOST_GONE':
      connection.detach('The tab hosting the inference engine was closed.');
      break;
    case 'HELLO':
      message.port.postMessage({ type: 'HELLO_REPLY', build: BUILD, baseUrl, linked: connection.linked } satisfies WorkerMessage);
      break;
  }
});

let probe: Gateway | undefined;
function isUnderBase(url: string): boolean {
  // `handles` is pure and independent of keys, so any gateway built for this base answers it.
  probe ??= build(undefined);
  return probe.handles(url);
}
