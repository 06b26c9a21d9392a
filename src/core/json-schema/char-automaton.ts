/**
 * What a string's characters must match (a JSON Schema `pattern`, a `format`), as an automaton over
 * code points whose states are small integers, built lazily (a DFA state is made the first time it
 * is reached), so a pattern costs nothing for the states an output never visits.
 * @module
 */

export interface CharAutomaton {
  /** The state before the first character. */
  readonly start: number;
  /** The state after one more code point, or -1 where no match can follow (a dead state is never returned). */
  next(state: number, codePoint: number): number;
  /** Whether the characters read so far match (the string may close here). */
  accepts(state: number): boolean;
  /**
   * Whether some continuation of `more` code points, `min <= more <= max` (max may be Infinity),
   * ends in an accepting state: how a length bound and a pattern are checked together without a
   * dead end.
   */
  canFinish(state: number, min: number, max: number): boolean;
  /**
   * Whether some code point from `lo` to `hi` leads on from the state (into a state that can still
   * match): asked while a character of several bytes is half read, so that no byte starts a
   * character the automaton could not take.
   */
  takesSome(state: number, lo: number, hi: number): boolean;
  /** Whether every continuation from the state matches (a search that has found its match): the automaton asks nothing more. */
  matchesAll(state: number): boolean;
}
