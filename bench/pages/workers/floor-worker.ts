/**
 * The floor's worker (no product code): answers every request on every port it is given with a
 * constant JSON string (after `busyMs` of CPU, when asked: an engine-like answer), and streams N
 * small chunks, one postMessage each, as fast as it can (or after `paceMs` of CPU each).
 * @module
 */
declare const self: DedicatedWorkerGlobalScope;

const CONSTANT = JSON.stringify({
  id: 'chatcmpl-floor',
  object: 'chat.completion',
  created: 0,
  model: 'floor',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'length' }],
  usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
});
const CHUNK = '{"choices":[{"index":0,"delta":{"content":"x"}}]}';

type Ask = { id: number; body?: string; stream?: number; busyMs?: number; paceMs?: number; yieldEach?: boolean };

/** One macrotask, without the 4 ms clamp that nested timers get. */
function nextTask(): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  return new Promise<void>((resolve) => {
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}

function serve(port: MessagePort): void {
  port.onmessage = async (event: MessageEvent<Ask>) => {
    const { id, stream, busyMs, paceMs, yieldEach } = event.data;
    if (stream === undefined) {
      // An engine-like answer: CPU spent in the worker before replying.
      if (busyMs) for (const until = performance.now() + busyMs; performance.now() < until; );
      port.postMessage({ id, body: CONSTANT });
      return;
    }
    for (let i = 0; i < stream; i++) {
      // Paced: CPU spent before each chunk, like an engine producing tokens at a steady rate.
      if (paceMs) for (const until = performance.now() + paceMs; performance.now() < until; );
      port.postMessage({ id, chunk: CHUNK });
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
