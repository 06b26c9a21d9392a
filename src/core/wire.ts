/**
 * The seam between the gateway and the wire formats, in neutral terms. Each wire format is one
 * folder of src/protocol/ with three parts: a parser (its JSON into the neutral ChatRequest), a
 * renderer (the neutral generation's events into its JSON body or its SSE events), and the
 * descriptor below, which says what the gateway must know of its API family beyond one endpoint.
 * A remote server is reached through a format's client side (`UpstreamClient`): the same
 * neutral request written in that server's API, its answer read back as neutral events, so any
 * caller's format meets any upstream's through the neutral model. See docs/guides/architecture.md.
 * @module
 */
import type { ChatRequest } from './engine.ts';
import type { GatewayError } from './errors.ts';
import type { Flavour } from './flavour.ts';
import type { GenerationEvent, Usage } from './generation.ts';
import type { UpstreamModel } from './remote-state.ts';
import type { KeepAlive, SSEEvent, SSEMessage } from './sse.ts';

/** What the gateway must know of an API family, decided once per request (src/protocol/wires.ts). */
export interface WireDescriptor {
  readonly flavour: Flavour;
  /**
   * Whether a request is this family's on a path both serve (`/models`) or on one of its own:
   * the family whose descriptor claims it answers, errors included; OpenAI's when none does.
   */
  claims(path: string | null, headers: Headers): boolean;
  /** The caller's API key, as this family's SDKs send it; undefined when none was sent. */
  credentials(headers: Headers): string | undefined;
  /** The 401's message when no key was sent, and when a wrong one was (shown redacted). */
  readonly missingKey: string;
  wrongKey(redacted: string): string;
  /** This family's error body for a failure answered with a status. */
  errorBody(error: GatewayError, requestId: string): unknown;
  /** What an idle stream sends so that nothing between takes it for dead (a ping event, a comment). */
  readonly keepAlive: KeepAlive;
  /**
   * The event that ends a stream which failed after it began (no status can say it any more);
   * `usage`: what the generation consumed up to there, an extra field the SDKs ignore.
   */
  lateError(error: unknown, requestId: string | undefined, usage?: Usage): SSEMessage;
}

/** What a request to an upstream needs beyond the neutral request. */
export interface UpstreamRequestOptions {
  /** The upstream's own name for the model. */
  readonly model: string;
  readonly stream: boolean;
  /** A cap for an API that requires one when the caller set none (the entry's `maxOutputTokens`). */
  readonly defaultMaxTokens: number;
  /** Leave the stop strings out: the gateway cuts at them itself (the caller must learn which one matched). */
  readonly withoutStops?: boolean;
}

/**
 * The client side of a wire format: how the gateway speaks it to a remote server. Pure data in,
 * data out; the transport (pool, health, timeouts) is src/remote's.
 */
export interface UpstreamClient {
  readonly flavour: Flavour;
  /** Where a chat request goes, below the server's base URL. */
  readonly chatPath: string;
  /** Where a token count goes; absent where the API has none. */
  readonly countPath?: string;
  /**
   * Whether the API says which stop string ended an answer. Where it cannot, a caller that must
   * know has the gateway match the strings itself (`withoutStops`).
   */
  readonly namesStopSequence: boolean;
  /**
   * The headers of every request: the upstream's own key in this API's credentials header, and its
   * version header (`caller`: the caller's request, whose version a same-API request keeps).
   */
  headers(apiKey: string | undefined, caller?: Headers): Headers;
  /** The neutral request as this API's body; a 400 naming the field for what the API cannot take. */
  chatBody(request: ChatRequest, options: UpstreamRequestOptions): Record<string, unknown>;
  /** The body of a token count (with `countPath`). */
  countBody?(request: ChatRequest, model: string): Record<string, unknown>;
  /** The count in a token count's answer. */
  readCount?(answer: unknown): number;
  /** A whole answer as neutral events, the finish last; an `internal` GatewayError for what is not an answer. */
  answer(body: unknown): GenerationEvent[];
  /** What the server's own `GET /models` list (its `data`) says of the model it calls `id`; undefined where it does not list it. */
  listedModel(listing: readonly unknown[], id: string): UpstreamModel | undefined;
  /**
   * A streamed answer's events as neutral ones, each as soon as it can be made, the finish last. An
   * error the upstream reports in the stream, malformed data or an early end throws a GatewayError.
   */
  events(stream: AsyncIterable<SSEEvent>): AsyncGenerator<GenerationEvent>;
}
