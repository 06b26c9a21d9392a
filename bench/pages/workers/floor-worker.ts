/**
 * The floor's worker (no product code): answers every request on every port it is given with a
 * constant JSON string (after `busyMs` of CPU, when asked: an engine-like answer), and streams N
 * small chunks, one postMessage each, as fast as it can (or after `paceMs` of CPU each).
 * @module
 */
import { nextTask, spin } from '../lib/cpu.ts';
import { FLOOR_ANSWER, FLOOR_CHUNK } from '../lib/floor-answer.ts';

declare const self: DedicatedWorkerGlobalScope;

type Ask = { id: number; body?: string; stream?: number; busyMs?: number; paceMs?: number; yieldEach?: boolean };

function serve(port: MessagePort): void {
  port.onmessage = async (event: MessageEvent<Ask>) => {
    const { id, stream, busyMs, paceMs, yieldEach } = event.data;
    if (stream === undefined) {
      // An engine-like answer: CPU spent in the worker before replying.
      if (busyMs) spin(busyMs);
      port.postMessage({ id, body: FLOOR_ANSWER });
      return;
    }
    for (let i = 0; i < stream; i++) {
      // Paced: CPU spent before each chunk, like an engine producing tokens at a steady rate.
      if (paceMs) spin(paceMs);
      port.postMessage({ id, chunk: FLOOR_CHUNK });
      // Yielding: back to the event loop after each chunk, as an engine awaiting its runtime does.
      if (yieldEach) await nextTask();
    }
    port.postMessage({ id, done: true });
  };
}

self.onmessage = (event: MessageEvent<{ type: 'CONNECT' }>) => {
  if (event.data?.type === 'CONNECT') serve(event.ports[0]!);
};

export {};
