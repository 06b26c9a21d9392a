/**
 * The control messages between the execution contexts, kept explicit in one place (after msw's
 * worker channel): page ⇄ service worker, and page → engine worker. Each message is `{type, ...}`;
 * replies, where there are any, go to a transferred port. The requests themselves never travel
 * here: they go over engine links (`engine-link.ts`).
 * @module
 */
import type { ApiKey } from '../gateway/auth.ts';

/** Page → service worker. */
export type PageMessage =
  /**
   * The tab hosting the engine offers a port to its worker: for the service worker itself (after
   * start, on request, after a restart), or, with `for`, for the page with that client id, which
   * asked for a link of its own (the service worker passes it on).
   */
  | {
      readonly type: 'ENGINE_PORT';
      readonly port: MessagePort;
      readonly apiKeys?: readonly ApiKey[];
      readonly build: string;
      readonly for?: string;
      /** The host's id as Web Locks name it (not a service worker's Client id): how other tabs tell it is gone. */
      readonly hostLock?: string;
    }
  /** A page that does not host the engine asks for a port to it, to answer its own requests. */
  | { readonly type: 'PAGE_PORT_REQUEST' }
  /** The hosting tab is going away: fail in-flight calls now rather than wait for the watchdog. */
  | { readonly type: 'HOST_GONE' }
  /** Shell files the page loaded before the worker controlled it, to keep for offline use. */
  | { readonly type: 'CACHE_SHELL'; readonly urls: readonly string[] }
  /** Asks the worker's build and state; the reply goes to `port`. */
  | { readonly type: 'HELLO'; readonly port: MessagePort };

/** Service worker → page. */
export type WorkerMessage =
  /**
   * Asks the host for a port: for the service worker itself (it has no link, e.g. it was
   * restarted), or, with `for`, for the page with that client id.
   */
  | { readonly type: 'PORT_REQUEST'; readonly for?: string }
  /** A port to the engine worker, for the page that asked; `hostLock` is the host's Web Locks id, when it said. */
  | { readonly type: 'ENGINE_PORT'; readonly port: MessagePort; readonly hostLock?: string }
  /** The hosting tab went away or restarted its worker: links to it are dead. */
  | { readonly type: 'HOST_GONE' }
  | {
      readonly type: 'HELLO_REPLY';
      readonly build: string;
      /**
       * The package version the service worker was built from (a copied worker may lag the page's
       * library). This and `protocol` are absent from workers built before the handshake.
       */
      readonly version?: string;
      /** The page ⇄ service worker protocol it speaks: requests work only where this matches the page's. */
      readonly protocol?: number;
      readonly baseUrl: string;
      readonly linked: boolean;
    };

/** Page → engine worker: the worker's settings, then one port per caller. */
export type EngineWorkerMessage<Config = object> =
  | { readonly type: 'CONFIGURE'; readonly config: Config }
  | { readonly type: 'CONNECT'; readonly port: MessagePort };

/** Set at build time; a page and a service worker of different builds can tell. */
export const BUILD = typeof __INPAGE_BUILD__ === 'string' ? __INPAGE_BUILD__ : 'dev';

/** The package version, set at build time (the package's own build and the app's vite build alike). */
export const VERSION = typeof __INPAGE_VERSION__ === 'string' ? __INPAGE_VERSION__ : '0.0.0-dev';

/**
 * The version of the messages in this file. Raise it whenever a message changes shape: a page and
 * a service worker of different versions keep working together exactly while this matches.
 */
export const PROTOCOL = 1;

declare const __INPAGE_BUILD__: string | undefined;
declare const __INPAGE_VERSION__: string | undefined;
