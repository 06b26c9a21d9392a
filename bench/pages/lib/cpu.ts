/**
 * How the benchmarks' stand-in engines (the floor worker, the synthetic producer) spend time like
 * an engine: CPU in a busy loop, and a return to the event loop between tokens.
 * @module
 */

/** Spends `ms` of CPU on this thread, as inference would. */
export function spin(ms: number): void {
  for (const until = performance.now() + ms; performance.now() < until; );
}

/** One macrotask, without the 4 ms clamp that nested timers get. */
export function nextTask(): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  return new Promise<void>((resolve) => {
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
