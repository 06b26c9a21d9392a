/**
 * A caller's link to the engine worker, which lives in one tab (the host): the service worker's,
 * and that of each page answering its own requests. The link is replaced whenever a host offers a
 * new port; calls wait a while for one to arrive, and fail with a 503 when none does. A host tab
 * that disappears is noticed by a watchdog, so calls in flight fail instead of hanging.
 * @module
 */
import { wrap } from 'comlink';
import type { CallOptions, ChatRequest, EmbedRequest, Engine } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import type { EngineHostApi } from '../contracts/engine-host.ts';
import { linkEngine, type EngineLink, type SeverCode } from './engine-link.ts';

export interface EngineConnectionOptions {
  /** Asks for a port (the host answers with `attach`). */
  requestPort(): void;
  /** Whether the host that offered the current port still exists (checked each second while calls run). */
  hostAlive(hostId: string): Promise<boolean>;
  /** How long a call waits for a host. Default 15 s. */
  waitMs?: number;
}

export interface EngineConnection extends Engine {
  /** A port to the engine worker from the host with this id (null: unknown). */
  attach(port: MessagePort, hostId: string | null): void;
  /** The host said it is leaving. */
  detach(reason: string, code?: SeverCode): void;
  readonly linked: boolean;
}

export function createEngineConnection(options: EngineConnectionOptions): EngineConnection {
  let link: EngineLink | undefined;
  let host: string | null = null;
  let waiters: ((link: EngineLink) => void)[] = [];
  let watchdog: ReturnType<typeof setInterval> | undefined;
  let active = 0;

  const current = async (): Promise<EngineLink> => {
    if (link && !link.severed) return link;
    // Waiting before asking: a host may answer at once, from inside requestPort().
    const offered = new Promise<EngineLink>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters = waiters.filter((w) => w !== ready);
        reject(new GatewayError('engine_unavailable', 'No page is hosting the inference engine: open the app in a tab and try again.', { retryAfter: 1 }));
      }, options.waitMs ?? 15_000);
      const ready = (l: EngineLink) => {
        clearTimeout(timer);
        resolve(l);
      };
      waiters.push(ready);
    });
    options.requestPort();
    return offered;
  };

  /**
   * While calls are in flight, checks every second that the host tab still exists. The timer is
   * armed by the first call and stops itself at a tick with nothing in flight, so back-to-back
   * requests do not arm and clear a timer each.
   */
  const track = <T>(work: Promise<T>): Promise<T> => {
    active++;
    watchdog ??= setInterval(async () => {
      if (active === 0) {
        clearInterval(watchdog);
        watchdog = undefined;
      } else if (host && link && !(await options.hostAlive(host))) connection.detach('The tab hosting the inference engine was closed.');
    }, 1000);
    return work.finally(() => void active--);
  };

  const connection: EngineConnection = {
    get linked() {
      return link !== undefined && !link.severed;
    },
    attach(port, hostId) {
      // The same tab offering again (a page-side retry, an update of this worker): keep the live
      // link and its calls in flight. A restarted engine worker is announced with HOST_GONE first.
      if (link && !link.severed && hostId !== null && hostId === host) {
        port.close();
        return;
      }
      link?.sever('The inference engine moved to another tab; this request was cut off.');
      link = linkEngine(wrap<EngineHostApi>(port));
      host = hostId;
      const ready = waiters;
      waiters = [];
      for (const resolve of ready) resolve(link);
    },
    detach(reason, code) {
      link?.sever(reason, code);
      link = undefined;
      host = null;
    },
    async listModels() {
      return track((await current()).listModels());
    },
    async modelStates() {
      const engine = await current();
      return engine.modelStates ? track(engine.modelStates()) : [];
    },
    async embed(request: EmbedRequest, call: CallOptions) {
      return track((await current()).embed(request, call));
    },
    async *chat(request: ChatRequest, call: CallOptions) {
      const engine = await current();
      let finish!: () => void;
      void track(new Promise<void>((resolve) => (finish = resolve)));
      try {
        yield* engine.chat(request, call);
      } finally {
        finish();
      }
    },
  };
  return connection;
}
