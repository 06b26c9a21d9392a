/**
 * This page's own engine link, which its fetch shim's gateway answers over: to the page's own
 * engine worker while it hosts, else to the host tab's, through a port the service worker passes
 * on (asked for by the first call that needs the engine; after that the service worker is not on
 * the path). A host that vanishes without a word is noticed through Web Locks.
 * See docs/decisions/service-worker-limits.md.
 * @module
 */
import { describeExit, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import type { Engine } from '../core/engine.ts';
import type { SeverCode } from '../rpc/engine-link.ts';
import { createEngineConnection } from '../rpc/engine-connection.ts';
import { UNKNOWN_HOST_LOCK } from './host-election.ts';

export interface PageEngineLinkOptions {
  /** This tab's engine worker, while it hosts. */
  ownWorker(): { connect(): MessagePort } | undefined;
  /** To the service worker. */
  post(message: PageMessage): void;
  /** Where keys are configured, the service worker passes a link only to a page that shows one. */
  readonly apiKey?: string;
  /** Whether the host tab with this Web Locks id still holds the host lock. */
  hostHoldsLock(lockId: string): Promise<boolean>;
}

export interface PageEngineLink {
  /** The engine the page's gateway calls. */
  readonly engine: Engine;
  /** This tab hosts now: calls go to its own worker, and those waiting for a port get this one. */
  toOwnWorker(port: MessagePort): void;
  /** Cuts the calls in flight (the engine moved, stopped or was replaced). */
  cut(reason: string, code?: SeverCode): void;
  /** A message from the service worker: a port to the host tab's worker, or that host going. */
  receive(message: WorkerMessage): void;
}

/** The host id this page's link gives its own worker (Web Locks ids are 32 hex digits). */
const SELF = 'self';

export function createPageEngineLink(options: PageEngineLinkOptions): PageEngineLink {
  const connection = createEngineConnection({
    requestPort: () => {
      const worker = options.ownWorker();
      if (worker) connection.attach(worker.connect(), SELF);
      else options.post({ type: 'PAGE_PORT_REQUEST', ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}) });
    },
    hostAlive: async (id) => (id === SELF ? options.ownWorker() !== undefined : options.hostHoldsLock(id)),
  });
  return {
    engine: connection,
    toOwnWorker: (port) => connection.attach(port, SELF),
    cut: (reason, code) => connection.detach(reason, code),
    receive(message) {
      switch (message.type) {
        case 'ENGINE_PORT':
          // A port to another tab's worker; this tab may have become the host meanwhile.
          if (options.ownWorker()) message.port.close();
          else connection.attach(message.port, message.hostLock ?? UNKNOWN_HOST_LOCK);
          return;
        case 'HOST_GONE': {
          if (options.ownWorker()) return;
          const cut = message.exit ? describeExit(message.exit) : undefined;
          connection.detach(cut?.reason ?? 'The tab hosting the inference engine was closed, or restarted its engine; this request was cut off.', cut?.code);
          return;
        }
      }
    },
  };
}
