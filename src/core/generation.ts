/**
 * Turns an engine's token stream into what both protocols report: text pieces, then one finish
 * with exact usage. Stop sequences and the token cap are enforced here, once, whatever the engine
 * does, and the engine is told to stop as soon as the answer is complete. An engine that stops at
 * a stop sequence itself says which in its `end` event; the cut here is then the backstop.
 * @module
 */
import type { ChatEvent, ChatRequest, Engine } from './engine.ts';
import { abortedError, GatewayError } from './errors.ts';
import { ReasoningSplitter, type ReasoningFormat } from './reasoning.ts';
import { ToolCallParser, type ToolOutputPiece } from './tool-syntax.ts';
import { within } from './within.ts';

/** The abort reason once an answer is complete: one shared instance, since nothing reads it. */
const OVER = new GatewayError('aborted', 'The generation is over.');

/** `refusal`: a remote server's model declined to answer (OpenAI's `content_filter`, Anthropic's `refusal`). */
export type FinishReason = 'stop' | 'length' | 'stop_sequence' | 'tool_calls' | 'refusal';

export interface Usage {
  readonly promptTokens: number;
  /** Every generated token, the thinking's included. */
  readonly completionTokens: number;
  /**
   * Of `promptTokens`, those the engine did not read again, reusing what it kept from an earlier
   * request (OpenAI's `cached_tokens`, Anthropic's `cache_read_input_tokens`); 0 when none.
   */
  readonly cachedTokens: number;
  /** Of `completionTokens`, those of the thinking (markers included); present for a model that thinks. */
  readonly reasoningTokens?: number;
  /**
   * Where the request had a `prediction`: of its tokens, those the answer kept, and those the
   * engine checked and threw away (OpenAI's `accepted_prediction_tokens`, `rejected_prediction_tokens`).
   */
  readonly prediction?: { readonly accepted: number; readonly rejected: number };
}

export type GenerationEvent =
  | { readonly type: 'text'; readonly text: string }
  /** A piece of the model's thinking (before its answer, never part of it): see core/reasoning.ts. */
  | { readonly type: 'reasoning'; readonly text: string }
  /**
   * A tool call begins: its position in this turn (from 0) and the tool's name; `id` where the
   * model's server gave the call one (a remote model: a result sent back must name it), else the
   * renderer makes one.
   */
  | { readonly type: 'tool_call'; readonly index: number; readonly name: string; readonly id?: string }
  /** The next fragment of that call's arguments (JSON text; the fragments joined are the object). */
  | { readonly type: 'tool_arguments'; readonly index: number; readonly text: string }
  | { readonly type: 'finish'; readonly reason: FinishReason; readonly stopSequence: string | null; readonly usage: Usage };

export interface Generation {
  /**
   * The prompt's tokens, exact when the engine counted them before the generation began; 0 when a
   * stream began first (a long prefill): the finish's usage carries the count then.
   */
  readonly promptTokens: number;
  /** The counts so far (tokens generated up to now): what a failure after the first byte reports. */
  usage(): Usage;
  /**
   * Reasoning pieces first (a thinking model), then text pieces or tool calls (a local model's
   * never both: its calls come only at the start of a reply; a remote model's text may come before
   * its calls), then exactly one `finish`. Throws a GatewayError if the engine fails midway.
   */
  readonly events: AsyncIterator<GenerationEvent>;
  /** Stops the engine now (the client went away). Safe to call more than once. */
  cancel(): void;
}

/** How a generation is read and split. */
export interface GenerationOptions {
  /** The caller uses nothing before the answer is complete (see CallOptions.whole). */
  readonly whole?: boolean;
  /** How the model writes its thinking (its ModelInfo.reasoning): the thinking is split from the answer. */
  readonly reasoning?: ReasoningFormat;
}

/**
 * Starts a generation and waits until the engine has read the prompt, so that failures before the
 * first token (unknown model, load failure, prompt too long) can still be normal HTTP errors.
 */
export async function startGeneration(engine: Engine, request: ChatRequest, signal: AbortSignal, { whole = false, reasoning }: GenerationOptions = {}): Promise<Generation> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) throw abortedError();
  signal.addEventListener('abort', onAbort, { once: true });

  const source = engine.chat(request, { signal: controller.signal, whole })[Symbol.asyncIterator]();
  /** The engine's next event when it was asked for before the generation began (see below). */
  let ahead: Promise<IteratorResult<ChatEvent>> | undefined;
  const feed: AsyncIterator<ChatEvent> = {
    next() {
      const next = ahead ?? source.next();
      ahead = undefined;
      return next;
    },
  };
  let first: IteratorResult<ChatEvent>;
  try {
    first = await source.next();
    if (!first.done && first.value.type === 'accepted') {
      // The engine has taken the request. A whole answer waits for it anyway; a stream waits for
      // the prompt's count only briefly, then begins (a long prefill must not keep its response
      // from beginning: a service worker cuts one that has not begun within its limit).
      const next = source.next();
      const started = whole ? await next : await within(next, START_GRACE_MS);
      if (started) first = started;
      else ahead = next;
    }
  } catch (error) {
    signal.removeEventListener('abort', onAbort);
    throw controller.signal.aborted ? abortedError() : GatewayError.from(error);
  }
  // Releasing the engine must not depend on `events` being iterated to its end: non-streaming
  // consumers stop reading at the finish, and a client may leave before the first token, when
  // returning the unstarted generator would skip its `finally`. The controller is this
  // generation's own, so aborting after a natural end is harmless.
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      signal.removeEventListener('abort', onAbort);
      controller.abort(OVER);
      await source.return?.(undefined).catch(() => {});
    })());
  const pending = first.done ? [] : [first.value];
  const started = pending[0]?.type === 'start' ? pending[0] : undefined;
  const counts: Counts = { promptTokens: started?.promptTokens ?? 0, completionTokens: 0, cachedTokens: started?.cachedTokens ?? 0, ...(reasoning ? { reasoningTokens: 0 } : {}), ...(request.prediction !== undefined ? { prediction: { accepted: 0, rejected: 0 } } : {}) };
  const inner = run(feed, pending, request, counts, controller, close, reasoning);
  const events: AsyncIterator<GenerationEvent> = {
    next: () => inner.next(),
    async return() {
      await inner.return(undefined);
      await close();
      return { done: true, value: undefined };
    },
  };
  return {
    promptTokens: counts.promptTokens,
    events,
    usage: () => usageOf(counts),
    cancel() {
      controller.abort(abortedError());
      void close();
    },
  };
}

/**
 * How long a stream waits, once the engine has taken its request, for the prompt's token count
 * before it begins without it (its first event then says 0; the finish carries the count). Long
 * enough for an engine that counts before prefill (transformers.js: a tokenizer call), short
 * enough that a long prefill (web-llm) starts the response at once. See docs/decisions/service-worker-limits.md.
 */
export const START_GRACE_MS = 500;

/** Updated as the generation runs, so that `usage()` can be read at any point. */
interface Counts {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens?: number;
  prediction?: { accepted: number; rejected: number };
}

const usageOf = ({ promptTokens, completionTokens, cachedTokens, reasoningTokens, prediction }: Counts): Usage => ({
  promptTokens,
  completionTokens,
  cachedTokens,
  ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
  ...(prediction ? { prediction: { ...prediction } } : {}),
});

async function* run(
  source: AsyncIterator<ChatEvent>,
  pending: ChatEvent[],
  request: ChatRequest,
  counts: Counts,
  controller: AbortController,
  close: () => Promise<void>,
  reasoning: ReasoningFormat | undefined,
): AsyncGenerator<GenerationEvent> {
  // Constrained output ends where its grammar says: a stop string must not cut a JSON value short.
  // In a reply that may call tools, stop strings apply to its text, never inside a call.
  const calling = request.tools !== undefined && request.tools.length > 0 && request.toolChoice !== 'none';
  const stops = new StopMatcher(request.output && !calling ? [] : request.stop);
  const parser = calling ? new ToolCallParser() : undefined;
  // The thinking is split off first: stop strings, tool calls and JSON apply to the answer alone.
  const thinking = reasoning ? new ReasoningSplitter(reasoning) : undefined;
  const finish = (reason: FinishReason, stopSequence: string | null = null): GenerationEvent => ({
    type: 'finish',
    reason: reason === 'stop' && parser && parser.calls > 0 ? 'tool_calls' : reason,
    stopSequence,
    usage: usageOf(counts),
  });
  /** The answer's text as output pieces: through the tool-call parser when calls may come. */
  const answerPieces = (text: string): readonly ToolOutputPiece[] => (!text ? [] : parser ? parser.push(text) : [{ type: 'text', text }]);
  /** Output pieces as events into `out`, text through the stop matcher; the stop sequence matched, if any. */
  const emit = (pieces: readonly ToolOutputPiece[], out: GenerationEvent[]): string | null => {
    for (const piece of pieces) {
      if (piece.type === 'call') out.push({ type: 'tool_call', index: piece.index, name: piece.name });
      else if (piece.type === 'arguments') out.push({ type: 'tool_arguments', index: piece.index, text: piece.text });
      else {
        const { text, matched } = stops.push(piece.text);
        if (text) out.push({ type: 'text', text });
        if (matched !== null) return matched;
      }
    }
    return null;
  };
  /**
   * The end of the reply: what the parser and the stop matcher hold back, then the finish.
   * `stopped`: the stop string the engine stopped at itself (its text ends just before it).
   */
  const ending = (reason: 'stop' | 'length', stopped: string | null = null): GenerationEvent[] => {
    const out: GenerationEvent[] = [];
    const held = thinking?.flush();
    if (held?.reasoning) out.push({ type: 'reasoning', text: held.reasoning });
    const early = held?.answer ? emit(answerPieces(held.answer), out) : null;
    if (early !== null) return [...out, finish('stop_sequence', early)];
    const matched = parser ? emit(parser.end(), out) : null;
    const rest = matched === null ? stops.flush() : '';
    if (rest) out.push({ type: 'text', text: rest });
    out.push(matched !== null ? finish('stop_sequence', matched) : stopped !== null ? finish('stop_sequence', stopped) : finish(reason));
    return out;
  };
  try {
    let endReason: 'stop' | 'length' = 'stop';
    let engineStop: string | null = null;
    for (;;) {
      let event: ChatEvent | undefined = pending.shift();
      if (event === undefined) {
        let next: IteratorResult<ChatEvent>;
        try {
          next = await source.next();
        } catch (error) {
          throw controller.signal.aborted ? abortedError() : GatewayError.from(error);
        }
        if (next.done) break;
        event = next.value;
      }
      if (event.type === 'end') {
        endReason = event.reason;
        if (event.promptTokens !== undefined) counts.promptTokens = event.promptTokens;
        if (event.cachedTokens !== undefined) counts.cachedTokens = event.cachedTokens;
        // Only a stop string of this request, and only where stop strings apply to this reply.
        if (event.stopSequence !== undefined && stops.has(event.stopSequence)) engineStop = event.stopSequence;
        break;
      }
      // A `start` after the stream began: the counts the first event could not carry.
      if (event.type === 'start') {
        counts.promptTokens = event.promptTokens;
        counts.cachedTokens = event.cachedTokens ?? 0;
      }
      if (event.type === 'prediction' && counts.prediction) counts.prediction = { accepted: event.accepted, rejected: event.rejected };
      if (event.type !== 'token') continue;
      counts.completionTokens++;
      const out: GenerationEvent[] = [];
      let answer = event.text;
      if (thinking) {
        const split = thinking.push(event.text);
        counts.reasoningTokens! += split.reasoningTokens;
        if (split.reasoning) out.push({ type: 'reasoning', text: split.reasoning });
        answer = split.answer;
      }
      const matched = thinking ? emit(answerPieces(answer), out) : emit(parser ? parser.push(answer) : [{ type: 'text', text: answer }], out);
      const capped = matched === null && counts.completionTokens >= request.maxTokens;
      // Stop the engine before yielding the finish: the consumer may not read past it.
      if (matched !== null || capped) await close();
      // A plain loop, not `yield*`: delegating to an iterable adds an await on resuming, and the
      // engine must be asked for its next token in the same turn the consumer asks (abort timing).
      for (const item of out) yield item;
      if (matched !== null) {
        yield finish('stop_sequence', matched);
        return;
      }
      if (capped) {
        for (const item of ending('length')) yield item;
        return;
      }
    }
    if (controller.signal.aborted) throw abortedError();
    await close();
    for (const item of ending(endReason, engineStop)) yield item;
  } finally {
    await close();
  }
}

/**
 * Finds stop sequences across token boundaries. Text that could still be the start of a stop
 * sequence is held back until it is known not to be one, so no part of a stop sequence leaks.
 */
export class StopMatcher {
  readonly #stops: readonly string[];
  #held = '';

  constructor(stops: readonly string[]) {
    this.#stops = stops.filter((s) => s.length > 0);
  }

  /** Whether `stop` is one of the stop sequences matched here. */
  has(stop: string): boolean {
    return this.#stops.includes(stop);
  }

  /** Whether text is held back (it could still become a stop sequence). */
  get holding(): boolean {
    return this.#held !== '';
  }

  push(piece: string): { text: string; matched: string | null } {
    if (this.#stops.length === 0) return { text: piece, matched: null };
    const buffer = this.#held + piece;
    let at = -1;
    let matched: string | null = null;
    for (const stop of this.#stops) {
      const i = buffer.indexOf(stop);
      if (i !== -1 && (at === -1 || i < at)) {
        at = i;
        matched = stop;
      }
    }
    if (matched !== null) {
      this.#held = '';
      return { text: buffer.slice(0, at), matched };
    }
    const keep = this.#longestPrefixSuffix(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return { text: buffer.slice(0, buffer.length - keep), matched: null };
  }

  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }

  /** Length of the longest suffix of `text` that is a proper prefix of some stop sequence. */
  #longestPrefixSuffix(text: string): number {
    let best = 0;
    for (const stop of this.#stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > best; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  }
}
