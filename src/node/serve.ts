/**
 * The gateway as an HTTP server in Node: `npx inpage-llm serve`, or `serveGateway` in a script.
 * `@hono/node-server` turns Node's `http` request into a fetch `Request` and writes the gateway's
 * `Response` back as it is produced, so every status, header and streamed event is the gateway's
 * own, exactly as in the browser. Why this layer, and the timeouts: docs/decisions/node-server.md.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import type { Engine } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { randomId } from '../core/ids.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway } from '../gateway/create-gateway.ts';
import { renderError } from '../gateway/flavour.ts';

export interface ServeOptions {
  /** What answers: `createNodeEngine()`, or any Engine. */
  readonly engine: Engine;
  /** Default 8080; 0 takes any free port (read it from `url`). */
  readonly port?: number;
  /** The interface to listen on. Default 127.0.0.1 (this machine only); `0.0.0.0` or `::` for every one, with `apiKeys`. */
  readonly host?: string;
  /** Accepted keys; none (the default) accepts every caller. */
  readonly apiKeys?: readonly ApiKey[];
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

export async function serveGateway(options: ServeOptions): Promise<GatewayServer> {
  const basePath = options.baseUrl ?? '/v1';
  // An absolute base URL would make the gateway answer one origin only, which a server cannot know
  // it is reached under (a proxy, a container's port mapping): the server's base is a path.
  if (!basePath.startsWith('/')) throw new Error(`baseUrl must be a path such as /v1, not '${basePath}'.`);
  const gateway = createGateway({
    engine: options.engine,
    baseUrl: basePath,
    ...(options.apiKeys !== undefined ? { apiKeys: options.apiKeys } : {}),
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });

  // overrideGlobalObjects: false: by default the adapter replaces the process's global Request and
  // Response with its own, which a library must not do to the app that imports it.
  const listener = getRequestListener((request) => gateway.fetch(request), { overrideGlobalObjects: false, errorHandler: renderServerError });

  let closing = false;
  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (incoming, outgoing) => {
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
    void listener(incoming, outgoing);
  });
  // No idle-socket timeout (Node's default, stated): a non-streamed answer may be silent for minutes.
  server.timeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', () => {
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
  const response = renderError(gatewayError, 'openai', requestId);
  response.headers.set('x-request-id', requestId);
  response.headers.set('request-id', requestId);
  response.headers.set('access-control-allow-origin', '*');
  return response;
}
