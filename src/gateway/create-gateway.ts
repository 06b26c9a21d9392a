/**
 * The gateway: one pure function from a fetch `Request` to a `Response`, answering the OpenAI and
 * Anthropic endpoints under a base URL. It runs the same in Node, a worker and a service worker;
 * runtime adapters only decide which requests to hand it.
 * @module
 */
import type { Handler, RequestContext } from '../core/context.ts';
import type { Engine, ModelInfo } from '../core/engine.ts';
import type { Flavour } from '../core/flavour.ts';
import { abortedError, GatewayError } from '../core/errors.ts';
import { randomId } from '../core/ids.ts';
import { readJsonObject } from '../core/json-body.ts';
import * as anthropic from '../protocol/anthropic/routes.ts';
import * as openai from '../protocol/openai/routes.ts';
import { chatCompletions } from '../protocol/openai/chat/routes.ts';
import { createResponsesRoutes } from '../protocol/openai/responses/routes.ts';
import { createConversationRoutes } from '../protocol/openai/conversations/routes.ts';
import { createMemoryConversationStore } from '../protocol/openai/conversations/store.ts';
import { createMemoryResponseStore, type ResponseStore } from '../protocol/openai/responses/store.ts';
import { createRemoteEngine } from '../remote/remote-engine.ts';
import { authenticate, createKeyTable, type ApiKey } from './auth.ts';
import { renderError } from './error-answer.ts';
import { wireOf } from '../protocol/wires.ts';
import { chatPath, SERVED_HEADERS, tellServed, type Served } from './chat-path.ts';
import { DEFAULT_BASE_URL } from './base-url.ts';

export interface GatewayOptions {
  readonly engine: Engine;
  /**
   * Where the API lives: a path (`/v1`, matched on any origin) or an absolute URL
   * (`https://llm.local/v1`, matched on that origin only). Default `/v1`.
   */
  readonly baseUrl?: string;
  /** Accepted keys; none (the default) accepts every caller. A key object may be limited to some models. */
  readonly apiKeys?: readonly ApiKey[];
  /** Largest accepted request body. Default 16 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Read each request body in one step and check its size after, instead of counting bytes as they
   * arrive: several times faster in a service worker, where a Request never shows its
   * Content-Length. For runtimes whose requests come from the app's own pages (the service worker,
   * the fetch shim), whose bodies the browser already holds in memory. Default false: a body of
   * unknown length is counted as it streams in, so an endless one is cut off at `maxBodyBytes`.
   */
  readonly readBodyWhole?: boolean;
  /**
   * How requests for remote models (those with an `upstream`) reach their servers. Default: the
   * global `fetch` as it is when the gateway is made, so a fetch shim installed after it is not
   * asked to answer the gateway's own upstream requests.
   */
  readonly fetch?: typeof fetch;
  /**
   * Where `POST /responses` keeps responses sent with `store` (the default), for
   * `previous_response_id`, `GET /responses/{id}` and `item_reference` inputs. Default: this
   * process's memory, the newest 1,000. The browser's runtimes pass an IndexedDB store.
   */
  readonly responseStore?: ResponseStore;
  /**
   * Models this gateway serves without the engine (remote models, whose servers it reaches itself),
   * read at each request: a request that names one never waits for the engine, which in the browser
   * means a tab hosting it. A page's fetch shim passes the page's own remote models, the service
   * worker those the host tab last told it of. The listing (`GET /models`) still comes from the
   * engine, which lists them too: one list for every context, with the fallbacks the engine settles.
   */
  readonly knownModels?: () => readonly ModelInfo[];
}

/** What the runtime asks of a request beyond the Request itself (as in hono's execution context). */
export interface RequestRuntime {
  /**
   * Milliseconds within which the response must begin, where the runtime cuts requests that take
   * longer (a service worker's fetch event: 5 minutes in Chromium). A request still waiting then,
   * in the queue or for a model load, is stopped and answered with a 503 in its flavour, with
   * `retry-after`; a load it was waiting for goes on, so a retry finds it further along.
   */
  readonly respondWithin?: number;
}

export interface Gateway {
  /** Answers any request; requests outside the base URL get a 404 (check `handles` first to pass them through). */
  fetch(request: Request, runtime?: RequestRuntime): Promise<Response>;
  /** True when `url` is under the base URL, i.e. the gateway should answer it. */
  handles(url: string | URL): boolean;
  readonly baseUrl: string;
  /**
   * Replaces the accepted keys (none: every caller is let in) for the requests that come after.
   * Only the key table changes: what the gateway learnt (remote servers' health, their requests in
   * flight, its response store) stays, and requests already running go on.
   */
  setApiKeys(keys: readonly ApiKey[] | undefined): void;
}

interface Route {
  readonly methods: Readonly<Record<string, Handler>>;
  /** Matches `path` exactly, or `path/{rest}` when true. */
  readonly withRest?: boolean;
}

/** The endpoints whose handlers need nothing of the gateway's own (`/responses` is added per gateway). */
const ROUTES: Readonly<Record<string, Route>> = {
  '/chat/completions': { methods: { POST: chatCompletions } },
  '/embeddings': { methods: { POST: openai.embeddings } },
  // Before '/messages', which would otherwise match it as a path with a rest.
  '/messages/count_tokens': { methods: { POST: anthropic.countTokens } },
  '/messages': { methods: { POST: anthropic.messages } },
  '/models': { methods: { GET: (ctx) => MODEL_LISTS[ctx.wire.flavour](ctx) }, withRest: true },
};

/** `/models` is both families' path: each lists the models in its own shape. */
const MODEL_LISTS: Readonly<Record<Flavour, Handler>> = { openai: openai.models, anthropic: anthropic.models };

const EXPOSED_HEADERS = `x-request-id, request-id, retry-after, x-should-retry, ${SERVED_HEADERS.join(', ')}`;

export function createGateway(options: GatewayOptions): Gateway {
  const base = parseBase(options.baseUrl ?? DEFAULT_BASE_URL);
  let keys = createKeyTable(options.apiKeys);
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const remote = createRemoteEngine(options.fetch ? { fetch: options.fetch } : {});
  // Conversations are kept where responses are (a store without them: in the gateway's memory).
  const responseStore = options.responseStore ?? createMemoryResponseStore();
  const conversationStore = responseStore.conversations ?? createMemoryConversationStore();
  const responses = createResponsesRoutes(responseStore, conversationStore);
  const conversations = createConversationRoutes(responseStore, conversationStore);
  const routes: Readonly<Record<string, Route>> = {
    ...ROUTES,
    '/responses': { methods: { POST: responses.post, GET: responses.get, DELETE: responses.delete }, withRest: true },
    '/conversations': { methods: { POST: conversations.post, GET: conversations.get, DELETE: conversations.delete }, withRest: true },
  };

  const pathOf = (url: URL): string | null => {
    if (base.origin !== null && url.origin !== base.origin) return null;
    if (url.pathname === base.path) return '';
    return url.pathname.startsWith(`${base.path}/`) ? url.pathname.slice(base.path.length) : null;
  };

  async function answer(request: Request, requestId: string, signal: AbortSignal, respondBy: number | undefined): Promise<Response> {
    const url = new URL(request.url);
    const path = pathOf(url);
    const wire = wireOf(path, request.headers);
    try {
      if (path === null) throw new GatewayError('not_found', `Unknown request URL: ${request.method} ${url.pathname}: it is outside ${base.text}.`);
      if (request.method === 'OPTIONS') return preflight(request);
      const [routePath, rest] = splitRoute(routes, path);
      const route = routePath === undefined ? undefined : routes[routePath];
      if (!route || (rest && !route.withRest)) throw notFound(request.method, url.pathname, path, base.text);
      // Own keys only: a request method may be any token, including 'constructor' or 'toString'.
      const handler = Object.hasOwn(route.methods, request.method) ? route.methods[request.method] : undefined;
      if (!handler) {
        const error = new GatewayError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}: use ${Object.keys(route.methods).join(' or ')}.`);
        const response = renderError(error, wire, requestId);
        response.headers.set('allow', Object.keys(route.methods).join(', '));
        return response;
      }
      const scope = authenticate(request.headers, wire, keys);
      let body: Promise<Record<string, unknown>> | undefined;
      let listed: Promise<readonly ModelInfo[]> | undefined;
      // Asked only when a handler needs it, once: routes that read only the stores answer with no engine.
      const models = () => (listed ??= options.engine.listModels());
      const served: Served = {};
      const shared: Omit<RequestContext, keyof ReturnType<typeof chatPath>> = {
        request,
        requestId,
        wire,
        engine: options.engine,
        models,
        model: async (id) => options.knownModels?.().find((m) => m.id === id) ?? (await models()).find((m) => m.id === id),
        scope,
        rest: rest ? decodePathPart(rest, request.method, url.pathname) : '',
        // Read once: the model routing reads `model` before the handler reads the rest.
        body: () => (body ??= readJsonObject(request, maxBodyBytes, { whole: options.readBodyWhole })),
        remoteStates: (models) => remote.states(models),
        ...(respondBy !== undefined ? { respondBy } : {}),
        signal,
      };
      const context: RequestContext = { ...shared, ...chatPath(shared, remote, served) };
      return tellServed(await handler(context), served);
    } catch (error) {
      return renderError(signal.aborted ? abortReason(signal) : GatewayError.from(error), wire, requestId);
    }
  }

  /** `request.signal`, plus the runtime's deadline for the response to begin, if it has one. */
  function withDeadline(request: Request, respondWithin: number | undefined): { signal: AbortSignal; started(): void } {
    if (respondWithin === undefined) return { signal: request.signal, started() {} };
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      controller.abort(
        new GatewayError(
          'model_unavailable',
          `The model did not start answering within ${respondWithin / 1000} s (it is still loading, or requests ahead of this one are still running), and this runtime cuts requests that wait longer. Retry: a load in progress goes on.`,
          { retryAfter: 5 },
        ),
      );
    }, respondWithin);
    return {
      signal: controller.signal,
      // Once the response has begun the deadline no longer applies; the client can still abort.
      started: () => clearTimeout(timer),
    };
  }

  return {
    baseUrl: base.text,
    handles: (url) => pathOf(new URL(url)) !== null,
    setApiKeys(apiKeys) {
      keys = createKeyTable(apiKeys);
    },
    async fetch(request, runtime = {}) {
      const requestId = randomId('req_');
      const deadline = withDeadline(request, runtime.respondWithin);
      const respondBy = runtime.respondWithin === undefined ? undefined : Date.now() + runtime.respondWithin;
      const response = await answer(request, requestId, deadline.signal, respondBy);
      deadline.started();
      // Both ids: openai-node reads x-request-id, the Anthropic SDK request-id.
      response.headers.set('x-request-id', requestId);
      response.headers.set('request-id', requestId);
      response.headers.set('access-control-allow-origin', '*');
      response.headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      return response;
    },
  };
}

/** Why the request's signal fired: the deadline's own error, else the client left. */
function abortReason(signal: AbortSignal): GatewayError {
  return signal.reason instanceof GatewayError ? signal.reason : abortedError();
}

function parseBase(baseUrl: string): { origin: string | null; path: string; text: string } {
  const absolute = /^[a-z][a-z\d+.-]*:\/\//i.test(baseUrl);
  const url = new URL(baseUrl, 'http://base.invalid');
  const path = url.pathname.replace(/\/+$/, '');
  return { origin: absolute ? url.origin : null, path, text: absolute ? `${url.origin}${path}` : path };
}

function splitRoute(routes: Readonly<Record<string, Route>>, path: string): [string | undefined, string] {
  for (const prefix of Object.keys(routes)) {
    if (path === prefix) return [prefix, ''];
    if (path.startsWith(`${prefix}/`)) return [prefix, path.slice(prefix.length + 1)];
  }
  return [undefined, ''];
}

/** A malformed percent-escape (`%ZZ`) cannot name anything: a 404, not a server error. */
function decodePathPart(part: string, method: string, pathname: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new GatewayError('not_found', `Unknown request URL: ${method} ${pathname}: it contains a malformed percent-escape.`);
  }
}

function notFound(method: string, pathname: string, path: string, base: string): GatewayError {
  // The Anthropic SDK adds /v1 itself: a base URL that already ends in /v1 yields /v1/v1/messages.
  const hint = path.startsWith('/v1/')
    ? ` The Anthropic SDK adds /v1 itself: give it the base URL without the trailing /v1 (here '${base.replace(/\/v1$/, '') || '/'}').`
    : '';
  return new GatewayError('not_found', `Unknown request URL: ${method} ${pathname}.${hint}`);
}

function preflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
      'access-control-allow-headers': request.headers.get('access-control-request-headers') ?? '*',
      'access-control-max-age': '86400',
    },
  });
}
