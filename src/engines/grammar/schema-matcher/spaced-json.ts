/**
 * JSON with a space after each `,` and `:` between members and items, as Python's `json.dumps`
 * writes it (the chat templates' `tojson`, and so the tool calls a model is shown and writes):
 * `{"city": "Paris", "days": [1, 2]}`. The inner matcher reads compact JSON; this one wants the
 * space after each of those outside strings and hands the inner one every other byte, keeping
 * track of strings (a quote opens or closes one, a backslash escapes the next byte) to tell them.
 * @module
 */
import type { ByteMatcher, MatchState, PatternBody, StringBody } from '../byte-matcher.ts';

/** Where the bytes stand: outside strings, inside one, or right after a backslash in one. */
const OUTSIDE = 0;
const INSIDE = 1;
const ESCAPED = 2;

interface Spaced {
  readonly inner: MatchState;
  /** A `,` or `:` between values was just read: a space must come. */
  readonly space: boolean;
  readonly text: typeof OUTSIDE | typeof INSIDE | typeof ESCAPED;
}

export function spacedJson(inner: ByteMatcher): ByteMatcher {
  const start: Spaced = { inner: inner.start, space: false, text: OUTSIDE };
  return {
    start: start as MatchState,
    step(state, byte) {
      const at = state as Spaced;
      if (at.space) return byte === 0x20 ? ({ ...at, space: false } as MatchState) : undefined;
      const next = inner.step(at.inner, byte);
      if (next === undefined) return undefined;
      if (at.text === OUTSIDE) {
        if (byte === 0x22) return { inner: next, space: false, text: INSIDE } as MatchState;
        return { inner: next, space: byte === 0x2c || byte === 0x3a, text: OUTSIDE } as MatchState;
      }
      if (at.text === ESCAPED) return { inner: next, space: false, text: INSIDE } as MatchState;
      return { inner: next, space: false, text: byte === 0x5c ? ESCAPED : byte === 0x22 ? OUTSIDE : INSIDE } as MatchState;
    },
    canEnd: (state) => !(state as Spaced).space && inner.canEnd((state as Spaced).inner),
    key: (state) => `${(state as Spaced).space ? '_' : ''}${(state as Spaced).text}${inner.key((state as Spaced).inner)}`,
    stringBody(state) {
      const at = state as Spaced;
      if (at.space || at.text !== INSIDE) return undefined;
      const body = inner.stringBody?.(at.inner);
      if (!body) return undefined;
      const spaced: StringBody = { min: body.min, max: body.max, ...(body.close ? { close: { inner: body.close, space: false, text: OUTSIDE } as MatchState } : {}) };
      return spaced;
    },
    patternBody(state) {
      const at = state as Spaced;
      if (at.space || at.text !== INSIDE) return undefined;
      const body = inner.patternBody?.(at.inner);
      if (!body) return undefined;
      const spaced: PatternBody = { ...body, close: { inner: body.close, space: false, text: OUTSIDE } as MatchState };
      return spaced;
    },
  };
}
