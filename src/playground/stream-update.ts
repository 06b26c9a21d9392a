/**
 * What a reply's events say in flavour-neutral terms: each flavour reads its own SSE events and
 * whole bodies into these (chat-flavours.ts, responses-flavour.ts, whole-replies.ts), which
 * import them from here rather than from one another.
 * @module
 */

/**
 * A piece of a streamed tool call: its first piece has the id and name, the rest carry argument
 * fragments. `index` tells calls apart (OpenAI's call index, Anthropic's content block index, the
 * Responses output index).
 */
export interface ToolDelta {
  readonly index: number;
  readonly id?: string;
  readonly name?: string;
  readonly arguments?: string;
}

/** What one SSE event says, in flavour-neutral terms. */
export interface StreamUpdate {
  readonly text?: string;
  /** A piece of a thinking model's thinking, which is not the answer. */
  readonly thinking?: string;
  readonly tools?: readonly ToolDelta[];
  readonly finish?: string;
  /** Output tokens so far (every flavour reports a cumulative count near the end). */
  readonly outputTokens?: number;
  /** The prompt's tokens, and of them those the engine read from its prefix cache (from the usage). */
  readonly promptTokens?: number;
  readonly cachedTokens?: number;
  /** An error sent in-band after the stream began: the event's whole body. */
  readonly error?: unknown;
  readonly done?: boolean;
}
