/**
 * Token masks computed from a byte matcher, lazily, state by state: nothing is compiled against the
 * vocabulary per schema. A mask walks the vocabulary's token trie from the matcher's state, one
 * step per trie edge, dropping the subtree under every byte the matcher refuses; inside a JSON
 * string whose body is constrained by length alone, it takes the tokens that stay in the body from
 * a table built once per vocabulary and steps only the rests of the tokens that close the string.
 *
 * Masks are kept by matcher and state key, so the states a schema comes back to (each element of
 * an array, each object's same property) cost a lookup.
 * @module
 */
import type { CharAutomaton } from '../../../core/json-schema/char-automaton.ts';
import type { ByteMatcher, MatchState, PatternBody, StringBody } from '../byte-matcher.ts';
import type { TokenConstraint, Vocabulary } from '../vocabulary.ts';
import { acceptsAll, buildStringBodyTable, CLEAN, CLOSE, CLOSES, MAX_AUTOMATA, stepBody, stepPattern, type StringBodyTable } from './string-body-table.ts';
import { forcedBytes, forcedTokens } from './forced-tokens.ts';
import { buildVocabularyTrie, NEVER, STOP, type TokenBytes, type TokenTrie } from './token-trie.ts';

export interface TokenMasks {
  /** Words of a mask (the logits' length over 32, rounded up). */
  readonly words: number;
  /**
   * The tokens allowed from `state`, as a bitmask (bit i of word i>>5): those whose bytes all step,
   * stop tokens where the output may end, never a special token or an id past the vocabulary.
   * Written into `out` (of `words` words) when given; it is cleared first.
   */
  mask(matcher: ByteMatcher, state: MatchState, out?: Int32Array): Int32Array;
  /**
   * One request's constraint over `matcher`, from its start. Its masks are shared with every
   * constraint over the same matcher in a state of the same key: read them, never write them.
   */
  constraint(matcher: ByteMatcher): TokenConstraint;
  /** The bytes that must come next from `state` (while exactly one byte steps and the output may not end), at most FORCED_BYTES. */
  forced(matcher: ByteMatcher, state: MatchState): Uint8Array;
  /** Tokens that spell a prefix of those bytes, to append without sampling (forced-tokens.ts). */
  forcedTokens(matcher: ByteMatcher, state: MatchState): readonly number[];
}

/** Masks kept, by matcher and state key: about 19 KB each for a 152K vocabulary, 10 MB in all. */
export const MASKS_KEPT = 512;
/**
 * Masks kept for bodies read through automata, by automata, states and bounds (with the few
 * closing tokens each allows, as ids): about 19 KB each for a 152K vocabulary, 5 MB in all.
 */
const BODY_MASKS_KEPT = 256;

export function createTokenMasks(vocabulary: Vocabulary): TokenMasks {
  const words = Math.ceil(Math.max(vocabulary.size, vocabulary.tokens.length) / 32);
  const { trie, bytes } = buildVocabularyTrie(vocabulary);
  const table = buildStringBodyTable(bytes, words);
  const stops = vocabulary.stopTokenIds.filter((id) => id >= 0 && id < vocabulary.tokens.length);
  // One walk at a time (masks are computed synchronously): the stacks are reused.
  const walk = createWalk(Math.max(trie.depth, table.rests.depth) + 1);
  const counts: Counts = { count: table.count, minCount: table.restMinCount, maxCount: table.restMaxCount };
  // The trie's nodes with a token that closes a string body at or below them, for bodies whose
  // closing depends on what they spell: only those paths are walked.
  const closing = closingPaths(trie, table);
  const closingTokens = Uint32Array.from(Array.from(table.kind.keys()).filter((id) => table.kind[id] === CLOSES));

  const mask = (matcher: ByteMatcher, state: MatchState, out?: Int32Array): Int32Array => {
    const into = out ?? new Int32Array(words);
    into.fill(0);
    const parts = matcher.split?.(state);
    if (parts) {
      // A token is allowed from a choice exactly where it is allowed from one of its parts.
      for (const part of parts) {
        const partMask = keptMask(matcher, part);
        for (let w = 0; w < words; w++) into[w]! |= partMask[w]!;
      }
      return into;
    }
    const body = matcher.stringBody?.(state);
    const pattern = body ? undefined : readable(matcher.patternBody?.(state));
    if (body) maskInBody(body, matcher, state, table, counts, walk, into, closing, trie);
    else if (pattern) maskInPattern(pattern, matcher, into);
    else walk(trie, matcher, state, into, 0, Infinity, undefined);
    if (matcher.canEnd(state)) for (const id of stops) into[id >> 5]! |= 1 << (id & 31);
    return into;
  };

  // Inside a body read through automata, what the body's own characters allow depends only on the
  // automata, their states and the bounds: kept by those (a format's automaton, and a pattern's,
  // are shared by every schema that spells it), apart from the closing tokens' rests, which are
  // walked from the state after the quote each time.
  const automatonIds = new WeakMap<CharAutomaton, number>();
  let automatonCount = 0;
  const bodyMasks = new Map<string, BodyMasks>();
  const rests = new Int32Array(words);
  const maskInPattern = (body: PatternBody, matcher: ByteMatcher, into: Int32Array): void => {
    let key = '';
    for (const automaton of body.automata) {
      let id = automatonIds.get(automaton);
      if (id === undefined) automatonIds.set(automaton, (id = automatonCount++));
      key += `${id},`;
    }
    key += `${body.states.join(',')} ${body.min} ${body.max}`;
    let kept = bodyMasks.get(key);
    if (kept) {
      bodyMasks.delete(key);
      bodyMasks.set(key, kept);
    } else {
      const inside = new Int32Array(words);
      rests.fill(0);
      walk(trie, matcher, body.close, inside, 0, Infinity, undefined, body, rests);
      kept = { inside, closing: closingTokens.filter((id) => (rests[id >> 5]! >>> (id & 31)) & 1) };
      if (bodyMasks.size >= BODY_MASKS_KEPT) bodyMasks.delete(bodyMasks.keys().next().value!);
      bodyMasks.set(key, kept);
    }
    into.set(kept.inside);
    rests.fill(0);
    walk(table.rests, matcher, body.close, rests, 0, Infinity, undefined);
    for (const id of kept.closing) if ((rests[id >> 5]! >>> (id & 31)) & 1) into[id >> 5]! |= 1 << (id & 31);
  };

  // One LRU for all matchers, so the memory is bounded however many schemas are cached elsewhere
  // (a matcher's entries go as others are made); a matcher is known by a number of its own.
  const matcherIds = new WeakMap<ByteMatcher, number>();
  let matchers = 0;
  const keyOf = (matcher: ByteMatcher, state: MatchState): string => {
    const shared = matcher.sharedKey?.(state);
    if (shared !== undefined) return `* ${shared}`;
    let id = matcherIds.get(matcher);
    if (id === undefined) matcherIds.set(matcher, (id = matchers++));
    return `${id} ${matcher.key(state)}`;
  };
  const kept = new Map<string, Int32Array>();
  const keptMask = (matcher: ByteMatcher, state: MatchState): Int32Array => remembered(kept, keyOf(matcher, state), () => mask(matcher, state));
  // Forced tokens by the same keys: finding them steps every byte at each forced one.
  const keptForcedTokens = new Map<string, readonly number[]>();
  const keptForced = (matcher: ByteMatcher, state: MatchState): readonly number[] =>
    remembered(keptForcedTokens, keyOf(matcher, state), () => forcedTokens(trie, matcher, state));

  return {
    words,
    mask,
    constraint: (matcher) => track(matcher, bytes, keptMask, keptForced),
    forced: (matcher, state) => forcedBytes(matcher, state).bytes,
    forcedTokens: (matcher, state) => forcedTokens(trie, matcher, state),
  };
}

/** The value kept under `key`, made and kept if there is none; least recently used first out. */
function remembered<T>(kept: Map<string, T>, key: string, make: () => T): T {
  const hit = kept.get(key);
  if (hit !== undefined) {
    // Most recently used last, so the first key is the one to drop.
    kept.delete(key);
    kept.set(key, hit);
    return hit;
  }
  const made = make();
  if (kept.size >= MASKS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, made);
  return made;
}

/**
 * Walks a trie from a state and sets the bits of the tokens whose bytes all step. With `counts`,
 * only tokens with between `min` and `max` characters count, and subtrees with none are skipped
 * (the closing tokens' rests, whose counts were taken before their quote).
 *
 * Where a step enters a string body the matcher says is constrained by length alone, the walk
 * reads the body's bytes itself (`stepBody`, integers, no matcher state made per byte) and goes
 * back to the matcher at the closing quote: a token that opens a string and goes on with text,
 * or a subtree under `"`, costs integer steps. A body whose characters automata constrain (a
 * pattern, a format) is read the same way, the automata stepped by code point (`stepPattern`,
 * their states small integers); the walk may start inside one (`inBody`, the state's own), and
 * then, given `closing`, stop at its closing quote, setting there every token through the quote.
 * Given `only`, the walk keeps to the nodes it marks.
 */
type Walk = (trie: TokenTrie, matcher: ByteMatcher, from: MatchState, into: Int32Array, min: number, max: number, counts: Counts | undefined, inBody?: PatternBody, closing?: Int32Array, only?: Uint8Array) => void;

/** Within a body read through automata: the tokens that stay inside it (a mask), and the ids of those that may close it (whatever follows the quote). */
interface BodyMasks {
  readonly inside: Int32Array;
  readonly closing: Uint32Array;
}

interface Counts {
  readonly count: Uint32Array;
  readonly minCount: Uint32Array;
  readonly maxCount: Uint32Array;
}

function createWalk(depth: number): Walk {
  // Per level of the path: the matcher's state, or, inside a string body, the body's bounds and
  // where the body stands (its state of stepBody and the characters begun; under automata, their
  // states, MAX_AUTOMATA a level, and the code point begun).
  const states: (MatchState | undefined)[] = new Array(depth + 1);
  const bodies: (Body | undefined)[] = new Array(depth + 1);
  const bodyStates = new Int32Array(depth + 1);
  const chars = new Float64Array(depth + 1);
  const points = new Int32Array(depth + 1);
  const automatonStates = new Int32Array((depth + 1) * MAX_AUTOMATA);
  const ends = new Uint32Array(depth + 1);
  return (trie, matcher, from, into, min, max, counts, inBody, closing, only) => {
    const { byte, end, tokenStart, tokenIds, nodeCount } = trie;
    // The root's own tokens (the empty rest of a token that ends with the quote) need no step.
    setTokens(tokenStart, tokenIds, 0, into, min, max, counts);
    let top = 0;
    states[0] = from;
    bodies[0] = inBody;
    bodyStates[0] = CLEAN;
    chars[0] = 0;
    if (inBody) automatonStates.set(inBody.states, 0);
    ends[0] = nodeCount;
    let node = 1;
    while (node < nodeCount) {
      while (node >= ends[top]!) top--;
      if ((counts && (counts.maxCount[node]! < min || counts.minCount[node]! > max)) || (only && !only[node])) {
        node = end[node]!;
        continue;
      }
      const body = bodies[top];
      let next: MatchState | undefined;
      let nextBody: Body | undefined;
      let bodyState = 0;
      let begun = 0;
      let point = 0;
      if (body === undefined) {
        next = matcher.step(states[top]!, byte[node]!);
        nextBody = next && bodyOf(matcher, next);
      } else {
        const automata = body.automata;
        bodyState = stepBody(bodyStates[top]!, byte[node]!);
        if (bodyState === CLOSE) {
          if (chars[top]! >= body.min && (automata === undefined || acceptsAll(automata, automatonStates, top * MAX_AUTOMATA))) {
            if (closing) {
              setSubtree(tokenStart, tokenIds, node, end[node]!, closing);
              node = end[node]!;
              continue;
            }
            next = body.close!;
            nextBody = bodyOf(matcher, next);
          }
        } else if (bodyState >= 0) {
          begun = chars[top]! + (bodyStates[top] === CLEAN ? 1 : 0);
          if (begun <= body.max) {
            if (automata === undefined) nextBody = body;
            else {
              point = stepPattern(automata, bodyStates[top]!, bodyState, byte[node]!, begun, body.min, body.max, automatonStates, top * MAX_AUTOMATA, (top + 1) * MAX_AUTOMATA, points[top]!);
              if (point >= 0) nextBody = body;
            }
          }
        }
      }
      if (next === undefined && nextBody === undefined) {
        node = end[node]!;
        continue;
      }
      setTokens(tokenStart, tokenIds, node, into, min, max, counts);
      top++;
      ends[top] = end[node]!;
      states[top] = next;
      bodies[top] = nextBody;
      // Entering a body (from the matcher) starts it clean; inside one, it goes on.
      const entering = body === undefined || bodyState === CLOSE;
      bodyStates[top] = entering ? CLEAN : bodyState;
      chars[top] = entering ? 0 : begun;
      points[top] = point;
      if (entering && nextBody?.states) automatonStates.set(nextBody.states, top * MAX_AUTOMATA);
      node++;
    }
    // Let go of the states (they may hold a large matcher's structures).
    states.fill(undefined, 0, depth + 1);
    bodies.fill(undefined, 0, depth + 1);
  };
}

/** A body the walk reads itself: by its length alone, or through automata (then `states` too). */
type Body = StringBody & Partial<Pick<PatternBody, 'automata' | 'states'>>;

/** A body the walk can read itself: one whose closing quote leads to a known state. */
const withClose = (body: StringBody | undefined): StringBody | undefined => (body?.close ? body : undefined);

/** A body under automata the walk can read itself: not too many of them. */
const readable = (body: PatternBody | undefined): PatternBody | undefined => (body && body.automata.length <= MAX_AUTOMATA ? body : undefined);

/** The body a state the matcher stepped to is in, where the walk reads it itself. */
const bodyOf = (matcher: ByteMatcher, state: MatchState): Body | undefined => withClose(matcher.stringBody?.(state)) ?? readable(matcher.patternBody?.(state));

/** The tokens at a node and below it, one run of the ids (`below`: the node past its subtree). */
function setSubtree(tokenStart: Uint32Array, tokenIds: Uint32Array, node: number, below: number, into: Int32Array) {
  for (let k = tokenStart[node]!, last = tokenStart[below]!; k < last; k++) {
    const id = tokenIds[k]!;
    into[id >> 5]! |= 1 << (id & 31);
  }
}

function setTokens(tokenStart: Uint32Array, tokenIds: Uint32Array, node: number, into: Int32Array, min: number, max: number, counts: Counts | undefined) {
  for (let k = tokenStart[node]!, last = tokenStart[node + 1]!; k < last; k++) {
    const id = tokenIds[k]!;
    if (counts) {
      const chars = counts.count[id]!;
      if (chars < min || chars > max) continue;
    }
    into[id >> 5]! |= 1 << (id & 31);
  }
}

/** From a string body's clean state: the inside tokens that fit, and the closing ones whose rests step. */
function maskInBody(body: StringBody, matcher: ByteMatcher, state: MatchState, table: StringBodyTable, counts: Counts, walk: Walk, into: Int32Array, closing: Uint8Array, trie: TokenTrie) {
  into.set(table.inside(body.max));
  if (body.max < body.min) return;
  if (body.close) return walk(table.rests, matcher, body.close, into, body.min, body.max, counts);
  // What follows the quote depends on the body: the closing tokens, each stepped from the state
  // along the trie's paths to them, so that tokens with the same beginning share its steps.
  walk(trie, matcher, state, into, 0, Infinity, undefined, undefined, undefined, closing);
}

/** Which nodes of the trie have a token at or below them that closes a string body (table.kind CLOSES). */
function closingPaths(trie: TokenTrie, table: StringBodyTable): Uint8Array {
  const { tokenIds, tokenStart, end, nodeCount } = trie;
  // Closing tokens among the first k of the trie's order: a node's subtree is one run of it.
  const before = new Uint32Array(tokenIds.length + 1);
  for (let k = 0; k < tokenIds.length; k++) before[k + 1] = before[k]! + (table.kind[tokenIds[k]!] === CLOSES ? 1 : 0);
  const paths = new Uint8Array(nodeCount);
  for (let node = 0; node < nodeCount; node++) {
    const last = end[node]! < nodeCount ? tokenStart[end[node]!]! : tokenIds.length;
    paths[node] = before[last]! > before[tokenStart[node]!]! ? 1 : 0;
  }
  return paths;
}

/** One request's state and its mask, kept until the next token. */
function track(
  matcher: ByteMatcher,
  bytes: TokenBytes,
  maskOf: (matcher: ByteMatcher, state: MatchState) => Int32Array,
  forcedOf: (matcher: ByteMatcher, state: MatchState) => readonly number[],
): TokenConstraint {
  let state = matcher.start;
  let current: Int32Array | undefined;
  let terminated = false;
  return {
    // Computed on demand, synchronously: never undefined.
    mask: () => (current ??= maskOf(matcher, state)),
    ready: () => Promise.resolve(),
    forced: () => (terminated ? [] : forcedOf(matcher, state)),
    accept(token) {
      if (terminated || !Number.isInteger(token) || token < 0 || token >= bytes.kind.length) return false;
      const kind = bytes.kind[token];
      if (kind === STOP) {
        if (!matcher.canEnd(state)) return false;
        terminated = true;
        return true;
      }
      if (kind === NEVER) return false;
      let at: MatchState | undefined = state;
      for (let k = bytes.offset[token]!, last = bytes.offset[token + 1]!; k < last; k++) {
        at = matcher.step(at, bytes.data[k]!);
        if (at === undefined) return false;
      }
      state = at;
      current = undefined;
      return true;
    },
    get terminated() {
      return terminated;
    },
    dispose() {
      current = undefined;
    },
  };
}
