/**
 * How the page consumes an answer, as a client would: every timing ends when the page holds the
 * answer in the form a client uses (the body read and parsed, the iterator finished).
 * @module
 */

/** The browser's own fetch, captured at import: before the fetch shim (installed in setup) wraps it. */
export const nativeFetch = globalThis.fetch.bind(globalThis);

export function expectOk(response: Response, what: string): Response {
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status}`);
  return response;
}

/** Iterates a stream of events to its end; resolves to how many there were. */
export async function drain(events: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of events) n++;
  return n;
}

/** A gateway called in the page as `fetch` is (no transport between: what the fetch shim does). */
export function gatewayFetch(gateway: { fetch(request: Request): Promise<Response> }): typeof fetch {
  return ((url: string, init: RequestInit) => gateway.fetch(new Request(url, init))) as typeof fetch;
}
