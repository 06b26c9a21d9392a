/**
 * The chat path: which model answers a request that names one, and with what. A local model's
 * request goes to the engine (startGeneration); a remote one's to its upstream server through the
 * remote engine, as a neutral request in the server's API or, where the server speaks the
 * caller's, as it came (the fast path); and when the model cannot be served here and now, its
 * fallback answers, and then that one's. The body is parsed once, for every model alike, and only
 * when a model is not sent it as it came; each model tried is admitted the request against its
 * own limits (core/admit.ts). Every endpoint that generates asks this one place, so a
 * Responses request, a chat completion and a message take the same way to the same events. Every
 * answer names the model that gave it (`x-inpage-llm-served-by`); a fallback's also names the
 * model asked for and why it could not serve. See docs/decisions/remote-models.md.
 * @module
 */
import { admitFor, inCallerTerms, type Unread } from '../core/admit.ts';
import type { ChatAnswer, ChatPathOptions, CountAnswer, ParsedChat, PassThroughRoute, RequestContext } from '../core/context.ts';
import type { ChatRequest, ModelInfo } from '../core/engine.ts';
import { GatewayError, type GatewayErrorCode } from '../core/errors.ts';
import { startGeneration } from '../core/generation.ts';
import { findModel } from '../core/models.ts';
import { WIRES } from '../protocol/wires.ts';
import type { RemoteEngine } from '../remote/remote-engine.ts';

/** Headers the answer carries about who served it (exposed to cross-origin callers too). */
export const SERVED_HEADERS = ['x-inpage-llm-served-by', 'x-inpage-llm-fallback-from', 'x-inpage-llm-fallback-reason', 'x-inpage-llm-upstream'] as const;

/**
 * Failures that say the model cannot be served here and now, whatever the request: its load failed
 * (no backend, no room, a missing or corrupt file), its engine or GPU device went, or its server
 * cannot be reached. A request's own mistakes (400s), a full queue and upstream HTTP errors are
 * answered as they are: another model would not do better, or the upstream has spoken.
 */
const FALLBACK_CODES: ReadonlySet<GatewayErrorCode> = new Set(['model_unavailable', 'engine_unavailable', 'device_lost', 'insufficient_storage', 'upstream_unreachable', 'upstream_timeout']);

/** Who served one request, learnt as it is served and told in its response's headers. */
export interface Served {
  model?: ModelInfo;
  /** The model asked for, and why it could not serve, when a fallback did. */
  from?: { readonly model: ModelInfo; readonly reason: GatewayErrorCode };
  upstream?: string;
}

export function tellServed(response: Response, served: Served): Response {
  if (served.model) response.headers.set('x-inpage-llm-served-by', served.model.id);
  if (served.from) {
    response.headers.set('x-inpage-llm-fallback-from', served.from.model.id);
    response.headers.set('x-inpage-llm-fallback-reason', served.from.reason);
  }
  if (served.upstream && !response.headers.has('x-inpage-llm-upstream')) response.headers.set('x-inpage-llm-upstream', served.upstream);
  return response;
}

export type ChatPath = Pick<RequestContext, 'generate' | 'countTokens' | 'forward'>;

/** The chat path of one request: `served` learns who served it. */
export function chatPath(ctx: Omit<RequestContext, keyof ChatPath>, remote: RemoteEngine, served: Served): ChatPath {
  const call = { signal: ctx.signal, requestId: ctx.requestId, ...(ctx.respondBy !== undefined ? { respondBy: ctx.respondBy } : {}) };
  /** Whether `model` is sent the body as it came, and what that answered. */
  const passed = async (model: ModelInfo, route: PassThroughRoute | undefined): Promise<Response | undefined> => {
    if (!route || !remote.speaks(model, route.flavour)) return undefined;
    const body = await ctx.body();
    return remote.passThrough(model, { ...route, body, headers: ctx.request.headers, lateError: WIRES[route.flavour].lateError }, call);
  };
  const serve = <T>(id: string, kind: ModelInfo['kind'], attempt: (model: ModelInfo) => Promise<T>) => withFallback(ctx, id, kind, served, attempt);
  return {
    generate<P extends ParsedChat>(id: string, parse: () => P | Unread, options: ChatPathOptions = {}): Promise<ChatAnswer<P>> {
      const read = once(parse);
      return serve(id, 'chat', async (model): Promise<ChatAnswer<P>> => {
        const response = await passed(model, options.passThrough);
        if (response) return { passed: response };
        // What this model is given of the request, or the caller's first problem with it.
        const { parsed, chat } = admitFor(read(), model);
        try {
          if (!model.upstream) {
            const generation = await startGeneration(ctx.engine, chat, ctx.signal, { whole: !parsed.stream, ...(model.reasoning ? { reasoning: model.reasoning } : {}) });
            return { generation, model, parsed };
          }
          const { generation, url } = await remote.generate(model, chat, { ...call, whole: !parsed.stream, namesStop: options.namesStop === true });
          served.upstream = url;
          return { generation, model, parsed };
        } catch (error) {
          throw inCallerTerms(GatewayError.from(error), parsed.names);
        }
      });
    },
    countTokens(id: string, parse: () => ParsedChat | Unread, options: Pick<ChatPathOptions, 'passThrough'> = {}): Promise<CountAnswer> {
      const read = once(parse);
      return serve(id, 'chat', async (model): Promise<CountAnswer> => {
        const response = await passed(model, options.passThrough);
        if (response) return { passed: response };
        const { parsed, chat: request } = admitFor(read(), model);
        try {
          if (model.upstream) {
            const { count, url } = await remote.countTokens(model, request, call);
            served.upstream = url;
            return { count };
          }
          return { count: await countLocally(ctx, request) };
        } catch (error) {
          throw inCallerTerms(GatewayError.from(error), parsed.names);
        }
      });
    },
    forward(id, kind, passThrough, local) {
      return serve(id, kind, async (model) => (await passed(model, passThrough)) ?? local(model));
    },
  };
}

/** A parse run once for every model tried (one that threw is run again, and throws again): a fallback is admitted what the first was. */
function once<P>(parse: () => P): () => P {
  let parsed: { value: P } | undefined;
  return () => (parsed ??= { value: parse() }).value;
}

/**
 * The engine reads the prompt and makes one token, which is discarded: engines count the prompt as
 * they read it, and some learn the exact count only at the end. It waits its turn with other requests.
 */
async function countLocally(ctx: Pick<RequestContext, 'engine' | 'signal'>, request: ChatRequest): Promise<number> {
  const generation = await startGeneration(ctx.engine, { ...request, maxTokens: 1 }, ctx.signal, { whole: true });
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return generation.usage().promptTokens;
      if (next.value.type === 'finish') return next.value.usage.promptTokens;
    }
  } finally {
    generation.cancel();
  }
}

/** The model asked for (as this caller may see it), then its fallbacks, until one serves. */
async function withFallback<T>(ctx: Pick<RequestContext, 'model' | 'scope' | 'signal'>, id: string, kind: ModelInfo['kind'], served: Served, attempt: (model: ModelInfo) => Promise<T>): Promise<T> {
  const found = await ctx.model(id);
  const requested = findModel(found ? [found] : [], id, ctx.scope, kind);
  let model = requested;
  let first: GatewayError | undefined;
  // The key's model scope was checked for the model asked for; a fallback is the app's choice, not the caller's.
  for (const tried = new Set<string>(); ; ) {
    tried.add(model.id);
    try {
      const answer = await attempt(model);
      served.model = model;
      if (first) served.from = { model: requested, reason: first.code };
      return answer;
    } catch (error) {
      const failure = GatewayError.from(error);
      // A fallback the engine must be asked for, when it cannot be: the failure stands as it is.
      const next = model.fallback === undefined || ctx.signal.aborted || !FALLBACK_CODES.has(failure.code) ? undefined : await ctx.model(model.fallback).catch(() => undefined);
      // One of another kind is none: a page names its remote models' fallbacks before web-llm's list can check them.
      if (!next || next.kind !== kind || tried.has(next.id) || ctx.signal.aborted || !FALLBACK_CODES.has(failure.code)) throw first ? afterFallback(failure, first, requested) : failure;
      first ??= failure;
      delete served.upstream;
      model = next;
    }
  }
}

/** The fallback's failure, saying what happened to the model asked for first. */
function afterFallback(last: GatewayError, first: GatewayError, requested: ModelInfo): GatewayError {
  return new GatewayError(last.code, `${last.message} (This was the fallback: '${requested.id}' could not be served either: ${first.message})`, {
    ...(last.param !== undefined ? { param: last.param } : {}),
    ...(last.retryAfter !== undefined ? { retryAfter: last.retryAfter } : {}),
    ...(last.upstream !== undefined ? { upstream: last.upstream } : {}),
  });
}
