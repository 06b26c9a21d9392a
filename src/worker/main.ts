/**
 * The engine worker: owns the inference engines and serves them, through comlink, to every caller
 * that sends it a port (the page that started it, the service worker). Nothing else happens here.
 * @module
 */
import { createDefaultHost } from './default-host.ts';
import { serveEngineWorker } from './serve.ts';

serveEngineWorker(createDefaultHost);
