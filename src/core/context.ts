/**
 * What the gateway hands each endpoint handler: the request, its caller, and the chat path, which
 * answers a neutral request with neutral events whatever serves it (a local engine, a remote
 * model's server, a fallback). A handler parses, asks the chat path, and renders.
 * @module
 */
import type { CallerNames, Unread } from './admit.ts';
import type { Engine, ModelInfo, NeutralRequest } from './engine.ts';
import type { Generation } from './generation.ts';
import type { ModelScope } from './models.ts';
import type { RemoteState } from './remote-state.ts';
import type { Flavour } from './flavour.ts';
import type { WireDescriptor } from './wire.ts';

/** What a chat endpoint's parse makes of its body, for every model alike. */
export interface ParsedChat {
  readonly chat: NeutralRequest;
  /** What it asks of the model that serves it, in the caller's terms (core/admit.ts). */
  readonly names: CallerNames;
  readonly stream: boolean;
}

/**
 * A request in an API that a remote model's server may speak too: then it is sent there as it came
 * (only `model` renamed) and its answer passed back byte for byte, the fast path.
 */
export interface PassThroughRoute {
  readonly flavour: Flavour;
  /** Below the server's base URL, e.g. `/chat/completions`. */
  readonly path: string;
}

export interface ChatPathOptions {
  readonly passThrough?: PassThroughRoute;
  /**
   * The caller's API reports which stop string ended an answer: a remote server whose API cannot
   * say is not given the strings, the gateway matches them itself.
   */
  readonly namesStop?: boolean;
}

/** The chat path's answer: the generation and the parse it answers, or a remote server's own answer passed through. */
export type ChatAnswer<P extends ParsedChat> =
  | { readonly generation: Generation; readonly model: ModelInfo; readonly parsed: P; readonly passed?: undefined }
  | { readonly passed: Response };

export type CountAnswer = { readonly count: number; readonly passed?: undefined } | { readonly passed: Response };

export interface RequestContext {
  readonly request: Request;
  /**
   * Aborts when the client goes away, or when the runtime's deadline for the response's start has
   * passed: engine work takes this, not `request.signal`.
   */
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** The API family whose shapes this request gets, errors included (decided once, from its path and headers). */
  readonly wire: WireDescriptor;
  readonly engine: Engine;
  /**
   * Every model the engine serves; use `scope` to see which this caller may use. The engine is asked
   * once a request, and only by a handler that calls this: in the browser that waits for a tab
   * hosting the engine, so what needs no engine (stored responses, conversations) never calls it.
   */
  models(): Promise<readonly ModelInfo[]>;
  /**
   * The model with this id (whatever the caller's scope), or undefined. One the gateway serves
   * without the engine (a remote model it was told of) is found without asking the engine.
   */
  model(id: string): Promise<ModelInfo | undefined>;
  readonly scope: ModelScope;
  /** The request body as a JSON object (read once, size-capped). */
  body(): Promise<Record<string, unknown>>;
  /** Path parameters after the endpoint prefix, e.g. the id in `/models/{id}`. */
  readonly rest: string;
  /**
   * When the runtime cuts this request if its response has not begun (epoch ms), where it does
   * (a service worker's fetch event): a remote model's wait for its server ends before it.
   */
  readonly respondBy?: number;
  /** Where the remote models among `models` run and whether they can be reached now, by id. */
  remoteStates(models: readonly ModelInfo[]): Promise<ReadonlyMap<string, RemoteState>>;
  /**
   * The chat path: the chat model named `model` (as this caller may see it), or when it cannot be
   * served here and now its fallback, answering the request `parse` makes of the body, admitted
   * for it (core/admit.ts: each model tried answers the request's asks; the body is parsed once,
   * and only when a model is not sent it as it came). Resolves once the engine has read the
   * prompt or the server's headers came, so that an early failure is still an HTTP error. The
   * response the handler returns is told who served it (`x-inpage-llm-served-by` and the others).
   */
  generate<P extends ParsedChat>(model: string, parse: () => P | Unread, options?: ChatPathOptions): Promise<ChatAnswer<P>>;
  /** The prompt's exact token count for the request `parse` makes, as `generate` would read it. */
  countTokens(model: string, parse: () => ParsedChat | Unread, options?: Pick<ChatPathOptions, 'passThrough'>): Promise<CountAnswer>;
  /**
   * A request for a model of `kind` that only a local engine or a server of the same API answers
   * (embeddings): `local` for a local model, the body passed through for a remote one.
   */
  forward(model: string, kind: ModelInfo['kind'], passThrough: PassThroughRoute, local: (model: ModelInfo) => Promise<Response>): Promise<Response>;
}

export type Handler = (context: RequestContext) => Promise<Response>;

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set('content-type', 'application/json');
  return response;
}
