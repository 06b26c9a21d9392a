/**
 * The gateway as an HTTP server in Node: `npx inpage-llm serve`, or `serveGateway` in a script.
 * `@hono/node-server` turns Node's `http` request into a fetch `Request` and writes the gateway's
 * `Response` back as it is produced, so every status, header and streamed event is the gateway's
 * own, exactly as in the browser, save CORS: without a key only pages and host names of this
 * machine are answered, and requests past `maxRequests` wait, body unread, then get a 429. Why this
 * layer, who may reach it, its limits and timeouts: docs/decisions/node-server.md.
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Engine } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { randomId } from '../core/ids.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway } from '../gateway/create-gateway.ts';
import { renderError } from '../gateway/error-answer.ts';
import { OPENAI } from '../protocol/openai/wire.ts';
import { createAdmission, type Release } from './admission.ts';
import { answerClientError } from './client-error.ts';
import { createHostPolicy } from './host-policy.ts';
import { createOriginPolicy, type OriginPolicy } from './origin-policy.ts';
import { refuse } from './refuse.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';

export interface ServeOptions {
  /** What answers: `createNodeEngine()`, or any Engine. */
  readonly engine: Engine;
  /** Default 8080; 0 takes any free port (read it from `url`). */
  readonly port?: number;
  /** The interface to listen on. Default 127.0.0.1 (this machine only); `0.0.0.0` or `::` for every one, with `apiKeys`. A name here is answered in `Host` too. */
  readonly host?: string;
  /** Accepted keys; none (the default) accepts every caller. */
  readonly apiKeys?: readonly ApiKey[];
  /**
   * Origins of the web pages allowed to call the server from a browser (CORS), besides pages on
   * this machine (`http(s)://localhost`, `127.0.0.0/8`, `[::1]`, any port), which always may;
   * `*` among them allows every page. A request from any other page is refused with a 403.
   * Default: pages on this machine only; with `apiKeys`, every page (the key guards the server).
   */
  readonly corsOrigins?: readonly string[];
  /**
   * `Host` names answered besides IP addresses, `localhost` (and names under it) and `host`:
   * `llm.lan`, or `.lan` for it and every name under it; `*` among them answers any. A request
   * naming another host is refused with a 403 (a guard against DNS rebinding).
   * Default: none; with `apiKeys`, any (the key guards the server).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Model requests (POSTs) held at once, running or waiting for the model. A request past it waits
   * up to a second, its body unread, for one of them to finish; if none does it gets a 429 with
   * `retry-after: 1`, its body never read. Default 16.
   */
  readonly maxRequests?: number;
  /** Time for a client to send its request line and headers. Default 60 s. */
  readonly headersTimeoutMs?: number;
  /** Time for a client to send its whole request, body included (not the response's). Default 300 s. */
  readonly requestTimeoutMs?: number;
  /** The API's path. Default `/v1`. */
  readonly baseUrl?: string;
  /** Largest accepted request body (a 413 beyond it). Default 16 MiB. */
  readonly maxBodyBytes?: number;
  /** How long `close()` lets requests in flight finish before it cuts their connections. Default 10 s. */
  readonly shutdownTimeoutMs?: number;
}

export interface GatewayServer {
  /** The API's base URL, e.g. `http://127.0.0.1:8080/v1`: the OpenAI SDK's `baseURL` (the Anthropic SDK's without `/v1`). */
  readonly url: string;
  /**
   * Stops accepting connections, lets the requests in flight finish (streams included) for up to
   * `shutdownTimeoutMs`, then cuts what is left (their engine calls are aborted), and resolves
   * once every connection is closed.
   */
  close(): Promise<void>;
}

/** Time for a client to send its request line and headers: Node's default, stated here so it stays. */
const HEADERS_TIMEOUT_MS = 60_000;
/**
 * Time for a client to send its whole request, body included (a 16 MiB body at 56 KB/s). It does
 * not cover the response: a stream that runs for minutes is not cut (measured, see the decision note).
 */
const REQUEST_TIMEOUT_MS = 300_000;
/**
 * How often Node looks for connections past those timeouts: its default is every 30 s, so a 60 s
 * timeout acted at up to 90 s. Once a second costs a walk over the open connections.
 */
const CHECK_INTERVAL_MS = 1_000;
/** Model requests held at once by default: one running and 15 waiting for a single model. */
const MAX_REQUESTS = 16;
/** How long a request past that limit waits for a place, body unread: the `retry-after` it would get. */
const ADMISSION_WAIT_MS = 1_000;
/** Requests past the limit allowed to wait at once (each holds a connection); more are refused at once. */
const MAX_WAITING = 256;
/**
 * How long, and for how many bytes, a connection whose answer was sent before its request's body
 * was read (a 413 past maxBodyBytes, a 401) goes on reading and dropping that body before it
 * closes. A client that sends its whole body before it reads (curl) gets the answer only if the
 * connection is still open when it is done: closed under its writes, the connection is reset and
 * the answer, unread, is lost with it (seen: a 50 MB chunked body, no answer in 1 of 3 runs).
 */
const LINGER_MS = 10_000;
const LINGER_BYTES = 256 * 1024 * 1024;

export async function serveGateway(options: ServeOptions): Promise<GatewayServer> {
  const basePath = options.baseUrl ?? DEFAULT_BASE_URL;
  // An absolute base URL would make the gateway answer one origin only, which a server cannot know
  // it is reached under (a proxy, a container's port mapping): the server's base is a path.
  if (!basePath.startsWith('/')) throw new Error(`baseUrl must be a path such as /v1, not '${basePath}'.`);
  const gateway = createGateway({
    engine: options.engine,
    baseUrl: basePath,
    ...(options.apiKeys !== undefined ? { apiKeys: options.apiKeys } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
  const bindHost = options.host ?? '127.0.0.1';
  // With a key, the key is the guard: any page and any Host name, unless a list is given.
  const keyed = (options.apiKeys?.length ?? 0) > 0;
  const origins = options.corsOrigins ?? (keyed ? ['*'] : []);
  const originPolicy = createOriginPolicy(origins);
  const hostAllowed = createHostPolicy(options.allowedHosts ?? (keyed ? ['*'] : []), bindHost);
  const maxRequests = options.maxRequests ?? MAX_REQUESTS;
  const admission = createAdmission({ limit: maxRequests, waitMs: ADMISSION_WAIT_MS, maxWaiting: MAX_WAITING });
  const refusalPath = basePath.replace(/\/+$/, '');

  // overrideGlobalObjects: false: by default the adapter replaces the process's global Request and
  // Response with its own, which a library must not do to the app that imports it.
  const listener = getRequestListener(
    async (request) => {
      const response = await gateway.fetch(request);
      // The gateway allows every origin (right for the browser's runtimes, which only the page's own
      // origin reaches); here the server's policy decides, set on Node's response before this one.
      response.headers.delete('access-control-allow-origin');
      return response;
    },
    { overrideGlobalObjects: false, errorHandler: renderServerError },
  );

  let closing = false;
  // Each connection's response in progress: a parse error on it may not be answered into its body.
  const responses = new WeakMap<Socket, ServerResponse>();
  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = createServer(
    { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(50, Math.min(CHECK_INTERVAL_MS, Math.floor(headersTimeout / 4))) },
    (incoming, outgoing) => {
      responses.set(incoming.socket, outgoing);
      if (closing) {
        // A request on a connection kept alive from before close(): answer it, and say the
        // connection ends with it.
        outgoing.shouldKeepAlive = false;
      }
      // server.close() closes only the connections idle at that moment; one whose response finishes
      // later would stay open for the keep-alive timeout and hold close() up.
      outgoing.once('finish', () => {
        if (closing) setImmediate(() => server.closeIdleConnections());
      });

      const host = incoming.headers.host;
      if (!hostAllowed(host)) {
        const error = new GatewayError(
          'permission',
          `Blocked request: this server does not answer for the host '${host}' (a guard against DNS rebinding). If that name is this machine's, start the server with --allowed-host ${String(host).replace(/:\d+$/, '')} (allowedHosts in serveGateway).`,
        );
        return refuse(incoming, outgoing, error, refusalPath);
      }
      const origin = incoming.headers.origin;
      if (origin !== undefined && !originPolicy.allows(origin)) {
        const error = new GatewayError(
          'permission',
          `Blocked request: pages of ${origin} may not call this server (without an API key, only pages on this machine may). Start it with --cors-origin ${origin} to allow them (corsOrigins in serveGateway).`,
        );
        return refuse(incoming, outgoing, error, refusalPath);
      }
      setCorsHeaders(incoming, outgoing, originPolicy);
      // Only POSTs run a model; the rest are answered at once.
      if (incoming.method !== 'POST') return void listener(incoming, outgoing);
      const release = admission.tryEnter();
      if (release) return admit(incoming, outgoing, release);
      void holdForAPlace(incoming, outgoing);
    },
  );
  const admit = (incoming: IncomingMessage, outgoing: ServerResponse, release: Release) => {
    // 'close' comes once the response is over, or when the client goes away before that.
    outgoing.once('close', release);
    outgoing.once('finish', () => {
      if (!incoming.complete) lingerForTheBody(incoming);
    });
    void listener(incoming, outgoing);
  };
  /** A request past maxRequests: it waits for a place with its body unread, and is refused if none comes. */
  const holdForAPlace = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const ticket = admission.wait();
    let gone = false;
    const leave = () => ((gone = true), ticket.cancel());
    outgoing.once('close', leave);
    const release = await ticket.admitted;
    outgoing.off('close', leave);
    if (release && !gone) return admit(incoming, outgoing, release);
    release?.();
    if (gone) return;
    const error = new GatewayError('queue_full', `This server is answering ${maxRequests} requests, its limit (--max-requests), and none finished within a second; try again shortly.`, { retryAfter: 1 });
    refuse(incoming, outgoing, error, refusalPath);
  };
  // No idle-socket timeout (Node's default, stated): a non-streamed answer may be silent for minutes.
  server.timeout = 0;
  server.on('clientError', (error: Error, socket: Socket) => answerClientError(error, socket, (s) => responses.get(s)?.headersSent === true && !responses.get(s)!.writableFinished));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, bindHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}${basePath.replace(/\/+$/, '')}`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        admission.refuseWaiting();
        const cut = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
        // Node ≥ 19 closes the idle connections here; the callback runs once the last one closes.
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
      });
      return closed;
    },
  };
}

/**
 * Reads and drops the rest of a request body whose answer is already sent, then closes the
 * connection once the body has ended (or LINGER_MS or LINGER_BYTES have passed), so the client,
 * done sending, reads the answer. The adapter's own drain gives up after 500 ms and closes the
 * socket with `destroySoon`: on this socket that waits for the body's end too.
 */
function lingerForTheBody(incoming: IncomingMessage): void {
  const socket = incoming.socket;
  const close = socket.destroySoon.bind(socket);
  let bytes = 0;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    incoming.off('data', count);
    socket.destroySoon = close;
    close();
  };
  const count = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > LINGER_BYTES) finish();
  };
  const timer = setTimeout(finish, LINGER_MS);
  timer.unref();
  socket.destroySoon = () => {
    if (incoming.complete) finish();
  };
  // The adapter's reader of the body (a web stream nobody reads any more) holds it paused once its
  // queue is full: it lets go, and the body flows into nothing.
  incoming.removeAllListeners('data');
  incoming.on('data', count);
  incoming.once('end', finish);
  socket.once('close', finish);
  incoming.resume();
}

/**
 * What the adapter could not turn into a Request (a backslash in the path, an HTTP/1.0 request
 * without Host), or a gateway that threw (it answers every error itself, so that would be a bug):
 * in the OpenAI error shape, like everything else the server answers, rather than an empty 400/500.
 */
function renderServerError(error: unknown): Response {
  const gatewayError =
    error instanceof RequestError
      ? new GatewayError('invalid_request', `The request could not be read: ${error.message}.`)
      : GatewayError.from(error);
  if (!(error instanceof RequestError)) console.error('inpage-llm: the gateway threw', error);
  const requestId = randomId('req_');
  const response = renderError(gatewayError, OPENAI, requestId);
  response.headers.set('x-request-id', requestId);
  response.headers.set('request-id', requestId);
  return response;
}

/**
 * CORS on Node's response, before the gateway's is written over it (writeHead keeps these): the
 * page's own origin when it may call, `*` when every page may. `vary: origin` tells caches that
 * the answer depends on the caller. A page on a public site calling a server on this machine or
 * network asks Chromium's leave first (Private Network Access): granted to the pages allowed here.
 */
function setCorsHeaders(incoming: IncomingMessage, outgoing: ServerResponse, policy: OriginPolicy): void {
  const origin = incoming.headers.origin;
  // The gateway's own list replaces this one on its answers; this one is for the server's refusals.
  outgoing.setHeader('access-control-expose-headers', 'x-request-id, request-id, retry-after, x-should-retry');
  if (policy.any) outgoing.setHeader('access-control-allow-origin', '*');
  else {
    outgoing.setHeader('vary', 'origin');
    if (origin !== undefined) outgoing.setHeader('access-control-allow-origin', origin);
  }
  if (origin !== undefined && incoming.headers['access-control-request-private-network'] === 'true') {
    outgoing.setHeader('access-control-allow-private-network', 'true');
  }
}
