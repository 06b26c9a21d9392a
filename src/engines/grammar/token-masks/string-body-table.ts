/**
 * Every token classified, once per vocabulary, against the body of a JSON string (the rules of
 * `STRING_ESCAPES` in byte-matcher.ts: valid UTF-8, no control character, escapes only as
 * JSON.stringify writes them). From a body's clean state (between characters, no escape begun),
 * a token either stays inside the body, or closes it after some characters and goes on past the
 * closing quote, or cannot come at all. Inside most strings only the length is constrained, so
 * the mask there is this table's answer for the length left, and only the closing tokens' rests
 * are stepped through the matcher.
 *
 * Lengths are in characters (code points; an escape is one), and a character a token leaves
 * unfinished counts: every prefix of a character or escape the table lets in can be finished, so
 * the token takes that character's room.
 * @module
 */
import type { CharAutomaton } from '../../../core/json-schema/char-automaton.ts';
import { buildTrie, TEXT, type TokenBytes, type TokenTrie } from './token-trie.ts';

/** The token stays inside the body. */
export const INSIDE = 0;
/** The token ends the body with an unescaped quote (and may go on past it). */
export const CLOSES = 1;
/** The token cannot come from a body's clean state. */
export const INVALID = 2;

/** Body states: between characters. */
export const CLEAN = 0;
/** Inside a UTF-8 character: how many continuation bytes remain, and the range the next must be in. */
const UTF8: readonly (readonly [number, number, number])[] = [
  [0, 0, 0],
  [1, 0x80, 0xbf],
  [2, 0x80, 0xbf],
  [2, 0xa0, 0xbf], // after E0: no overlong forms
  [2, 0x80, 0x9f], // after ED: no surrogates
  [3, 0x80, 0xbf],
  [3, 0x90, 0xbf], // after F0
  [3, 0x80, 0x8f], // after F4: nothing above U+10FFFF
];
const TAIL_1 = 1;
const TAIL_2 = 2;
const TAIL_3 = 5;
/** After `\`, `\u`, `\u0`, `\u00`, `\u000`, `\u001`. */
const ESCAPE = 8;
const U = 9;
const U0 = 10;
const U00 = 11;
const U000 = 12;
const U001 = 13;
/** What `step` returns for the closing quote. */
export const CLOSE = -2;

const SHORT_ESCAPES = new Set([0x22, 0x5c, 0x62, 0x66, 0x6e, 0x72, 0x74]); // " \ b f n r t
const isHex = (byte: number) => (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66);

/**
 * The body state after one more byte: -1 where the byte is not allowed, CLOSE for the closing
 * quote. A new character (or escape) begins exactly where this is called from CLEAN with a byte
 * that does not close.
 */
export function stepBody(state: number, byte: number): number {
  if (state === CLEAN) {
    if (byte === 0x22) return CLOSE;
    if (byte === 0x5c) return ESCAPE;
    if (byte < 0x20) return -1;
    if (byte < 0x80) return CLEAN;
    if (byte >= 0xc2 && byte <= 0xdf) return TAIL_1;
    if (byte === 0xe0) return 3;
    if (byte === 0xed) return 4;
    if (byte >= 0xe1 && byte <= 0xef) return TAIL_2;
    if (byte === 0xf0) return 6;
    if (byte === 0xf4) return 7;
    if (byte >= 0xf1 && byte <= 0xf3) return TAIL_3;
    return -1;
  }
  if (state < ESCAPE) {
    const [need, lo, hi] = UTF8[state]!;
    if (byte < lo || byte > hi) return -1;
    return need === 1 ? CLEAN : need === 2 ? TAIL_1 : TAIL_2;
  }
  switch (state) {
    case ESCAPE:
      return SHORT_ESCAPES.has(byte) ? CLEAN : byte === 0x75 ? U : -1;
    case U:
      return byte === 0x30 ? U0 : -1;
    case U0:
      return byte === 0x30 ? U00 : -1;
    case U00:
      return byte === 0x30 ? U000 : byte === 0x31 ? U001 : -1;
    case U000:
      // \u0000..\u001f but those written short: \b (08), \t (09), \n (0a), \f (0c), \r (0d).
      return (byte >= 0x30 && byte <= 0x37) || byte === 0x62 || byte === 0x65 || byte === 0x66 ? CLEAN : -1;
    default:
      return isHex(byte) ? CLEAN : -1;
  }
}

export interface StringBodyTable {
  /** INSIDE, CLOSES or INVALID, by token id (stop and never tokens are INVALID). */
  readonly kind: Uint8Array;
  /** Characters the token adds to the body (before its quote, for a closing token); meaningless where INVALID. */
  readonly count: Uint32Array;
  /** An inside token: the body state it leaves (CLEAN, or inside a character or escape). */
  readonly after: Uint8Array;
  /** A closing token: where its bytes past the quote begin, as an offset into `TokenBytes.data`. */
  readonly restStart: Uint32Array;
  /** The inside tokens with at most `max` characters, as a mask (do not modify it). */
  inside(max: number): Int32Array;
  /** The rests of the closing tokens, as a trie (their ids at the nodes their rests end at). */
  readonly rests: TokenTrie;
  /** The fewest and most characters of the closing tokens in each rest node's subtree. */
  readonly restMinCount: Uint32Array;
  readonly restMaxCount: Uint32Array;
}

/** Bounds whose masks of inside tokens are made with the table (about 19 KB each for 152K tokens). */
const SHORT = 16;
/**
 * Masks of inside tokens kept for larger bounds. Bounds at or past the longest inside token's
 * length share one mask, so a real vocabulary has about this many more at most (Qwen3's longest
 * is 128 characters).
 */
const INSIDE_MASKS = 128;

export function buildStringBodyTable(bytes: TokenBytes, words: number): StringBodyTable {
  const tokens = bytes.kind.length;
  const kind = new Uint8Array(tokens).fill(INVALID);
  const count = new Uint32Array(tokens);
  const after = new Uint8Array(tokens);
  const restStart = new Uint32Array(tokens);
  const all = new Int32Array(words);
  const closing: number[] = [];
  let longest = 0;
  for (let id = 0; id < tokens; id++) {
    if (bytes.kind[id] !== TEXT) continue;
    const from = bytes.offset[id]!;
    const to = bytes.offset[id + 1]!;
    let state = CLEAN;
    let chars = 0;
    let at = from;
    for (; at < to; at++) {
      const byte = bytes.data[at]!;
      const next = stepBody(state, byte);
      if (next === CLOSE) break;
      if (state === CLEAN) chars++;
      state = next;
      if (state < 0) break;
    }
    count[id] = chars;
    if (state < 0) continue;
    if (at < to) {
      kind[id] = CLOSES;
      restStart[id] = at + 1;
      closing.push(id);
    } else {
      kind[id] = INSIDE;
      after[id] = state;
      all[id >> 5]! |= 1 << (id & 31);
      if (chars > longest) longest = chars;
    }
  }

  // Most tokens are short: the masks for the bounds below SHORT are made now (a bit set per
  // token, then each bound's mask is the one below it and the tokens of its length); above, few
  // tokens are longer than the bound, so its mask is all the inside tokens less those.
  const byLength: number[][] = Array.from({ length: longest + 1 }, () => []);
  for (let id = 0; id < tokens; id++) if (kind[id] === INSIDE) byLength[count[id]!]!.push(id);
  const short = Array.from({ length: Math.min(SHORT, longest) }, () => new Int32Array(words));
  short.forEach((mask, length) => {
    if (length > 0) mask.set(short[length - 1]!);
    for (const id of byLength[length]!) mask[id >> 5]! |= 1 << (id & 31);
  });
  const masks = new Map<number, Int32Array>();
  const inside = (max: number): Int32Array => {
    if (max >= longest) return all;
    const bound = Math.max(0, Math.floor(max));
    if (bound < short.length) return short[bound]!;
    const hit = masks.get(bound);
    if (hit) {
      // Most recently used last, so the first key is the one to drop.
      masks.delete(bound);
      masks.set(bound, hit);
      return hit;
    }
    const mask = all.slice();
    for (let length = bound + 1; length <= longest; length++) for (const id of byLength[length]!) mask[id >> 5]! &= ~(1 << (id & 31));
    if (masks.size >= INSIDE_MASKS) masks.delete(masks.keys().next().value!);
    masks.set(bound, mask);
    return mask;
  };

  const rests = buildTrie(closing, bytes.data, restStart, bytes.offset.subarray(1));
  const restMinCount = new Uint32Array(rests.nodeCount).fill(0xffffffff);
  const restMaxCount = new Uint32Array(rests.nodeCount);
  // A node's subtree holds one run of the ids, from its own first to its subtree's end.
  for (let node = 0; node < rests.nodeCount; node++) {
    const last = rests.end[node]! < rests.nodeCount ? rests.tokenStart[rests.end[node]!]! : rests.tokenIds.length;
    for (let k = rests.tokenStart[node]!; k < last; k++) {
      const chars = count[rests.tokenIds[k]!]!;
      if (chars < restMinCount[node]!) restMinCount[node] = chars;
      if (chars > restMaxCount[node]!) restMaxCount[node] = chars;
    }
  }
  return { kind, count, after, restStart, inside, rests, restMinCount, restMaxCount };
}

/** The most automata a body read through automata may have for the masks to read it (more: the matcher steps it). */
export const MAX_AUTOMATA = 4;

const LEAD_BITS = [0, 0x1f, 0x0f, 0x07];
const SHORT_CHARACTER: Readonly<Record<number, number>> = { 0x22: 0x22, 0x5c: 0x5c, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
const LEAST_OF = [0, 0x80, 0x800, 0x10000];

/**
 * One byte of a body read through automata (byte-matcher.ts's `PatternBody`), where `stepBody`
 * took it from `from` to `to` (neither the closing quote nor refused) and the characters it makes
 * `n` (the one it begins or goes on with included, already checked against `max`): whether the
 * automata allow it. Their states are read at `states[at + i]` and written at `states[into + i]`;
 * `point` is the character's code point so far (inside a UTF-8 character). Returns the code
 * point so far after the byte (0 between characters or in an escape), or -1 where it is refused.
 */
export function stepPattern(automata: readonly CharAutomaton[], from: number, to: number, byte: number, n: number, min: number, max: number, states: Int32Array, at: number, into: number, point: number): number {
  if (from === CLEAN) {
    if (byte < 0x80 && byte !== 0x5c) return character(automata, byte, n, min, max, states, at, into);
    if (byte === 0x5c) return someIn(automata, states, at, 0x00, 0x1f) || someIn(automata, states, at, 0x22, 0x22) || someIn(automata, states, at, 0x5c, 0x5c) ? copy(automata, states, at, into) : -1;
    const need = UTF8[to]![0];
    const bits = byte & LEAD_BITS[need]!;
    if (!someCharacter(automata, states, at, bits, need)) return -1;
    copy(automata, states, at, into);
    return bits;
  }
  if (from < ESCAPE) {
    const bits = (point << 6) | (byte & 0x3f);
    if (to === CLEAN) return character(automata, bits, n, min, max, states, at, into);
    if (!someCharacter(automata, states, at, bits, UTF8[to]![0])) return -1;
    copy(automata, states, at, into);
    return bits;
  }
  switch (from) {
    case ESCAPE:
      if (to === U) return someIn(automata, states, at, 0x00, 0x1f) ? copy(automata, states, at, into) : -1;
      return character(automata, SHORT_CHARACTER[byte]!, n, min, max, states, at, into);
    case U:
    case U0:
      return copy(automata, states, at, into);
    case U00:
      return (byte === 0x30 ? someIn(automata, states, at, 0x00, 0x0f) : someIn(automata, states, at, 0x10, 0x1f)) ? copy(automata, states, at, into) : -1;
    default:
      return character(automata, (from === U001 ? 16 : 0) + (byte <= 0x39 ? byte - 0x30 : byte - 0x57), n, min, max, states, at, into);
  }
}

function copy(automata: readonly CharAutomaton[], states: Int32Array, at: number, into: number): number {
  for (let i = 0; i < automata.length; i++) states[into + i] = states[at + i]!;
  return 0;
}

/** A whole character, the n-th: every automaton goes on, into a state that can still finish in the room left. */
function character(automata: readonly CharAutomaton[], codePoint: number, n: number, min: number, max: number, states: Int32Array, at: number, into: number): number {
  const least = Math.max(0, min - n);
  for (let i = 0; i < automata.length; i++) {
    const moved = automata[i]!.next(states[at + i]!, codePoint);
    if (moved < 0 || !automata[i]!.canFinish(moved, least, max - n)) return -1;
    states[into + i] = moved;
  }
  return 0;
}

function someIn(automata: readonly CharAutomaton[], states: Int32Array, at: number, lo: number, hi: number): boolean {
  for (let i = 0; i < automata.length; i++) if (!automata[i]!.takesSome(states[at + i]!, lo, hi)) return false;
  return true;
}

/** Whether a character begun with these bits, `need` bytes of 6 bits still to come, can be one the automata take (no overlong forms). */
function someCharacter(automata: readonly CharAutomaton[], states: Int32Array, at: number, bits: number, need: number): boolean {
  return someIn(automata, states, at, Math.max(bits << (6 * need), LEAST_OF[need]!), (bits << (6 * need)) | ((1 << (6 * need)) - 1));
}

/** Whether every automaton accepts where it stands (the closing quote may come). */
export function acceptsAll(automata: readonly CharAutomaton[], states: Int32Array, at: number): boolean {
  for (let i = 0; i < automata.length; i++) if (!automata[i]!.accepts(states[at + i]!)) return false;
  return true;
}
