/**
 * The contract between what an output must be (a JSON schema, tool calls) and the token masks
 * computed from it: a matcher over the output's bytes whose states are immutable values, so a
 * mask can walk a token trie from one state and keep the state it started from.
 *
 * A matcher never leads into a dead end: every state `step` returns can still be completed into
 * an output the constraint accepts. So a token is allowed exactly when each of its bytes steps.
 * @module
 */

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
