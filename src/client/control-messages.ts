/**
 * The page ⇄ service worker control protocol, kept explicit in one place (after msw's worker
 * channel). Each message is `{type, ...}`; replies, where there are any, go to a transferred port.
 * @module
 */

/** Page → service worker. */
export type PageMessage =
  /** The tab hosting the engine offers a port to its worker (after start, on request, after a restart). */
  | { readonly type: 'ENGINE_PORT'; readonly port: MessagePort; readonly apiKeys?: readonly unknown[]; readonly build: string }
  /** The hosting tab is going away: fail in-flight calls now rather than wait for the watchdog. */
  | { readonly type: 'HOST_GONE' }
  /** Shell files the page loaded before the worker controlled it, to keep for offline use. */
  | { readonly type: 'CACHE_SHELL'; readonly urls: readonly string[] }
  /** Asks the worker's build and state; the reply goes to `port`. */
  | { readonly type: 'HELLO'; readonly port: MessagePort };

/** Service worker → page. */
export type WorkerMessage =
  /** The service worker has no engine link (it was restarted): the host should send ENGINE_PORT. */
  | { readonly type: 'PORT_REQUEST' }
  | { readonly type: 'HELLO_REPLY'; readonly build: string; readonly baseUrl: string; readonly linked: boolean };

/** Set at build time; a page and a service worker of different builds can tell. */
export const BUILD = typeof __INPAGE_BUILD__ === 'string' ? __INPAGE_BUILD__ : 'dev';

declare const __INPAGE_BUILD__: string | undefined;
