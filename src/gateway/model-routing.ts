/**
 * Which model answers a request that names one: the engine (a local model), the model's upstream
 * server (a remote one), or, when the model cannot be served here and now, its fallback, and then
 * that one's. Every answer names the model that gave it (`x-inpage-llm-served-by`); a fallback's
 * also names the model asked for and why it could not serve. See docs/decisions/remote-models.md.
 * @module
 */
import type { Handler, RequestContext } from '../core/context.ts';
import type { ModelInfo } from '../core/engine.ts';
import { GatewayError, type GatewayErrorCode } from '../core/errors.ts';
import { findModel } from '../core/models.ts';
import type { Endpoint, RemoteRouter } from '../remote/remote-router.ts';

/** Headers the answer carries about who served it (exposed to cross-origin callers too). */
export const SERVED_HEADERS = ['x-inpage-llm-served-by', 'x-inpage-llm-fallback-from', 'x-inpage-llm-fallback-reason', 'x-inpage-llm-upstream'] as const;

/**
 * Failures that say the model cannot be served here and now, whatever the request: its load failed
 * (no backend, no room, a missing or corrupt file), its engine or GPU device went, or its server
 * cannot be reached. A request's own mistakes (400s), a full queue and upstream HTTP errors are
 * answered as they are: another model would not do better, or the upstream has spoken.
 */
const FALLBACK_CODES: ReadonlySet<GatewayErrorCode> = new Set(['model_unavailable', 'engine_unavailable', 'device_lost', 'insufficient_storage', 'upstream_unreachable', 'upstream_timeout']);

const KIND: Readonly<Record<Endpoint, ModelInfo['kind']>> = { chat: 'chat', messages: 'chat', count_tokens: 'chat', embeddings: 'embedding' };

export async function serveModelRequest(ctx: RequestContext, endpoint: Endpoint, handler: Handler, remote: RemoteRouter): Promise<Response> {
  const body = await ctx.body();
  // A missing or mistyped `model` gets the handler's own message.
  if (typeof body.model !== 'string') return handler(ctx);
  const requested = findModel(ctx.models, body.model, ctx.scope, KIND[endpoint]);
  let model = requested;
  let first: GatewayError | undefined;
  for (const tried = new Set<string>(); ; ) {
    tried.add(model.id);
    try {
      const response = model.upstream
        ? await remote.forward({ model, endpoint, body, headers: ctx.request.headers, signal: ctx.signal, requestId: ctx.requestId, ...(ctx.respondBy !== undefined ? { respondBy: ctx.respondBy } : {}) })
        : await handler(model === requested ? ctx : servedBy(ctx, model, body));
      response.headers.set('x-inpage-llm-served-by', model.id);
      if (first) {
        response.headers.set('x-inpage-llm-fallback-from', requested.id);
        response.headers.set('x-inpage-llm-fallback-reason', first.code);
      }
      return response;
    } catch (error) {
      const failure = GatewayError.from(error);
      const next = model.fallback === undefined ? undefined : ctx.models.find((m) => m.id === model.fallback);
      if (!next || tried.has(next.id) || ctx.signal.aborted || !FALLBACK_CODES.has(failure.code)) throw first ? afterFallback(failure, first, requested) : failure;
      first ??= failure;
      model = next;
    }
  }
}

/**
 * The context as if the caller had named the fallback: the key's model scope was checked for the
 * model it asked for, and the fallback is the app's choice, not the caller's.
 */
function servedBy(ctx: RequestContext, model: ModelInfo, body: Record<string, unknown>): RequestContext {
  const named = { ...body, model: model.id };
  return { ...ctx, scope: undefined, body: async () => named };
}

/** The fallback's failure, saying what happened to the model asked for first. */
function afterFallback(last: GatewayError, first: GatewayError, requested: ModelInfo): GatewayError {
  return new GatewayError(last.code, `${last.message} (This was the fallback: '${requested.id}' could not be served either: ${first.message})`, {
    ...(last.param !== undefined ? { param: last.param } : {}),
    ...(last.retryAfter !== undefined ? { retryAfter: last.retryAfter } : {}),
  });
}
