/**
 * The page's own gateway: wraps `globalThis.fetch` in this page so that requests under the base
 * URL are answered by a gateway in the page (which fetches it answers: which-gateway.ts).
 * `startInference` installs it over the page's engine link; a page that cannot register a worker
 * installs it over an engine of its own.
 * @module
 */
import type { Engine, ModelInfo } from '../core/engine.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createGateway, type Gateway } from '../gateway/index.ts';
import type { ResponseStore } from '../protocol/openai/responses/store.ts';
import { createIndexedDBResponseStore } from '../storage/indexeddb-response-store.ts';
import { DEFAULT_BASE_URL } from '../gateway/base-url.ts';
import { answeringGateway } from './which-gateway.ts';

export interface FetchShimOptions {
  readonly engine: Engine;
  /** Default `/v1` (resolved against the page's origin), or an absolute virtual URL. */
  readonly baseUrl?: string;
  readonly apiKeys?: readonly ApiKey[];
  /**
   * Where `POST /responses` keeps stored responses. Default: IndexedDB, the database the service
   * worker uses too, so a response stored through either is found through the other (this
   * context's memory where IndexedDB is unavailable).
   */
  readonly responseStore?: ResponseStore;
  /**
   * Models the gateway serves without the engine (remote models, whose servers it reaches itself):
   * a request for one never waits for the engine. `startInference` passes the page's remote models.
   */
  readonly knownModels?: readonly ModelInfo[];
}

export interface FetchShim {
  readonly gateway: Gateway;
  /** Puts the original fetch back. */
  uninstall(): void;
}

export function installFetchShim(options: FetchShimOptions): FetchShim {
  const known = options.knownModels;
  // Bodies are this page's own, already in memory: read whole.
  const gateway = createGateway({
    engine: options.engine,
    baseUrl: options.baseUrl ?? DEFAULT_BASE_URL,
    apiKeys: options.apiKeys,
    readBodyWhole: true,
    responseStore: options.responseStore ?? createIndexedDBResponseStore(),
    ...(known ? { knownModels: () => known } : {}),
  });
  const original = globalThis.fetch;
  const shim: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : new URL(String(input), globalThis.location?.href).href;
    if (answeringGateway(url, { handles: gateway.handles, throughShim: true }) !== 'page') return original(input, init);
    return answerAsFetch(gateway, new Request(input instanceof Request ? input : url, init));
  };
  globalThis.fetch = shim;
  return {
    gateway,
    uninstall() {
      if (globalThis.fetch === shim) globalThis.fetch = original;
    },
  };
}

/**
 * The gateway's answer with fetch's abort semantics: an abort before the answer begins rejects with
 * the signal's reason (not the 499 the gateway renders for runtimes that must answer something),
 * and one after it errors the body's reads with that reason, while cancelling the answer's source
 * stops the engine.
 */
async function answerAsFetch(gateway: Gateway, request: Request): Promise<Response> {
  const { signal } = request;
  if (signal.aborted) throw signal.reason;
  const response = await gateway.fetch(request);
  if (signal.aborted) {
    await response.body?.cancel(signal.reason).catch(() => {});
    throw signal.reason;
  }
  if (!response.body) return response;
  return new Response(response.body.pipeThrough(new TransformStream(), { signal }), response);
}
