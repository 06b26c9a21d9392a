/**
 * The control messages between the execution contexts, kept explicit in one place (after msw's
 * worker channel): page ⇄ service worker, and page → engine worker. Each message is `{type, ...}`;
 * replies, where there are any, go to a transferred port. The requests themselves never travel
 * here: they go over engine links (`engine-link.ts`).
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import type { ApiKey } from '../core/models.ts';

/**
 * Page → service worker. Only the hosting tab's own channel is trusted: `ENGINE_PORT` and
 * `HOST_GONE` from any other client are dropped while the host still exists (see
 * `src/sw/host-channel.ts` and docs/decisions/trusted-host-channel.md).
 */
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
  /**
   * A page that does not host the engine asks for a port to it, to answer its own requests. A port
   * reaches the engine past every key check, so where keys are configured the page must show one
   * of them (any: the page checks its own requests' keys and scopes itself).
   */
  | { readonly type: 'PAGE_PORT_REQUEST'; readonly apiKey?: string }
  /**
   * The hosting tab's engine worker is gone: fail in-flight calls now rather than wait for the
   * watchdog. The tab gives up its place as host, unless `staying` (it replaced its engine worker
   * and offers the new one next): then no other tab may take the place meanwhile.
   */
  | {
      readonly type: 'HOST_GONE';
      readonly staying?: boolean;
      /** Its engine worker ended on its own (GPU device lost, crash): calls cut off say so. */
      readonly exit?: EngineExit;
    }
  /**
   * The hosting tab's remote models (those with an `upstream`), read from its own settings (not
   * asked of its engine worker) and sent after each port it offers the service worker: the service
   * worker reaches their servers itself, so it answers requests for them without the engine worker,
   * even with no tab hosting it (it keeps the list across its own restarts). Only the host's own
   * message is taken.
   */
  | { readonly type: 'REMOTE_MODELS'; readonly models: readonly ModelInfo[] }
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
  /** The hosting tab went away or restarted its worker (`exit`: why, when it ended on its own): links to it are dead. */
  | { readonly type: 'HOST_GONE'; readonly exit?: EngineExit }
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
  | {
      readonly type: 'CONFIGURE';
      readonly config: Config;
      /**
       * A Web Locks name the worker holds for as long as it lives: the page learns of its end by
       * being granted the lock (a crash, an out-of-memory kill, `close()`), with no polling.
       */
      readonly lifeLock?: string;
      /** Why the worker before this one ended, when it did not end on request: shown with the models' states. */
      readonly previousExit?: EngineExit;
      /**
       * The page's Prompt API (`window.LanguageModel`, which workers do not have), served on this
       * port (`src/rpc/builtin-model-link.ts`): the built-in model's engine calls it.
       */
      readonly builtinModel?: MessagePort;
    }
  | { readonly type: 'CONNECT'; readonly port: MessagePort };

/** Engine worker → the page that started it, on the worker's own channel. */
export type EngineWorkerEvent =
  /** It holds `lifeLock`: from now on, the lock being free means the worker is gone. */
  | { readonly type: 'ALIVE' }
  /** It is about to close itself, and why (calls in flight were already answered with the error). */
  | { readonly type: 'EXITING'; readonly exit: EngineExit };

/** What calls cut off by a worker's own end fail with: why it ended, and what to do. */
export function describeExit(exit: EngineExit): { readonly reason: string; readonly code: 'device_lost' | 'engine_unavailable' } {
  return exit.reason === 'device_lost'
    ? { reason: `${exit.message} The engine is being rebuilt: retry the request.`, code: 'device_lost' }
    : { reason: `${exit.message} The engine worker was restarted; this request was cut off.`, code: 'engine_unavailable' };
}

/** How an engine worker ended when nobody asked it to. */
export interface EngineExit {
  /** `device_lost`: its GPU device was lost, so it closed to be rebuilt; `crashed`: it vanished without a word. */
  readonly reason: 'device_lost' | 'crashed';
  readonly message: string;
  /** When, as an ISO 8601 time. */
  readonly at: string;
}

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
