/**
 * Requests for remote models, sent on to their upstream servers. A request in a flavour the
 * upstream speaks goes as it came (only `model` renamed), and its answer comes back byte for byte,
 * a stream chunk by chunk as the upstream sends it; any other is translated (translate/), its
 * answer and stream events translated back. Upstream failures come back in the caller's flavour
 * with the upstream's status; a caller that goes away closes the upstream connection.
 * Pure: no DOM, no engine; `fetch` is the runtime's (a service worker's, Node's).
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { anthropicErrorEvent } from '../protocol/anthropic/wire.ts';
import { openAIErrorEvent } from '../protocol/openai/wire.ts';
import type { RemoteState } from '../core/remote-state.ts';
import { encodeSSE, readSSEEvents, SSE_HEADERS, toSSEStream, type SSEMessage } from '../core/sse.ts';
import { fromOpenAIChatCompletion, fromOpenAIStream, toOpenAIChatRequest } from './translate/anthropic-over-openai.ts';
import { fromAnthropicMessage, fromAnthropicStream, toAnthropicMessagesRequest } from './translate/openai-over-anthropic.ts';
import { readUpstreamFailure, renderUpstreamFailure } from './upstream-errors.ts';
import { anySignal, createUpstreamPool, type UpstreamPool } from './upstream-pool.ts';
import type { UpstreamFlavour, UpstreamSpec } from '../core/upstream-spec.ts';

/** Which endpoint the caller used: it fixes the caller's flavour. */
export type Endpoint = 'chat' | 'messages' | 'count_tokens' | 'embeddings';

export interface ForwardRequest {
  /** A model with `upstream` set. */
  readonly model: ModelInfo;
  readonly endpoint: Endpoint;
  readonly body: Readonly<Record<string, unknown>>;
  /** The caller's headers: only `anthropic-version` and `anthropic-beta` are passed on, never credentials. */
  readonly headers: Headers;
  readonly signal: AbortSignal;
  readonly requestId: string;
  /**
   * When the runtime cuts a request whose response has not begun (epoch ms; a service worker's
   * fetch event): the wait for the upstream's headers ends a little before, with a 504 that says so.
   */
  readonly respondBy?: number;
}

export interface RemoteRouter {
  /** The upstream's answer, in the caller's flavour; `x-inpage-llm-upstream` names the URL that gave it. Throws GatewayError when no upstream answered. */
  forward(request: ForwardRequest): Promise<Response>;
  /** The state of each remote model among `models`, its upstreams checked if not checked lately. */
  states(models: readonly ModelInfo[]): Promise<ReadonlyMap<string, RemoteState>>;
}

export interface RemoteRouterOptions {
  /** Default: the global `fetch` when the router is made (a fetch shim installed later is not called). */
  readonly fetch?: typeof fetch;
}

/** The Anthropic API version asked of an Anthropic upstream when the caller spoke OpenAI. */
const ANTHROPIC_VERSION = '2023-06-01';

export function createRemoteRouter(options: RemoteRouterOptions = {}): RemoteRouter {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  // One pool per server (not per model): models on one Ollama share its concurrency limit and health.
  const pools = new Map<string, UpstreamPool>();
  const poolOf = (spec: UpstreamSpec): UpstreamPool => {
    const urls = typeof spec.baseURL === 'string' ? [spec.baseURL] : [...spec.baseURL];
    const key = JSON.stringify([urls, spec.apiKey, spec.headers, spec.maxConcurrent, spec.timeoutMs, speaksOf(spec)]);
    let pool = pools.get(key);
    if (!pool) {
      pool = createUpstreamPool({
        urls,
        fetch: fetchImpl,
        ...(spec.maxConcurrent !== undefined ? { maxConcurrent: spec.maxConcurrent } : {}),
        ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
        probeHeaders: Object.fromEntries(upstreamHeaders(spec, speaksOf(spec)[0]!, undefined)),
      });
      pools.set(key, pool);
    }
    return pool;
  };

  return {
    async forward(request) {
      const spec = request.model.upstream;
      if (!spec) throw new GatewayError('internal', `The model '${request.model.id}' has no upstream.`);
      const caller: UpstreamFlavour = request.endpoint === 'messages' || request.endpoint === 'count_tokens' ? 'anthropic' : 'openai';
      const speaks = speaksOf(spec);
      if (request.endpoint === 'count_tokens' && !speaks.includes('anthropic')) {
        // The OpenAI API has no token counting to translate to.
        throw new GatewayError('invalid_request', `Token counting is not available for model '${request.model.id}': its server speaks only the OpenAI API, which has no token counting.`, { param: 'model' });
      }
      const target = speaks.includes(caller) ? caller : speaks[0]!;
      const upstreamModel = spec.model ?? request.model.id;
      const stream = request.body.stream === true;

      let body: Record<string, unknown>;
      if (target === caller) body = { ...request.body, model: upstreamModel };
      else if (caller === 'anthropic') body = toOpenAIChatRequest({ ...request.body }, upstreamModel);
      else body = toAnthropicMessagesRequest({ ...request.body }, upstreamModel, request.model.maxOutputTokens ?? 4096);

      // Cancelling a translated stream must close the upstream connection at once, even while the
      // translator is waiting for the upstream's next chunk: one signal covers both.
      const cut = new AbortController();
      const signal = anySignal([request.signal, cut.signal]);
      const path = PATHS[request.endpoint === 'chat' || request.endpoint === 'messages' ? target : request.endpoint];
      const headers = upstreamHeaders(spec, target, target === caller ? request.headers : undefined);
      headers.set('accept', stream ? 'text/event-stream' : 'application/json');
      const budget = request.respondBy === undefined ? undefined : request.respondBy - Date.now() - DEADLINE_MARGIN_MS;
      const { response, url, unavailable } = await sendWithin(poolOf(spec), path, { method: 'POST', headers: Object.fromEntries(headers), body: JSON.stringify(body) }, signal, budget);
      const answered = (result: Response): Response => {
        result.headers.set('x-inpage-llm-upstream', url);
        return result;
      };
      if (!response.ok) {
        const failure = await readUpstreamFailure(response, url);
        // Every URL down or overloaded: a model with a fallback is served by it instead.
        if (unavailable && request.model.fallback !== undefined) throw new GatewayError('upstream_unreachable', failure.message, { retryAfter: 2 });
        return answered(renderUpstreamFailure(failure, caller, request.requestId));
      }
      if (target === caller) {
        // As it came: only the type, since the runtime's fetch may have decoded a compressed body.
        const passed = new Headers({ 'content-type': response.headers.get('content-type') ?? 'application/json' });
        if (stream) for (const [name, value] of Object.entries(SSE_HEADERS)) passed.set(name, value);
        const bytes = stream && response.body ? endingWithErrorEvent(response.body, caller, url, request.requestId) : response.body;
        return answered(new Response(bytes, { status: response.status, headers: passed }));
      }
      if (!stream) {
        const json = await readJson(response, url);
        const translated = caller === 'anthropic' ? fromOpenAIChatCompletion(json, request.model.id) : fromAnthropicMessage(json, request.model.id);
        return answered(new Response(JSON.stringify(translated), { headers: { 'content-type': 'application/json' } }));
      }
      const events = readSSEEvents(response.body);
      const messages: AsyncGenerator<SSEMessage> =
        caller === 'anthropic'
          ? fromOpenAIStream(events, request.model.id, request.requestId)
          : fromAnthropicStream(events, request.model.id, { includeUsage: includeUsage(request.body) });
      return answered(new Response(toSSEStream(messages, () => cut.abort()), { headers: SSE_HEADERS }));
    },

    async states(models) {
      const remote = models.filter((model) => model.upstream);
      const entries = await Promise.all(
        remote.map(async (model) => {
          const upstreams = await poolOf(model.upstream!).health({ probe: true });
          return [model.id, { speaks: speaksOf(model.upstream!), available: upstreams.some((u) => u.state === 'up'), upstreams }] as const;
        }),
      );
      return new Map(entries);
    },
  };
}

/** Where each request goes on the upstream, by endpoint (chat and messages: by the flavour it speaks). */
const PATHS = { openai: '/chat/completions', anthropic: '/messages', count_tokens: '/messages/count_tokens', embeddings: '/embeddings' } as const;

/** How long before the runtime's cut the wait for an upstream's headers gives up, so its 504 is the one sent. */
const DEADLINE_MARGIN_MS = 2000;

/** `pool.send`, its wait for headers bounded by the runtime's deadline, whose 504 then says why. */
async function sendWithin(pool: UpstreamPool, path: string, init: Parameters<UpstreamPool['send']>[1], signal: AbortSignal, budgetMs: number | undefined) {
  try {
    return await pool.send(path, init, signal, budgetMs === undefined ? {} : { timeoutMs: Math.max(budgetMs, 0) });
  } catch (error) {
    if (budgetMs === undefined || !(error instanceof GatewayError) || error.code !== 'upstream_timeout') throw error;
    throw new GatewayError(
      'upstream_timeout',
      `${error.message} This runtime (a service worker) cuts a request whose response has not begun within its limit, and a non-streamed answer begins only when it is complete: ask for long answers with stream: true.`,
    );
  }
}

/**
 * A passed-through stream whose upstream connection breaks between events ends with the
 * flavour's error event, as a stream of the gateway's own does, instead of a network error. One
 * that breaks inside an event cannot be ended cleanly (the event would be half-written), and
 * fails as a network error.
 */
function endingWithErrorEvent(body: ReadableStream<Uint8Array>, flavour: UpstreamFlavour, url: string, requestId: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // The last bytes seen: whether the stream stands between two events.
  let tail: number[] = [];
  const betweenEvents = () => tail.length === 0 || /(\r\n\r\n|\n\n|\r\r)$/.test(String.fromCharCode(...tail));
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (cause) {
          if (!betweenEvents()) return controller.error(cause);
          const error = new GatewayError('upstream_unreachable', `The upstream ${url} broke off the stream: ${cause instanceof Error ? cause.message : String(cause)}.`);
          controller.enqueue(encodeSSE(flavour === 'anthropic' ? anthropicErrorEvent(error, requestId) : openAIErrorEvent(error)));
          return controller.close();
        }
        if (chunk.done) return controller.close();
        tail = [...tail, ...chunk.value.subarray(-4)].slice(-4);
        controller.enqueue(chunk.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

const speaksOf = (spec: UpstreamSpec): readonly UpstreamFlavour[] => (spec.speaks?.length ? spec.speaks : ['openai']);

/**
 * What every request to the upstream carries: its own key in its flavour's header, and the
 * config's headers. Of the caller's headers only the Anthropic version and betas pass, and only
 * to an Anthropic upstream the caller spoke Anthropic to.
 */
function upstreamHeaders(spec: UpstreamSpec, target: UpstreamFlavour, caller: Headers | undefined): Headers {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (target === 'anthropic') {
    headers.set('anthropic-version', caller?.get('anthropic-version') ?? ANTHROPIC_VERSION);
    const beta = caller?.get('anthropic-beta');
    if (beta) headers.set('anthropic-beta', beta);
    if (spec.apiKey) headers.set('x-api-key', spec.apiKey);
  } else if (spec.apiKey) {
    headers.set('authorization', `Bearer ${spec.apiKey}`);
  }
  // The config's own headers last, whatever their case: one that names `Authorization` replaces the key's.
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.set(name, value);
  return headers;
}

function includeUsage(body: Readonly<Record<string, unknown>>): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && (options as { include_usage?: unknown }).include_usage === true;
}

async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_unreachable', `The upstream ${url} answered with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}.`);
  }
}
