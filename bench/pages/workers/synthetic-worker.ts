/**
 * A worker serving the SYNTHETIC PRODUCER (lib/synthetic-engine.ts) through the product's own RPC
 * host (createHostService over comlink), speaking the same CONNECT protocol as src/worker/main.ts.
 * Callers (the bench page, the product's service worker) reach it exactly as they reach the real
 * engine worker; only the engine behind it differs.
 * @module
 */
import { createHostService } from '../../../src/rpc/expose-host.ts';
import { createSyntheticProducer } from '../lib/synthetic-engine.ts';

declare const self: DedicatedWorkerGlobalScope;

const service = createHostService(createSyntheticProducer());

self.addEventListener('message', (event: MessageEvent<{ type: 'CONNECT'; port: MessagePort }>) => {
  if (event.data?.type === 'CONNECT') service.serve(event.data.port);
});
