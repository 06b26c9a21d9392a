/**
 * The contract between what an output must be (a JSON schema, tool calls) and the token masks
 * computed from it: a matcher over the output's bytes whose states are immutable values, so a
 * mask can walk a token trie from one state and keep the state it started from.
 *
 * A matcher never leads into a dead end: every state `step` returns can still be completed into
 * an output the constraint accepts. So a token is allowed exactly when each of its bytes steps.
 * @module
 */

import type { CharAutomaton } from '../../core/json-schema/char-automaton.ts';

/** A matcher's state: opaque, immutable. Two equal states may be different objects; `key` tells. */
export type MatchState = { readonly __matchState?: never };

export interface ByteMatcher {
  readonly start: MatchState;
  /** The state after one more byte, or undefined where that byte is not allowed. */
  step(state: MatchState, byte: number): MatchState | undefined;
  /** Whether the output may end here (where a stop token is allowed). */
  canEnd(state: MatchState): boolean;
  /**
   * A key equal for states that allow the same continuations (a cache of masks is keyed by it).
   * Cheap enough to call once a token.
   */
  key(state: MatchState): string;
  /**
   * Where the state is inside a JSON string's body (after its opening quote, between characters,
   * no escape begun) and nothing but the body's length in characters is constrained until its
   * closing quote: the bounds that are left and the state after the closing quote. The masks use
   * it to take the tokens that stay inside the body from a table built once per vocabulary.
   * Undefined anywhere else (then every byte is stepped).
   */
  stringBody?(state: MatchState): StringBody | undefined;
  /**
   * Where the state is inside a JSON string's body (as for `stringBody`) whose characters
   * automata constrain besides the length (a pattern, a format), and the state after the closing
   * quote does not depend on what the body spells: the automata, their states, the bounds and the
   * state after the quote. The masks then read the body's bytes themselves, stepping the automata
   * by code point, exactly as the matcher's own steps would (see `PatternBody`). Undefined where
   * `stringBody` answers, and anywhere else.
   */
  patternBody?(state: MatchState): PatternBody | undefined;
  /**
   * Where a state allows the same continuations in every matcher that says so (free text, whatever
   * tools surround it): a key that holds across matchers, so its mask is made once per vocabulary,
   * not once per matcher. Undefined elsewhere.
   */
  sharedKey?(state: MatchState): string | undefined;
  /**
   * Where a state is a choice between independent parts (a reply or a call; a thinking block or
   * the answer): those parts, each a state of its own, whose masks together make the state's. Each
   * part's mask is then made (and kept) alone, so a part that is the same in many states (free
   * text) is made once. Undefined where the state is one part.
   */
  split?(state: MatchState): readonly MatchState[] | undefined;
}

export interface StringBody {
  /** Characters still needed before the closing quote may come (0 when it may come now). */
  readonly min: number;
  /** Characters still allowed before the closing quote (Infinity for no bound). */
  readonly max: number;
  /**
   * The state after the closing quote (the bounds met); undefined where it depends on what the
   * body spells (a member's name, which says whose value follows): then each token that closes the
   * body is stepped from the state itself.
   */
  readonly close?: MatchState;
}

/**
 * A string body read through automata. Its bytes are read as by `STRING_ESCAPES`, and a byte is
 * taken exactly where, with n the characters before it (the one it begins or goes on with
 * included, from the body's state):
 * - a character completed (an ASCII byte, a multi-byte character's last byte, an escape's last
 *   byte, counting as the character it stands for): n <= max, and every automaton steps by its
 *   code point into a state that `canFinish` with max(0, min - n) to max - n more;
 * - a byte that begins or goes on with a character not yet complete: n <= max, and every
 *   automaton `takesSome` code point the character may still be (the escapes `\`, whose
 *   character is a quote, a backslash or a control character: some of those; after `\u`,
 *   U+0000..U+001F; after `\u000`, U+0000..U+000F; after `\u001`, U+0010..U+001F);
 * - the closing quote: n >= min and every automaton `accepts`; `close` is the state after it.
 */
export interface PatternBody extends StringBody {
  readonly close: MatchState;
  readonly automata: readonly CharAutomaton[];
  /** Each automaton's state, in order. */
  readonly states: readonly number[];
}

/**
 * Inside a JSON string's body, what the bytes may be, the same for every string: valid UTF-8, no
 * control character (U+0000..U+001F), and escapes written only as JSON.stringify writes them
 * (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00XX`, lowercase hex, for the other control
 * characters; no escaped surrogate), so that each string has one spelling: a name compared by its
 * bytes is compared by its value. Lengths count code points, as JSON Schema's do: a character
 * (however many bytes) or an escape counts one.
 */
export const STRING_ESCAPES = { '"': 0x22, '\\': 0x5c, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 } as const;

const encoder = new TextEncoder();

/** Whether a matcher takes a whole output (every byte steps, and it may end there). */
export function acceptsText(matcher: ByteMatcher, text: string): boolean {
  let state: MatchState | undefined = matcher.start;
  for (const byte of encoder.encode(text)) {
    state = matcher.step(state, byte);
    if (!state) return false;
  }
  return matcher.canEnd(state);
}
