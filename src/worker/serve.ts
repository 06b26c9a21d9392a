/**
 * The engine worker's side of the spawn protocol (`CONFIGURE`, then `CONNECT` per caller), for any
 * model host: the product's own worker serves the catalog's engines with it, and a worker of an
 * app's own (a custom engine, a test double) serves whatever host it builds.
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';
import { onGpuDeviceLost, type GpuDeviceLoss } from '../engines/device/gpu-device-watch.ts';
import type { ModelHost } from '../engines/hosting/model-host.ts';
import type { EngineExit, EngineWorkerEvent, EngineWorkerMessage } from '../contracts/control-messages.ts';
import { createHostService, type HostService } from '../rpc/expose-host.ts';

declare const self: DedicatedWorkerGlobalScope;

/**
 * How long after a device loss the worker waits before closing itself. The page that started it
 * replaces it as soon as it reads `EXITING` (its callers' calls were answered just before); the
 * close is for a host that does not act on `EXITING`, whose callers then see the worker end.
 */
const CLOSE_DELAY_MS = 100;

/** The ports the page that started the worker hands it besides its settings (engine links are the callers', `CONNECT`). */
export interface PagePorts {
  /** The page's Prompt API, for the built-in model (see `CONFIGURE`). */
  readonly builtinModel?: MessagePort;
}

export function serveEngineWorker<Config extends object>(createHost: (config: Config, onProgress: (progress: LoadProgress) => void, page: PagePorts) => ModelHost): void {
  let service: HostService | undefined;
  let host: ModelHost | undefined;
  // The host is built on the first message, so a CONFIGURE sent right after spawning applies.
  const start = (config = {} as Config, page: PagePorts = {}) =>
    (service ??= createHostService((host = buildHost(() => createHost(config, (progress) => service?.progress(progress), page)))));
  const tell = (event: EngineWorkerEvent) => self.postMessage(event);

  // Neither engine can take a new GPU device once its own is lost: the worker answers every call
  // in flight or waiting with a 503 saying so, and closes; the page that started it notices (its
  // life lock comes free) and starts a fresh one, which gets a new device.
  onGpuDeviceLost((loss) => {
    const exit: EngineExit = { reason: 'device_lost', message: describeLoss(loss), at: new Date().toISOString() };
    console.error(`inpage-llm: ${exit.message}`);
    service?.closeWith(new GatewayError('device_lost', `${exit.message} The engine is being rebuilt: retry the request.`, { retryAfter: 1 }));
    tell({ type: 'EXITING', exit });
    setTimeout(() => self.close(), CLOSE_DELAY_MS);
  });

  self.addEventListener('message', (event: MessageEvent<EngineWorkerMessage<Config>>) => {
    const message = event.data;
    if (message?.type === 'CONFIGURE') {
      start(message.config, { builtinModel: message.builtinModel });
      if (message.previousExit) host?.recordExit?.(message.previousExit);
      if (message.lifeLock) holdForLife(message.lifeLock, () => tell({ type: 'ALIVE' }));
    } else if (message?.type === 'CONNECT') start().serve(message.port);
  });
}

function describeLoss(loss: GpuDeviceLoss): string {
  const detail = loss.message ? `: ${loss.message}` : '';
  return `The GPU device was lost (${loss.reason}${detail}), as happens under GPU memory pressure or a driver reset.`;
}

/** Holds the lock until this worker ends (a lock held by a context is freed when it goes). */
function holdForLife(name: string, held: () => void): void {
  const locks = (self.navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return;
  void locks.request(name, () => {
    held();
    return new Promise<never>(() => {});
  });
}

/**
 * A host that could not be built (a mistake in the app's settings, such as a malformed model
 * entry) still answers: every call gets the reason as a 503, instead of waiting on a worker that
 * threw before it served anything.
 */
function buildHost(create: () => ModelHost): ModelHost {
  try {
    return create();
  } catch (cause) {
    console.error('inpage-llm: the engine worker could not start:', cause);
    const error = () => new GatewayError('engine_unavailable', `The engine worker could not start: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    const reject = async (): Promise<never> => {
      throw error();
    };
    return {
      listModels: reject,
      chat: async function* () {
        yield* [];
        throw error();
      },
      embed: reject,
      load: reject,
      unload: reject,
      status: () => [],
      modelStates: reject,
      recordExit: () => {},
    };
  }
}
