/**
 * Remote models as an engine: a neutral chat request is sent to the model's upstream server in an
 * API it speaks, through that wire format's client side (src/protocol: the body one way, the
 * answer as neutral events the other), so any caller's format meets any upstream's through the
 * neutral model and is rendered like a local model's answer. Where the caller speaks an API the
 * server speaks too, the request may instead go as it came and its answer come back byte for
 * byte (`passThrough`), a stream chunk by chunk as the server sends it: the fast path. Upstream
 * failures carry the server's status, message and retry advice; a caller that goes away closes the
 * upstream connection. Pure: no DOM, no local engine; `fetch` is the runtime's (a service
 * worker's, Node's). See docs/decisions/remote-models.md.
 * @module
 */
import type { ChatRequest, ModelInfo } from '../core/engine.ts';
import { abortedError, GatewayError } from '../core/errors.ts';
import { StopMatcher, type Generation, type GenerationEvent, type Usage } from '../core/generation.ts';
import type { RemoteState } from '../core/remote-state.ts';
import { encodeSSE, readSSEEvents, SSE_HEADERS, type SSEEvent } from '../core/sse.ts';
import type { UpstreamSpec } from '../core/upstream-spec.ts';
import type { Flavour } from '../core/flavour.ts';
import type { UpstreamClient, WireDescriptor } from '../core/wire.ts';
import { UPSTREAM_CLIENTS } from '../protocol/wires.ts';
import { readUpstreamFailure, toUpstreamError } from './upstream-errors.ts';
import { anySignal, createUpstreamPool, type UpstreamPool } from './upstream-pool.ts';

/** What every call to an upstream needs of the caller's request. */
export interface RemoteCall {
  readonly signal: AbortSignal;
  readonly requestId: string;
  /**
   * When the runtime cuts a request whose response has not begun (epoch ms; a service worker's
   * fetch event): the wait for the upstream's headers ends a little before, with a 504 that says so.
   */
  readonly respondBy?: number;
}

export interface RemoteGenerateOptions {
  /** The caller reads nothing before the answer is complete: the upstream is asked for it whole. */
  readonly whole: boolean;
  /**
   * The caller's API reports which stop string ended an answer (Anthropic's `stop_sequence`): over
   * an upstream API that does not say, the gateway matches the strings in the stream itself.
   */
  readonly namesStop?: boolean;
}

/** A request to send as it came, to an upstream that speaks the caller's API. */
export interface PassThrough {
  readonly flavour: Flavour;
  /** Below the upstream's base URL: `/chat/completions`, `/messages`, `/messages/count_tokens`, `/embeddings`. */
  readonly path: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** The caller's headers: only `anthropic-version` and `anthropic-beta` are passed on, never credentials. */
  readonly headers: Headers;
  /** How the caller's API ends a stream that broke off between two events. */
  readonly lateError: WireDescriptor['lateError'];
}

export interface RemoteEngine {
  /** Whether the model's server speaks `flavour`, so a request in it can go as it came. */
  speaks(model: ModelInfo, flavour: Flavour): boolean;
  /** The model's upstream answering a neutral request, as a generation, once its headers came. */
  generate(model: ModelInfo, request: ChatRequest, call: RemoteCall & RemoteGenerateOptions): Promise<{ readonly generation: Generation; readonly url: string }>;
  /** The prompt's token count, from an upstream whose API counts tokens (a 400 where none does). */
  countTokens(model: ModelInfo, request: ChatRequest, call: RemoteCall): Promise<{ readonly count: number; readonly url: string }>;
  /** The request sent as it came; `x-inpage-llm-upstream` names the URL that gave the answer. */
  passThrough(model: ModelInfo, pass: PassThrough, call: RemoteCall): Promise<Response>;
  /** The state of each remote model among `models`, its upstreams checked if not checked lately. */
  states(models: readonly ModelInfo[]): Promise<ReadonlyMap<string, RemoteState>>;
}

export interface RemoteEngineOptions {
  /** Default: the global `fetch` when the engine is made (a fetch shim installed later is not called). */
  readonly fetch?: typeof fetch;
}

/** What a translated request asks for when the caller set no cap and the API needs one, unless the entry says. */
const DEFAULT_MAX_TOKENS = 4096;

export function createRemoteEngine(options: RemoteEngineOptions = {}): RemoteEngine {
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
        probeHeaders: Object.fromEntries(upstreamHeaders(spec, UPSTREAM_CLIENTS[speaksOf(spec)[0]!], undefined)),
      });
      pools.set(key, pool);
    }
    return pool;
  };

  /** One request to the model's upstream, resolved once its headers came; a failure status throws. */
  async function send(model: ModelInfo, path: string, headers: Headers, body: unknown, stream: boolean, signal: AbortSignal, call: RemoteCall) {
    const spec = specOf(model);
    headers.set('accept', stream ? 'text/event-stream' : 'application/json');
    const budget = call.respondBy === undefined ? undefined : call.respondBy - Date.now() - DEADLINE_MARGIN_MS;
    const sent = await sendWithin(poolOf(spec), path, { method: 'POST', headers: Object.fromEntries(headers), body: JSON.stringify(body) }, signal, budget);
    if (!sent.response.ok) {
      const failure = await readUpstreamFailure(sent.response, sent.url);
      // Every URL down or overloaded: a model with a fallback is served by it instead.
      if (sent.unavailable && model.fallback !== undefined) throw new GatewayError('upstream_unreachable', failure.message, { retryAfter: 2 });
      throw toUpstreamError(failure, sent.url);
    }
    return sent;
  }

  return {
    speaks: (model, flavour) => model.upstream !== undefined && speaksOf(model.upstream).includes(flavour),

    async generate(model, request, call) {
      const spec = specOf(model);
      const client = UPSTREAM_CLIENTS[speaksOf(spec)[0]!];
      // Stop strings a caller must learn the match of, over an API that does not say which
      // matched: the gateway matches them in the stream, as it does a local engine's, and closes
      // the connection at the first (a JSON answer's end is its grammar's, as for a local model).
      const matchHere = call.namesStop === true && !client.namesStopSequence && request.stop.length > 0 && !request.output;
      const stream = !call.whole || matchHere;
      const body = client.chatBody(request, { model: spec.model ?? model.id, stream, defaultMaxTokens: model.maxOutputTokens ?? DEFAULT_MAX_TOKENS, withoutStops: matchHere });
      // Cancelling must close the upstream connection at once, even while the reader waits for the
      // upstream's next chunk: one signal covers both.
      const cut = new AbortController();
      const signal = anySignal([call.signal, cut.signal]);
      const { response, url } = await send(model, client.chatPath, upstreamHeaders(spec, client, undefined), body, stream, signal, call);
      let events: AsyncIterator<GenerationEvent>;
      if (!stream) events = (await wholeAnswer(client, response, url, call.signal))[Symbol.asyncIterator]();
      else events = client.events(readUpstreamEvents(response.body, url, call.signal));
      if (matchHere) events = cutAtStops(events, request.stop, () => cut.abort());
      return { generation: remoteGeneration(events, () => cut.abort()), url };
    },

    async countTokens(model, request, call) {
      const spec = specOf(model);
      const counting = speaksOf(spec)
        .map((flavour) => UPSTREAM_CLIENTS[flavour])
        .find((client) => client.countPath !== undefined && client.countBody !== undefined && client.readCount !== undefined);
      if (!counting) {
        throw new GatewayError('invalid_request', `Token counting is not available for model '${model.id}': its server speaks only the OpenAI API, which has no token counting.`, { param: 'model' });
      }
      const body = counting.countBody!(request, spec.model ?? model.id);
      const { response, url } = await send(model, counting.countPath!, upstreamHeaders(spec, counting, undefined), body, false, call.signal, call);
      return { count: counting.readCount!(await readJson(response, url)), url };
    },

    async passThrough(model, pass, call) {
      const spec = specOf(model);
      const stream = pass.body.stream === true;
      const cut = new AbortController();
      const signal = anySignal([call.signal, cut.signal]);
      const body = { ...pass.body, model: spec.model ?? model.id };
      const { response, url } = await send(model, pass.path, upstreamHeaders(spec, UPSTREAM_CLIENTS[pass.flavour], pass.headers), body, stream, signal, call);
      // As it came: only the type, since the runtime's fetch may have decoded a compressed body.
      const passed = new Headers({ 'content-type': response.headers.get('content-type') ?? 'application/json', 'x-inpage-llm-upstream': url });
      if (stream) for (const [name, value] of Object.entries(SSE_HEADERS)) passed.set(name, value);
      const bytes = stream && response.body ? endingWithErrorEvent(response.body, pass, url, call.requestId) : response.body;
      return new Response(bytes, { status: response.status, headers: passed });
    },

    async states(models) {
      const remote = models.filter((model) => model.upstream);
      const entries = await Promise.all(
        remote.map(async (model) => {
          const spec = model.upstream!;
          const pool = poolOf(spec);
          const upstreams = await pool.health({ probe: true });
          // The list is in the API the server is probed in: its first.
          const listing = pool.listing();
          const listed = listing && UPSTREAM_CLIENTS[speaksOf(spec)[0]!].listedModel(listing, spec.model ?? model.id);
          const state: RemoteState = { speaks: speaksOf(spec), available: upstreams.some((u) => u.state === 'up'), upstreams, ...(listed ? { model: listed } : {}) };
          return [model.id, state] as const;
        }),
      );
      return new Map(entries);
    },
  };
}

function specOf(model: ModelInfo): UpstreamSpec {
  if (!model.upstream) throw new GatewayError('internal', `The model '${model.id}' has no upstream.`);
  return model.upstream;
}

const speaksOf = (spec: UpstreamSpec): readonly Flavour[] => (spec.speaks?.length ? spec.speaks : ['openai']);

/**
 * What every request to the upstream carries: its own key in its API's credentials header, and the
 * config's headers last, whatever their case (one that names `Authorization` replaces the key's).
 * Of the caller's headers only a same-API caller's version and betas pass (the client's choice).
 */
function upstreamHeaders(spec: UpstreamSpec, client: UpstreamClient, caller: Headers | undefined): Headers {
  const headers = client.headers(spec.apiKey, caller);
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.set(name, value);
  return headers;
}

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

async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new GatewayError('upstream_unreachable', `The upstream ${url} answered with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}.`);
  }
}

/** A whole answer's events, read once its body is complete. */
async function wholeAnswer(client: UpstreamClient, response: Response, url: string, signal: AbortSignal): Promise<AsyncIterable<GenerationEvent>> {
  let json: unknown;
  try {
    json = await readJson(response, url);
  } catch (error) {
    if (signal.aborted) throw abortedError('while the upstream answered');
    if (error instanceof GatewayError) throw error;
    throw brokeOff(url, error);
  }
  const events = client.answer(json);
  return (async function* () {
    yield* events;
  })();
}

/** The upstream's stream as events; a connection that breaks says which upstream broke it off. */
async function* readUpstreamEvents(body: ReadableStream<Uint8Array> | null, url: string, signal: AbortSignal): AsyncGenerator<SSEEvent> {
  try {
    yield* readSSEEvents(body);
  } catch (error) {
    if (signal.aborted) throw abortedError('while the upstream streamed');
    throw error instanceof GatewayError ? error : brokeOff(url, error);
  }
}

function brokeOff(url: string, cause: unknown): GatewayError {
  return new GatewayError('upstream_unreachable', `The upstream ${url} broke off the stream: ${cause instanceof Error ? cause.message : String(cause)}.`, { cause });
}

/** A remote answer as a generation: its counts are the upstream's, known with its finish. */
function remoteGeneration(source: AsyncIterator<GenerationEvent>, close: () => void): Generation {
  let usage: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  return {
    // The upstream reports its count with the finish: 0 until then.
    promptTokens: 0,
    usage: () => usage,
    events: {
      async next() {
        const next = await source.next();
        if (!next.done && next.value.type === 'finish') usage = next.value.usage;
        return next;
      },
      async return() {
        close();
        await source.return?.(undefined).catch(() => {});
        return { done: true, value: undefined };
      },
    },
    cancel: close,
  };
}

/**
 * The upstream's events with the caller's stop strings matched in its text, as a local engine's
 * are (src/core/generation.ts): the answer ends at the first, which the finish names, and the
 * upstream connection is closed. Its counts then are those the gateway saw: each text or argument
 * fragment one token (what these servers stream), the prompt's unknown (0: the upstream reports it
 * only with a finish it never sent).
 */
async function* cutAtStops(events: AsyncIterator<GenerationEvent>, stops: readonly string[], close: () => void): AsyncGenerator<GenerationEvent> {
  const matcher = new StopMatcher(stops);
  let tokens = 0;
  for (;;) {
    const next = await events.next();
    if (next.done) return;
    const event = next.value;
    if (event.type === 'finish') {
      const rest = matcher.flush();
      if (rest) yield { type: 'text', text: rest };
      yield event;
      return;
    }
    tokens++;
    if (event.type !== 'text') {
      yield event;
      continue;
    }
    const { text, matched } = matcher.push(event.text);
    if (text) yield { type: 'text', text };
    if (matched !== null) {
      close();
      await events.return?.(undefined).catch(() => {});
      yield { type: 'finish', reason: 'stop_sequence', stopSequence: matched, usage: { promptTokens: 0, completionTokens: tokens, cachedTokens: 0 } };
      return;
    }
  }
}

/**
 * A passed-through stream whose upstream connection breaks between events ends with the caller's
 * API's error event, as a stream of the gateway's own does, instead of a network error. One that
 * breaks inside an event cannot be ended cleanly (the event would be half-written), and fails as
 * a network error.
 */
function endingWithErrorEvent(body: ReadableStream<Uint8Array>, pass: PassThrough, url: string, requestId: string): ReadableStream<Uint8Array> {
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
          controller.enqueue(encodeSSE(pass.lateError(brokeOff(url, cause), requestId)));
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
