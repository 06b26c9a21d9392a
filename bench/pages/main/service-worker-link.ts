/**
 * Re-linking the product's service worker to another engine worker, through the control messages
 * the product's own host uses: the page's host steps down (`HOST_GONE`) and the page offers the
 * port of its choice (`ENGINE_PORT`). The synthetic sections run last for this reason.
 * @module
 */
import type { Inference } from '../../../src/client/index.ts';
import { BUILD } from '../../../src/contracts/control-messages.ts';

const controller = () => navigator.serviceWorker.controller!;

/** The service worker forgets its engine port. */
export function hostGone(): void {
  controller().postMessage({ type: 'HOST_GONE' });
}

/** The real host steps down: its engine worker stops, and the service worker forgets it. */
export async function stopProductHost(inference: Inference): Promise<void> {
  await inference.stop();
  await new Promise((resolve) => setTimeout(resolve, 100));
  hostGone();
}

/** The service worker's engine from now on: whatever answers on `port`. */
export function offerEnginePort(port: MessagePort): void {
  controller().postMessage({ type: 'ENGINE_PORT', port, build: BUILD }, [port]);
}
