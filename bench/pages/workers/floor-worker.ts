/**
 * The floor's worker (no product code): answers every request on every port it is given with a
 * constant JSON string (after `busyMs` of CPU, when asked: an engine-like answer), and streams N
 * small chunks, one postMessage each, as fast as it can.
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

type Ask = { id: number; body?: string; stream?: number; busyMs?: number };

function serve(port: MessagePort): void {
  port.onmessage = (event: MessageEvent<Ask>) => {
    const { id, stream, busyMs } = event.data;
    if (stream === undefined) {
      // An engine-like answer: CPU spent in the worker before replying.
      if (busyMs) for (const until = performance.now() + busyMs; performance.now() < until; );
      port.postMessage({ id, body: CONSTANT });
      return;
    }
    for (let i = 0; i < stream; i++) port.postMessage({ id, chunk: CHUNK });
    port.postMessage({ id, done: true });
  };
}

self.onmessage = (event: MessageEvent<{ type: 'CONNECT' }>) => {
  if (event.data?.type === 'CONNECT') serve(event.ports[0]!);
};

export {};
