/** What the gateway hands each endpoint handler. @module */
import type { Engine, ModelInfo } from './engine.ts';
import type { ModelScope } from './models.ts';
import type { RemoteState } from './remote-state.ts';
import type { WireDescriptor } from './wire.ts';

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
  /** Every model the engine serves; use `scope` to see which this caller may use. */
  readonly models: readonly ModelInfo[];
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
}

export type Handler = (context: RequestContext) => Promise<Response>;

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  const response = new Response(JSON.stringify(body), { status, headers });
  response.headers.set('content-type', 'application/json');
  return response;
}
