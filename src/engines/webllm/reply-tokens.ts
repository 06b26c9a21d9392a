/**
 * web-llm's content deltas as our token events, for a reply that web-llm may stop at the request's
 * stop strings itself (so that it ends naturally and keeps its conversation, see
 * docs/decisions/webllm-keeps-its-conversation.md).
 *
 * Each decode step streams one delta, so each delta is one token, with three corrections:
 * - the step that samples the stop token streams an empty delta, which is not a token of the answer;
 * - a step whose text ends in half a UTF-8 character streams nothing (its token is added back, as
 *   '', from the final usage);
 * - web-llm checks its stop strings on the decoded text after each step and cuts its message just
 *   before the one it finds, so the step that completes a stop string streams at most the text
 *   before it, and the text of earlier steps may already hold its first characters. So text that
 *   could begin a stop string is held back here, as the gateway holds it back, and the token it came
 *   with waits until it is known whether the reply goes on: at the end, the rest of the last token's
 *   text (read from web-llm's pipeline) says where the stop string is, by the gateway's own rule
 *   (the earliest one), and none of it is sent.
 * @module
 */

import { StopMatcher } from '../../core/generation.ts';

/** What web-llm's pipeline holds of the reply it just finished (see pipeline-internals.ts). */
export interface FinishedReply {
  /** The text of every token it kept in its output, the one that completed a stop string included. */
  readonly decoded: string;
  /** The reply as it recorded it in its conversation: cut before the stop string it found, if any. */
  readonly message: string;
}

export interface ReplyEnd {
  /** The last tokens' texts, to send before the end. */
  readonly texts: string[];
  /** One of the request's stop strings, when web-llm stopped at it. */
  readonly stopSequence?: string;
  /** The reply as web-llm recorded it in its conversation. */
  readonly message: string;
  /** Generated tokens that web-llm fed back into its KV cache: every one but the last sampled. */
  readonly kept: number;
}

export class ReplyTokens {
  /** Token events given out. */
  emitted = 0;
  /** The deltas as web-llm streamed them. */
  #streamed = '';
  /** The text given out with those tokens. */
  #sent = '';
  readonly #stopList: readonly string[];
  readonly #stops: StopMatcher;
  /** Tokens not given out yet, in order: the last may be the stop token's step, or carry held-back text. */
  #pending: string[] = [];
  /** Whether the last pending token's delta was empty (the stop token's step streams ''). */
  #lastEmpty = false;
  /** A stop string found in what web-llm streamed (several in its last token): nothing more is sent. */
  #matched: string | undefined;

  constructor(stops: readonly string[]) {
    this.#stopList = stops;
    this.#stops = new StopMatcher(stops);
  }

  /** One step's delta: the tokens now known to be answer tokens, each with its text. */
  push(delta: string): string[] {
    this.#streamed += delta;
    let text = '';
    if (this.#matched === undefined) {
      const { text: released, matched } = this.#stops.push(delta);
      text = released;
      if (matched !== null) this.#matched = matched;
    }
    this.#pending.push(text);
    this.#lastEmpty = delta === '';
    // A token waits while its delta is empty or text is held back: the reply may end with it.
    if (this.#lastEmpty || this.#stops.holding || this.#matched !== undefined) return [];
    return this.#release(this.#pending.length);
  }

  /**
   * web-llm's reply is over. `reason`: its finish reason; `completionTokens`: its usage count;
   * `reply`: what its pipeline holds, where it can be read.
   *
   * web-llm's `completion_tokens` counts every sampled token, the stop token included (0.2.86); it
   * is used only to add steps that streamed no delta, never to take tokens away (older web-llm
   * versions reported one less than they streamed).
   */
  finish(reason: string | undefined, completionTokens: number | undefined, reply?: FinishedReply): ReplyEnd {
    // Cut at a stop string (its message shorter than its tokens' text): the last step was a token
    // of the reply, not the stop token.
    const cut = this.#matched !== undefined || (reply !== undefined && reply.decoded !== reply.message);
    // Every token's text, the part of the last one web-llm did not stream included.
    const full = reply !== undefined && reply.decoded.startsWith(this.#streamed) ? reply.decoded : this.#streamed;
    const given = this.#sent + this.#pending.join('');
    // The gateway's rule, on the whole text: the earliest stop string, before any that begins later.
    const found = new StopMatcher(this.#stopList).push(full);
    // One that begins after where web-llm cut its message is not where it stopped (a stop string
    // of its template came first).
    const matched = reply === undefined || found.text.length <= reply.message.length ? found.matched : null;
    const before = found.text;
    let answer: string;
    let stopSequence: string | undefined;
    if (matched !== null && reason === 'stop') {
      answer = before;
      stopSequence = matched;
    } else if (matched !== null) {
      // The stop string came with the token that reached max_tokens: web-llm says `length` (and
      // starts afresh next time anyway). Its text goes on whole: the gateway's own matcher cuts it.
      answer = full;
    } else if (cut) {
      // Cut at a stop string of web-llm's conversation template: its message is the answer.
      answer = reply!.message;
    } else {
      // What it streamed: not the decoded text, which may end in half a character (U+FFFD).
      answer = this.#streamed;
    }
    const rest = answer.startsWith(given) ? answer.slice(given.length) : '';
    // The stop token's step is not a token of the answer.
    if (reason === 'stop' && !cut && this.#lastEmpty) this.#pending.pop();
    if (this.#pending.length > 0) this.#pending[this.#pending.length - 1] += rest;
    else if (rest) this.#pending.push(rest);
    const texts = this.#release(this.#pending.length);
    const generated = completionTokens === undefined ? 0 : completionTokens - (reason === 'stop' && !cut ? 1 : 0);
    while (this.emitted < generated) {
      texts.push('');
      this.emitted++;
    }
    return {
      texts,
      ...(stopSequence !== undefined ? { stopSequence } : {}),
      message: reply?.message ?? this.#streamed,
      kept: this.emitted - (cut ? 1 : 0),
    };
  }

  #release(count: number): string[] {
    const out = this.#pending.splice(0, count);
    this.emitted += out.length;
    for (const text of out) this.#sent += text;
    return out;
  }
}
