/**
 * The product's own service worker script (`inpage-llm-sw.js`): the inference handling, plus what
 * a worker that owns its scope does: it takes control of open pages at once, and keeps the app's
 * shell for offline use. Settings come from the registration URL (`inpage-llm-sw.js?base=/v1`), so
 * they survive restarts.
 * @module
 */
import { handleInference } from './handle-inference.ts';
import { handleShellRequest } from './offline-shell.ts';
import { withIsolationHeaders } from '../contracts/cross-origin-isolation.ts';

declare const self: ServiceWorkerGlobalScope;

const inference = handleInference();
/** `startInference({ crossOriginIsolation: true })` registers this worker with `isolate=1`. */
const isolate = new URL(self.location.href).searchParams.get('isolate') === '1';
/** The app's own pages and the workers they start: what must carry the isolation headers. */
const isolated = (request: Request) => request.mode === 'navigate' || request.destination === 'worker' || request.destination === 'sharedworker';

self.addEventListener('install', (event) => event.waitUntil(self.skipWaiting()));
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
// After handleInference's listener: requests it answered are not the shell's.
self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (inference.handles(request.url) || new URL(request.url).pathname === self.location.pathname) return;
  const shell = handleShellRequest(request);
  if (shell?.respondWith) event.respondWith(isolate && isolated(request) ? shell.respondWith.then((response) => withIsolationHeaders(response, self.navigator.userAgent)) : shell.respondWith);
  if (shell?.waitUntil) event.waitUntil(shell.waitUntil);
});
