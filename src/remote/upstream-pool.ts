/**
 * The upstream servers behind one remote model, as one sender: each request goes to the live URL
 * with the fewest requests in flight, waits in line when all are busy, and moves to the next URL
 * when a connection fails before any response. Pure web APIs (`fetch`, streams, timers), so it runs
 * in a service worker as well as in Node.
 * @module
 */
import { abortedError, GatewayError } from '../core/errors.ts';
import { readBytesWithin } from '../core/json-body.ts';
import type { UpstreamHealth } from '../core/remote-state.ts';

export interface UpstreamPoolOptions {
  /** Base URLs, `/v1` included (`http://127.0.0.1:11434/v1`); trailing slashes are ignored. */
  readonly urls: readonly string[];
  /** Requests in flight at once per URL (default 32). */
  readonly maxConcurrent?: number;
  /** Requests waiting for a free slot across the pool (default 256); one more is refused with `queue_full`. */
  readonly maxQueue?: number;
  /** Milliseconds until response headers (default 300 000); past it, `upstream_timeout`. */
  readonly timeoutMs?: number;
  /** Sent with health probes (the upstream's key, where `/models` needs one). */
  readonly probeHeaders?: Readonly<Record<string, string>>;
  /** Default `globalThis.fetch`, looked up per call and called as a plain function. */
  readonly fetch?: typeof fetch;
}

export interface SendOptions {
  /** This request's wait for headers, when shorter than the pool's (a runtime that cuts requests sooner). */
  readonly timeoutMs?: number;
}

export interface Sent {
  readonly response: Response;
  /** The base URL that answered. */
  readonly url: string;
  /**
   * Every URL was unavailable, and this is the last one's answer (a 502, 503 or 504): the upstream's
   * own error, for a caller with nowhere else to go; one with a fallback treats it as unreachable.
   */
  readonly unavailable?: boolean;
}


export interface UpstreamPool {
  /** Sends one request to one URL (path appended to its base, e.g. '/chat/completions'). Resolves once headers arrive, with any status. */
  send(path: string, init: { method: string; headers: Record<string, string>; body?: string }, signal: AbortSignal, options?: SendOptions): Promise<Sent>;
  /**
   * Each URL's state; with probe: true, URLs not checked in the last 5 s are probed first (GET
   * <url>/models, 2 s timeout, status < 500 = up), and the models of URLs that have not listed
   * them yet are read (the same GET, which then says nothing of health).
   */
  health(options?: { probe?: boolean }): Promise<readonly UpstreamHealth[]>;
  /** What the servers last listed at `GET <url>/models` (its `data`), an up URL's first; undefined before any listed. */
  listing(): readonly unknown[] | undefined;
}

const PROBE_TIMEOUT_MS = 2_000;
const PROBE_FRESH_MS = 5_000;
const BACKOFF_MS = 2_000;
const MAX_BACKOFF_MS = 30_000;

interface Member {
  readonly url: string;
  inFlight: number;
  state: UpstreamHealth['state'];
  lastError?: string;
  checkedAt?: number;
  /** Skipped by the choice until then (ms since epoch), unless every URL left to try is down. */
  downUntil: number;
  /** Consecutive failures, for the backoff. */
  failures: number;
  probing?: Promise<void>;
  /** The `data` of its last successful `GET /models` (empty: it answered without one). */
  listing?: readonly unknown[];
}

interface Waiter {
  readonly tried: ReadonlySet<Member>;
  readonly grant: (member: Member) => void;
}

/** A fetch that failed before any response: a failure worth another URL. */
class ConnectionFailure extends Error {}

/**
 * What a proxy or a load balancer answers for a server behind it that is down or overloaded (and
 * what a server says when it cannot take work now): worth another URL, like a refused connection.
 * Any other status is the server's answer to this request, and is passed on.
 */
const UNAVAILABLE = new Set([502, 503, 504]);

export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  if (options.urls.length === 0) throw new TypeError('An upstream pool needs at least one URL.');
  const maxConcurrent = Math.max(1, options.maxConcurrent ?? 32);
  const maxQueue = options.maxQueue ?? 256;
  const timeoutMs = options.timeoutMs ?? 300_000;
  const fetchFn: typeof fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  const members: Member[] = options.urls.map((url) => ({ url: url.replace(/\/+$/, ''), inFlight: 0, state: 'unknown', downUntil: 0, failures: 0 }));
  const queue: Waiter[] = [];
  let turn = 0;

  // Both change which URLs a waiter may take, so both hand out slots again.
  function markUp(member: Member): void {
    member.state = 'up';
    member.lastError = undefined;
    member.checkedAt = Date.now();
    member.downUntil = 0;
    member.failures = 0;
    pump();
  }

  function markDown(member: Member, error: string): void {
    member.failures += 1;
    member.state = 'down';
    member.lastError = error;
    member.checkedAt = Date.now();
    member.downUntil = member.checkedAt + Math.min(BACKOFF_MS * 2 ** (member.failures - 1), MAX_BACKOFF_MS);
    pump();
  }

  /** The URL for a request that has already tried `tried`, or undefined when all candidates are busy. */
  function pick(tried: ReadonlySet<Member>): Member | undefined {
    const now = Date.now();
    const untried = members.filter((m) => !tried.has(m));
    const live = untried.filter((m) => m.downUntil <= now);
    if (live.length === 0) {
      // Every URL left is down: try them anyway, soonest to recover first, rather than refuse untried.
      return untried.filter((m) => m.inFlight < maxConcurrent).sort((a, b) => a.downUntil - b.downUntil)[0];
    }
    // Fewest in flight; scanning from a rotating start spreads ties.
    let best: Member | undefined;
    for (let i = 0; i < members.length; i++) {
      const m = members[(turn + i) % members.length]!;
      if (live.includes(m) && m.inFlight < maxConcurrent && (!best || m.inFlight < best.inFlight)) best = m;
    }
    if (best) turn = (members.indexOf(best) + 1) % members.length;
    return best;
  }

  /** Hands freed slots to waiters in arrival order (a waiter whose URLs are all busy keeps its place). */
  function pump(): void {
    for (const waiter of [...queue]) {
      const member = pick(waiter.tried);
      if (!member) continue;
      queue.splice(queue.indexOf(waiter), 1);
      member.inFlight += 1;
      waiter.grant(member);
    }
  }

  function release(member: Member): void {
    member.inFlight -= 1;
    pump();
  }

  function acquire(tried: ReadonlySet<Member>, signal: AbortSignal, retry: boolean): Promise<Member> {
    const free = queue.length === 0 ? pick(tried) : undefined;
    if (free) {
      free.inFlight += 1;
      return Promise.resolve(free);
    }
    // A retry was admitted already: it must not be refused for a line it did not cause.
    if (!retry && queue.length >= maxQueue) {
      return Promise.reject(new GatewayError('queue_full', `All ${members.length} upstream URL(s) are busy and ${queue.length} requests are waiting; retry shortly.`, { retryAfter: 1 }));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(abortedError('while waiting for a free upstream'));
      };
      const waiter: Waiter = {
        tried,
        grant: (member) => {
          signal.removeEventListener('abort', onAbort);
          resolve(member);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      pump();
    });
  }

  /** One fetch to one URL, up to its headers. */
  async function attempt(member: Member, path: string, init: { method: string; headers: Record<string, string>; body?: string }, signal: AbortSignal, waitMs: number): Promise<Response> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), waitMs);
    try {
      // The caller's signal stays on the fetch after headers, so a caller abort also closes the body's connection.
      // Redirects are not followed: fetch would carry the key in `x-api-key` and the config's headers to another host.
      return await fetchFn(joinPath(member.url, path), { ...init, redirect: 'manual', signal: anySignal([signal, timeout.signal]) });
    } catch (error) {
      if (signal.aborted) throw abortedError('while waiting for the upstream');
      // No retry on timeout: the upstream may still be working on it, and a second one would double the load.
      if (timeout.signal.aborted) throw new GatewayError('upstream_timeout', `The upstream ${member.url} sent no response headers within ${(waitMs / 1000).toFixed(waitMs < 10_000 ? 1 : 0)} s.`);
      throw new ConnectionFailure(describeFailure(error));
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(path: string, init: { method: string; headers: Record<string, string>; body?: string }, signal: AbortSignal, sendOptions: SendOptions = {}): Promise<Sent> {
    if (signal.aborted) throw abortedError('before the upstream was called');
    const waitMs = Math.min(timeoutMs, sendOptions.timeoutMs ?? Infinity);
    const tried = new Set<Member>();
    const failures: string[] = [];
    while (tried.size < members.length) {
      const member = await acquire(tried, signal, tried.size > 0);
      tried.add(member);
      let response: Response;
      try {
        response = await attempt(member, path, init, signal, waitMs);
      } catch (error) {
        if (!(error instanceof ConnectionFailure)) {
          release(member);
          throw error;
        }
        markDown(member, error.message);
        release(member);
        failures.push(`${member.url} (${error.message})`);
        continue;
      }
      if (!UNAVAILABLE.has(response.status)) {
        markUp(member);
        return { response: holdSlotUntilRead(response, signal, () => release(member)), url: member.url };
      }
      const said = `answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
      markDown(member, said);
      if (tried.size === members.length) return { response: holdSlotUntilRead(response, signal, () => release(member)), url: member.url, unavailable: true };
      await response.body?.cancel().catch(() => {});
      release(member);
      failures.push(`${member.url} (${said})`);
    }
    const message = members.length === 1 ? `Could not reach the upstream ${failures[0]}.` : `Could not reach any of the ${members.length} upstreams: ${failures.join('; ')}.`;
    throw new GatewayError('upstream_unreachable', message, { retryAfter: 2 });
  }

  /**
   * `GET <url>/models`: its health (unless `forListing`: a URL whose health is fresh, asked only for
   * its models) and the models it lists.
   */
  function probe(member: Member, forListing = false): Promise<void> {
    member.probing ??= (async () => {
      try {
        const response = await fetchFn(joinPath(member.url, '/models'), { method: 'GET', headers: { ...options.probeHeaders }, redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
        // Read once it answers: a server whose list is not one (no `data`) is not asked again for it.
        if (response.ok) member.listing = (await readListing(response)) ?? [];
        else await response.body?.cancel().catch(() => {});
        if (forListing) return;
        if (response.status < 500) markUp(member);
        else markDown(member, `GET /models answered ${response.status}`);
      } catch (error) {
        if (!forListing) markDown(member, isAbort(error) ? `GET /models sent no response within ${PROBE_TIMEOUT_MS} ms` : describeFailure(error));
      } finally {
        member.probing = undefined;
      }
    })();
    return member.probing;
  }

  async function health(opts: { probe?: boolean } = {}): Promise<readonly UpstreamHealth[]> {
    if (opts.probe) {
      const stale = (m: Member) => m.checkedAt === undefined || Date.now() - m.checkedAt >= PROBE_FRESH_MS;
      await Promise.all(members.map((m) => (stale(m) ? probe(m) : m.listing === undefined && m.state === 'up' ? probe(m, true) : undefined)));
    }
    return members.map((m) => ({
      url: m.url,
      state: m.state,
      inFlight: m.inFlight,
      ...(m.lastError !== undefined && { lastError: m.lastError }),
      ...(m.checkedAt !== undefined && { checkedAt: new Date(m.checkedAt).toISOString() }),
    }));
  }

  return { send, health, listing: () => (members.find((m) => m.state === 'up' && m.listing?.length) ?? members.find((m) => m.listing?.length))?.listing };
}

/** The most of a models list read: a server's list of thousands of models is not worth more. */
const MAX_LISTING_BYTES = 1024 * 1024;

/**
 * A `GET /models` answer's `data`; undefined for anything else, and for a list past the cap. One
 * that says it is larger is not read; any other is counted as it arrives and abandoned at the cap,
 * whether or not it gave a Content-Length (none, a false one, or the size before decompression).
 */
async function readListing(response: Response): Promise<readonly unknown[] | undefined> {
  const length = response.headers.get('content-length');
  if (length !== null && Number(length) > MAX_LISTING_BYTES) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  try {
    const bytes = await readBytesWithin(response.body, MAX_LISTING_BYTES);
    if (bytes === undefined) return undefined;
    const body = JSON.parse(new TextDecoder().decode(bytes)) as { data?: unknown };
    return Array.isArray(body?.data) ? body.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The response with its body passed through chunk by chunk, so that the slot is held until the
 * body has been read to the end, has failed or was cancelled (streams run for minutes).
 */
function holdSlotUntilRead(response: Response, signal: AbortSignal, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  let finished = false;
  const finish = (): boolean => {
    if (finished) return false;
    finished = true;
    signal.removeEventListener('abort', onAbort);
    release();
    return true;
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // Not left to the fetch alone: a reader that stopped pulling would otherwise hold the slot forever.
  // Closed, not errored: the caller who aborted reads no more, and an error here would be logged
  // as a failure by an HTTP layer that is still winding the response down.
  const onAbort = () => {
    if (!finish()) return;
    controller.close();
    reader.cancel(signal.reason).catch(() => {});
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      async pull(c) {
        try {
          const { done, value } = await reader.read();
          if (finished) return;
          if (done) {
            finish();
            c.close();
          } else c.enqueue(value);
        } catch (error) {
          if (finish()) c.error(error);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    // Pull only when the reader asks: nothing is buffered ahead of the consumer.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function joinPath(base: string, path: string): string {
  return `${base}${path.startsWith('/') ? '' : '/'}${path}`;
}

export function anySignal(signals: AbortSignal[]): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any(signals);
  const controller = new AbortController();
  for (const s of signals) {
    if (s.aborted) controller.abort(s.reason);
    else s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/**
 * "fetch failed: connect ECONNREFUSED 127.0.0.1:8000": the fetch's message and its cause's, which
 * names the reason. A browser says only "Failed to fetch", for a refused connection and for a
 * server that does not allow the app's origin alike: the message names both.
 */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message === 'Failed to fetch') return 'Failed to fetch: the server is down, or it does not allow this origin (CORS)';
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const causeMessage = typeof cause?.message === 'string' ? cause.message : '';
  const detail = code && !causeMessage.includes(code) ? [code, causeMessage].filter(Boolean).join(': ') : causeMessage;
  return detail && detail !== error.message ? `${error.message}: ${detail}` : error.message;
}
