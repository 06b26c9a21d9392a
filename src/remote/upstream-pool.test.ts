/**
 * The upstream pool against real HTTP servers on 127.0.0.1: refused connections, busy URLs,
 * timeouts, aborts seen by the server, streamed bodies passed through as they come, health probes.
 * Waits are on events (a request arriving, a connection closing), never on sleeps.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../core/errors.ts';
import { createUpstreamPool } from './upstream-pool.ts';

interface Hit {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Resolves when the connection closes; true when the client went away before the response ended. */
  readonly closed: Promise<boolean>;
}

interface TestServer {
  readonly url: string;
  readonly hits: Hit[];
  /** The next request to arrive (or the oldest one not yet taken). */
  next(): Promise<Hit>;
  close(): Promise<void>;
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose handler may answer at once; requests it leaves open are for the test to answer. */
async function startServer(handle?: (hit: Hit) => void): Promise<TestServer> {
  const hits: Hit[] = [];
  let taken = 0;
  let waiting: ((hit: Hit) => void) | undefined;
  const server = createServer((req, res) => {
    const closed = new Promise<boolean>((resolve) =>
      res.on('close', () => resolve(!res.writableFinished)),
    );
    const hit = { req, res, closed };
    hits.push(hit);
    handle?.(hit);
    if (waiting) {
      waiting(hits[taken++]!);
      waiting = undefined;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const test: TestServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`,
    hits,
    next: () => (taken < hits.length ? Promise.resolve(hits[taken++]!) : new Promise((resolve) => (waiting = resolve))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  servers.push(test);
  return test;
}

/** A URL nobody listens on: a server's port, closed again. */
async function closedURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

const answerOK = ({ res }: Hit) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"m"}' };
const live = () => new AbortController().signal;
const base = (server: TestServer) => server.url.replace(/\/$/, '');

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('createUpstreamPool', () => {
  it('moves a refused connection to the next URL, marks the first down and skips it while it is', async () => {
    const dead = await closedURL();
    const server = await startServer(answerOK);
    const pool = createUpstreamPool({ urls: [dead, server.url] });
    expect((await pool.health()).map((h) => h.state)).toEqual(['unknown', 'unknown']);

    const { response, url } = await pool.send('/chat/completions', post, live());
    expect(url).toBe(base(server));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.hits[0]!.req.url).toBe('/v1/chat/completions');
    expect(server.hits[0]!.req.method).toBe('POST');

    const [down, up] = await pool.health();
    expect(down).toMatchObject({ url: dead, state: 'down', inFlight: 0 });
    expect(down!.lastError).toMatch(/ECONNREFUSED/);
    expect(Date.parse(down!.checkedAt!)).not.toBeNaN();
    expect(up).toMatchObject({ url: base(server), state: 'up', inFlight: 0 });

    // Within its backoff the dead URL is not tried again: its check time stays as it was.
    await (await pool.send('/chat/completions', post, live())).response.text();
    expect((await pool.health())[0]!.checkedAt).toBe(down!.checkedAt);
    expect(server.hits).toHaveLength(2);
  });

  it('sends each request to the URL with the fewest in flight, rotating on ties', async () => {
    let hold!: (hit: Hit) => void;
    const held = new Promise<Hit>((resolve) => (hold = resolve));
    const a = await startServer((hit) => (hit.req.url?.endsWith('/hold') ? hold(hit) : answerOK(hit)));
    const b = await startServer(answerOK);
    const pool = createUpstreamPool({ urls: [a.url, b.url] });
    for (let i = 0; i < 4; i++) await (await pool.send('/x', post, live())).response.text();
    expect([a.hits.length, b.hits.length]).toEqual([2, 2]);

    // A stream held open on one URL sends the next requests to the other.
    const sent = pool.send('/hold', post, live());
    const holding = await held;
    holding.res.writeHead(200).write('partial');
    const { response } = await sent;
    for (let i = 0; i < 3; i++) {
      const other = await pool.send('/x', post, live());
      await other.response.text();
      expect(other.url).toBe(base(b));
    }
    expect((await pool.health()).map((h) => h.inFlight)).toEqual([1, 0]);
    holding.res.end();
    await response.text();
    expect((await pool.health()).map((h) => h.inFlight)).toEqual([0, 0]);
  });

  it('keeps at most maxConcurrent in flight per URL; a slot frees when a streamed body ends or is cancelled', async () => {
    // Counted at each arrival: requests the server got minus those the test has finished with. (The
    // server's own count of open sockets lags: a cancelled body's connection closes on its way.)
    let finished = 0;
    const heldAtArrival: number[] = [];
    const server = await startServer((hit) => {
      heldAtArrival.push(server.hits.length - finished);
      hit.res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n');
    });
    const pool = createUpstreamPool({ urls: [server.url], maxConcurrent: 2 });
    let settled = 0;
    const sends = Array.from({ length: 5 }, () => pool.send('/chat/completions', post, live()).finally(() => (settled += 1)));

    const [first, second] = [await server.next(), await server.next()];
    const [r1, r2] = [(await sends[0]!).response, (await sends[1]!).response];
    expect(settled).toBe(2);
    expect((await pool.health())[0]!.inFlight).toBe(2);

    // Reading the first body to its end frees its slot for the third request.
    first.res.end('data: 2\n\n');
    expect(await r1.text()).toBe('data: 1\n\ndata: 2\n\n');
    finished += 1;
    const third = await server.next();

    // Cancelling the second body frees its slot for the fourth, and closes the upstream connection.
    await r2.body!.cancel();
    finished += 1;
    expect(await second.closed).toBe(true);
    const fourth = await server.next();

    // Answered but not yet read, they still hold both slots: the fifth goes once one is read.
    third.res.end();
    fourth.res.end();
    await (await sends[2]!).response.text();
    finished += 1;
    (await server.next()).res.end();
    for (const send of sends.slice(3)) await (await send).response.text();
    expect(heldAtArrival).toEqual([1, 2, 2, 2, 2]);
    expect((await pool.health())[0]!.inFlight).toBe(0);
  });

  it('refuses with queue_full beyond maxQueue, and a waiter that aborts leaves the line', async () => {
    const server = await startServer();
    const pool = createUpstreamPool({ urls: [server.url], maxConcurrent: 1, maxQueue: 1 });
    const running = pool.send('/x', post, live());
    const holding = await server.next();

    const caller = new AbortController();
    const waiting = pool.send('/x', post, caller.signal);
    const refused = await rejection(pool.send('/x', post, live()));
    expect(refused.code).toBe('queue_full');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe(1);

    caller.abort();
    expect((await rejection(waiting)).code).toBe('aborted');
    // Its place is free again: one more may wait, and it gets the slot once the first is done.
    const after = pool.send('/x', post, live());
    holding.res.end('one');
    expect(await (await running).response.text()).toBe('one');
    (await server.next()).res.end('two');
    expect(await (await after).response.text()).toBe('two');
    expect(server.hits).toHaveLength(2);
  });

  it('gives up on an upstream that sends no headers in time, without trying another URL', async () => {
    const slow = await startServer();
    const other = await startServer(answerOK);
    const pool = createUpstreamPool({ urls: [slow.url, other.url], timeoutMs: 200 });
    const error = await rejection(pool.send('/chat/completions', post, live()));
    expect(error.code).toBe('upstream_timeout');
    expect(error.status).toBe(504);
    expect(error.message).toContain(base(slow));
    expect(error.message).toContain('0.2 s');
    expect(await slow.hits[0]!.closed).toBe(true);
    expect(other.hits).toHaveLength(0);
    expect((await pool.health()).map((h) => h.inFlight)).toEqual([0, 0]);
  });

  it('passes a caller abort while waiting for headers on to the upstream connection', async () => {
    const server = await startServer();
    const pool = createUpstreamPool({ urls: [server.url] });
    const caller = new AbortController();
    const sent = pool.send('/chat/completions', post, caller.signal);
    const hit = await server.next();
    caller.abort();
    expect((await rejection(sent)).code).toBe('aborted');
    expect(await hit.closed).toBe(true);
    expect((await pool.health())[0]).toMatchObject({ inFlight: 0, state: 'unknown' });
  });

  it('passes a caller abort while the body streams on to the upstream connection, and frees the slot', async () => {
    const server = await startServer((hit) => hit.res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: 1\n\n'));
    const pool = createUpstreamPool({ urls: [server.url] });
    const caller = new AbortController();
    const { response } = await pool.send('/chat/completions', post, caller.signal);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: 1\n\n');
    // Nobody is reading at the moment of the abort: the slot must not wait for the next read.
    caller.abort();
    expect((await pool.health())[0]!.inFlight).toBe(0);
    expect(await server.hits[0]!.closed).toBe(true);
    // Ended quietly: the caller that aborted reads no more, and an HTTP layer still winding the
    // response down would log an error as a failure.
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('passes streamed chunks through as they are sent', async () => {
    const sentAt: number[] = [];
    const receivedAt: number[] = [];
    let lastSentBeforeFirstSeen: boolean | undefined;
    let firstSeen!: () => void;
    const seen = new Promise<void>((resolve) => (firstSeen = resolve));
    const server = await startServer(async ({ res }) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 3; i++) {
        sentAt.push(performance.now());
        res.write(`data: ${i}\n\n`);
      }
      // The last chunk waits for the first to be seen, or 2 s: a relay that buffered would see it only after.
      await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      sentAt.push(performance.now());
      res.end('data: [DONE]\n\n');
    });
    const pool = createUpstreamPool({ urls: [server.url] });
    const { response } = await pool.send('/chat/completions', post, live());
    let text = '';
    for await (const chunk of response.body!) {
      receivedAt.push(performance.now());
      lastSentBeforeFirstSeen ??= sentAt.length === 4;
      text += new TextDecoder().decode(chunk);
      firstSeen();
    }
    expect(text).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    expect(lastSentBeforeFirstSeen).toBe(false);
    expect(receivedAt[0]).toBeLessThan(sentAt.at(-1)!);
    expect(receivedAt.length).toBeGreaterThanOrEqual(2);
  });

  it('releases a response without a body at once', async () => {
    const server = await startServer(({ res }) => res.writeHead(204).end());
    const pool = createUpstreamPool({ urls: [server.url] });
    const { response } = await pool.send('/x', post, live());
    expect(response.status).toBe(204);
    expect((await pool.health())[0]).toMatchObject({ inFlight: 0, state: 'up' });
  });

  it('passes the server’s own answers through, errors included, and counts the server as up, without retrying', async () => {
    const failing = await startServer(({ res }) => res.writeHead(429, 'Busy', { 'retry-after': '3' }).end('{"error":{"message":"busy"}}'));
    const other = await startServer(answerOK);
    const pool = createUpstreamPool({ urls: [failing.url, other.url] });
    const { response, url, unavailable } = await pool.send('/x', post, live());
    expect([response.status, response.statusText, response.headers.get('retry-after'), unavailable]).toEqual([429, 'Busy', '3', undefined]);
    expect(await response.json()).toEqual({ error: { message: 'busy' } });
    expect(url).toBe(base(failing));
    expect(other.hits).toHaveLength(0);
    expect((await pool.health())[0]!.state).toBe('up');
  });

  it('moves past a URL that answers 502, 503 or 504 (a proxy whose server is down), and hands back the last such answer when every URL gives one', async () => {
    const proxies = await Promise.all([502, 503, 504].map((status) => startServer(({ res }) => res.writeHead(status).end(`{"error":{"message":"down ${status}"}}`))));
    const other = await startServer(answerOK);
    const served = await createUpstreamPool({ urls: [proxies[0]!.url, other.url] }).send('/x', post, live());
    expect([served.response.status, served.url, served.unavailable]).toEqual([200, base(other), undefined]);

    const pool = createUpstreamPool({ urls: proxies.map((p) => p.url) });
    const last = await pool.send('/x', post, live());
    expect([last.response.status, last.unavailable]).toEqual([504, true]);
    expect(await last.response.json()).toEqual({ error: { message: 'down 504' } });
    expect((await pool.health()).map((h) => [h.state, h.lastError, h.inFlight])).toEqual([
      ['down', 'answered 502 Bad Gateway', 0],
      ['down', 'answered 503 Service Unavailable', 0],
      ['down', 'answered 504 Gateway Timeout', 0],
    ]);
  });

  it('does not follow a redirect, which would carry the key and the config’s headers to another host', async () => {
    const elsewhere = await startServer(answerOK);
    const redirecting = await startServer(({ res }) => res.writeHead(307, { location: `${elsewhere.url}/x` }).end());
    const { response } = await createUpstreamPool({ urls: [redirecting.url] }).send('/x', post, live());
    expect(response.status).toBe(307);
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('fails with upstream_unreachable naming every URL when none answers, yet tries them all again next time', async () => {
    const urls = [await closedURL(), await closedURL()];
    const pool = createUpstreamPool({ urls });
    for (let i = 0; i < 2; i++) {
      const error = await rejection(pool.send('/x', post, live()));
      expect(error.code).toBe('upstream_unreachable');
      expect(error.status).toBe(502);
      expect(error.retryAfter).toBe(2);
      for (const url of urls) expect(error.message).toMatch(new RegExp(`${url}[^;]*ECONNREFUSED`));
    }
    expect((await pool.health()).map((h) => [h.state, h.inFlight])).toEqual([
      ['down', 0],
      ['down', 0],
    ]);
  });

  it('still tries a URL in its backoff when it is the only one, and marks it up when it answers', async () => {
    let reset = true;
    const server = await startServer((hit) => (reset ? hit.req.socket.destroy() : answerOK(hit)));
    const pool = createUpstreamPool({ urls: [server.url] });
    const error = await rejection(pool.send('/x', post, live()));
    expect(error.code).toBe('upstream_unreachable');
    expect((await pool.health())[0]).toMatchObject({ state: 'down', lastError: expect.stringMatching(/closed/) });
    reset = false;
    expect(await (await pool.send('/x', post, live())).response.json()).toEqual({ ok: true });
    const [health] = await pool.health();
    expect(health).toMatchObject({ state: 'up', inFlight: 0 });
    expect(health!.lastError).toBeUndefined();
  });

  it('probes URLs not checked lately: a dead one goes down, a live one up, a failing one down', async () => {
    const dead = await closedURL();
    const alive = await startServer(answerOK);
    const broken = await startServer(({ res }) => res.writeHead(500).end());
    const pool = createUpstreamPool({ urls: [dead, alive.url, broken.url], probeHeaders: { authorization: 'Bearer k' } });
    const health = await pool.health({ probe: true });
    expect(health.map((h) => h.state)).toEqual(['down', 'up', 'down']);
    expect(health[0]!.lastError).toMatch(/ECONNREFUSED/);
    expect(health[2]!.lastError).toMatch(/500/);
    expect(alive.hits[0]!.req.method).toBe('GET');
    expect(alive.hits[0]!.req.url).toBe('/v1/models');
    expect(alive.hits[0]!.req.headers.authorization).toBe('Bearer k');
    // Checked just now: not probed again.
    await pool.health({ probe: true });
    expect(alive.hits).toHaveLength(1);
  });

  it('reads what a server lists at GET /models, once, without taking it for a health check when its health is fresh', async () => {
    const listing = [{ id: 'm', object: 'model', created: 1, owned_by: 'o' }];
    const server = await startServer(({ req, res }) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: listing }));
      res.writeHead(503).end();
    });
    const pool = createUpstreamPool({ urls: [server.url] });
    expect(pool.listing()).toBeUndefined();
    // A request marks the URL down: the listing's GET, made just after, must not mark it up.
    await pool.send('/chat/completions', post, live());
    await pool.health({ probe: true });
    expect((await pool.health())[0]!.state).toBe('down');
    expect(pool.listing()).toBeUndefined();
    // Probed (its health known up by a probe): its list is read with it, and kept.
    const fresh = createUpstreamPool({ urls: [server.url] });
    expect((await fresh.health({ probe: true }))[0]!.state).toBe('up');
    expect(fresh.listing()).toEqual(listing);
    const gets = server.hits.filter((hit) => hit.req.method === 'GET').length;
    await fresh.health({ probe: true });
    expect(server.hits.filter((hit) => hit.req.method === 'GET')).toHaveLength(gets);
  });

  it('abandons a /models body without a length once it passes the cap, and still counts the server as up', async () => {
    let written = 0;
    const server = await startServer(({ req, res }) => {
      if (req.method !== 'GET') return void res.writeHead(404).end();
      // Chunked, no Content-Length, never ending: a list that opens and never closes.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, ' ');
      const more = () => {
        while (!res.destroyed) {
          written += chunk.length;
          if (!res.write(written === chunk.length ? Buffer.from('{"object":"list","data":[') : chunk)) return void res.once('drain', more);
        }
      };
      more();
    });
    const pool = createUpstreamPool({ urls: [server.url] });
    const [health] = await pool.health({ probe: true });
    // Given up at the cap (1 MiB), not read on until the probe's 2 s timeout: hundreds of MB on loopback.
    expect(health!.state).toBe('up');
    expect(pool.listing()).toBeUndefined();
    expect(await server.hits[0]!.closed).toBe(true);
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });
});
