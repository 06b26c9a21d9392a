/**
 * The engine worker's side of the spawn protocol (`CONFIGURE`, then `CONNECT` per caller), for any
 * model host: the product's own worker serves the catalog's engines with it, and a worker of an
 * app's own (a custom engine, a test double) serves whatever host it builds.
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';
import type { ModelHost } from '../engines/model-host.ts';
import type { EngineWorkerMessage } from '../contracts/control-messages.ts';
import { createHostService, type HostService } from '../rpc/expose-host.ts';

declare const self: DedicatedWorkerGlobalScope;

export function serveEngineWorker<Config extends object>(createHost: (config: Config, onProgress: (progress: LoadProgress) => void) => ModelHost): void {
  let service: HostService | undefined;
  // The host is built on the first message, so a CONFIGURE sent right after spawning applies.
  const start = (config = {} as Config) => (service ??= createHostService(buildHost(() => createHost(config, (progress) => service?.progress(progress)))));
  self.addEventListener('message', (event: MessageEvent<EngineWorkerMessage<Config>>) => {
    const message = event.data;
    if (message?.type === 'CONFIGURE') start(message.config);
    else if (message?.type === 'CONNECT') start().serve(message.port);
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
    };
  }
}
