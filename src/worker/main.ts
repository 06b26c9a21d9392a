/**
 * The engine worker: owns the inference engines and serves them, through comlink, to every caller
 * that sends it a port (the page that started it, the service worker). Nothing else happens here.
 * @module
 */
import { createHostService, type HostService } from '../rpc/expose-host.ts';
import { createDefaultHost, type WorkerConfig } from './default-host.ts';

declare const self: DedicatedWorkerGlobalScope;

type Message = { type: 'CONFIGURE'; config: WorkerConfig } | { type: 'CONNECT'; port: MessagePort };

let service: HostService | undefined;
// The host is built on the first message, so a CONFIGURE sent right after spawning applies.
const start = (config: WorkerConfig = {}) => (service ??= createHostService(createDefaultHost(config, (progress) => service?.progress(progress))));

self.addEventListener('message', (event: MessageEvent<Message>) => {
  const message = event.data;
  if (message?.type === 'CONFIGURE') start(message.config);
  else if (message?.type === 'CONNECT') start().serve(message.port);
});
