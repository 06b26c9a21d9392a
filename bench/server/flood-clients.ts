/**
 * The flood for bench/server/flood.ts, in a process of its own so that its clients' work is not
 * counted on the server's or the measured streams' event loop: `clients` loops, each sending the
 * same streamed chat request again the moment its last one is answered, `retry-after` ignored. A
 * request the server admits is read to its end, as a real client would. Floods from the parent's
 * 'go' message to its 'pause' (so the process's own start-up is not part of any measurement), then
 * sends back what it got; 'exit' ends it.
 *
 *   node bench/server/flood-clients.ts <base URL> <clients>
 * @module
 */

export interface FloodCounts {
  /** Answers by status; `error` for requests that failed without one (a refused connection, a reset). */
  readonly statuses: Record<string, number>;
  readonly seconds: number;
}

const [url, clientsText] = process.argv.slice(2);
if (!url || !clientsText || !process.send) throw new Error('usage: node bench/server/flood-clients.ts <base URL> <clients> (as a child process with IPC)');
const body = JSON.stringify({ model: 'tiny-chat', stream: true, max_tokens: 40, messages: [{ role: 'user', content: 'flood' }] });
let statuses: Record<string, number> = {};
let stop = new AbortController();

async function client(signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    } catch {
      if (!signal.aborted) statuses.error = (statuses.error ?? 0) + 1;
    }
  }
}

let started = 0;
let done: Promise<unknown> = Promise.resolve();
process.on('message', async (message) => {
  if (message === 'go') {
    started = performance.now();
    statuses = {};
    stop = new AbortController();
    done = Promise.all(Array.from({ length: Number(clientsText) }, () => client(stop.signal)));
  } else if (message === 'pause') {
    const seconds = (performance.now() - started) / 1000;
    stop.abort();
    await done;
    process.send!({ statuses, seconds } satisfies FloodCounts);
  } else if (message === 'exit') {
    process.exit(0);
  }
});
process.send('ready');
