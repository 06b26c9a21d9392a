/**
 * A JSON Schema `pattern` as a {@link CharAutomaton}: the ECMA-262 regular expression (with the
 * `u` flag's code-point semantics, as validators compile it) searched for anywhere in the string,
 * unless `^` / `$` pin it.
 *
 * The source is parsed into a small tree, built into a Thompson NFA over code-point ranges, and
 * read as a DFA made lazily by subset construction: a DFA state is the set of NFA states live at
 * that point, interned by its key, and each transition is computed once and then cached (an array
 * for ASCII, a Map for the rest), so `next` is a lookup on the per-character path.
 *
 * `^` and `$` are assertions on position, not characters: `^` is passable only before the first
 * character, `$` only when no character follows (a state reached through `$` can only accept).
 *
 * NFA states from which no acceptance can be reached are dropped from every set, so a set that
 * becomes empty (and does not accept) is no state at all: `next` answers -1 instead of a dead end.
 *
 * What cannot be an automaton (lookaround, backreferences, word boundaries) or would be too big
 * (repetition counts past {@link MAX_REPEAT}, NFAs past {@link MAX_NFA_STATES}) is refused with
 * {@link UnsupportedPattern}, never approximated.
 * @module
 */

import type { CharAutomaton } from './char-automaton.ts';

/** Thrown for a pattern (or part of one) this module does not turn into an automaton. */
export class UnsupportedPattern extends Error {
  override readonly name = 'UnsupportedPattern';
}

/** The largest repetition bound expanded into NFA states: past it the pattern is refused. */
export const MAX_REPEAT = 1000;
/**
 * The longest any-character walk canFinish follows before its cycle shows. Only contrived
 * patterns (unions of cycles with coprime lengths) come near it; past it lengths are refused.
 * It is at least MAX_NFA_STATES, so the shortest accepting continuation (no longer than the
 * NFA has states) is always inside the walk: `canFinish(s, 0, Infinity)` stays exact.
 */
export const WALK_LIMIT = 20_000;
/** The most NFA states one pattern may expand to (repetitions of groups multiply). */
export const MAX_NFA_STATES = 20_000;

const MAX_CP = 0x10ffff;

// ---------------------------------------------------------------------------------------------
// Code-point sets: sorted, disjoint, non-adjacent inclusive ranges, flat [lo0, hi0, lo1, hi1, …].

type Ranges = number[];

function normalize(ranges: Ranges): Ranges {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (out.length > 0 && lo <= out[last]! + 1) out[last] = Math.max(out[last]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(ranges: Ranges): Ranges {
  const set = normalize(ranges);
  const out: Ranges = [];
  let from = 0;
  for (let i = 0; i < set.length; i += 2) {
    if (set[i]! > from) out.push(from, set[i]! - 1);
    from = set[i + 1]! + 1;
  }
  if (from <= MAX_CP) out.push(from, MAX_CP);
  return out;
}

const DIGIT: Ranges = [0x30, 0x39];
const WORD: Ranges = normalize([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
// ECMA-262 WhiteSpace and LineTerminator: what `\s` matches.
const SPACE: Ranges = normalize([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const DOT: Ranges = complement(LINE_TERMINATORS);
const ANY: Ranges = [0, MAX_CP];

// ---------------------------------------------------------------------------------------------
// The tree.

type Node =
  | { readonly kind: 'set'; readonly ranges: Ranges }
  | { readonly kind: 'seq'; readonly items: Node[] }
  | { readonly kind: 'alt'; readonly items: Node[] }
  | { readonly kind: 'repeat'; readonly item: Node; readonly min: number; readonly max: number }
  | { readonly kind: 'start' }
  | { readonly kind: 'end' };

const SYNTAX_CHARS = new Set('^$\\.*+?()[]{}|/'.split('').map((c) => c.codePointAt(0)!));

function isHex(cp: number | undefined): boolean {
  return cp !== undefined && ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x46) || (cp >= 0x61 && cp <= 0x66));
}

/** A recursive-descent reader of the `u`-mode syntax; the source is known to be valid `u` syntax. */
class Parser {
  private readonly cps: number[];
  private pos = 0;

  constructor(source: string) {
    this.cps = Array.from(source, (c) => c.codePointAt(0)!);
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.cps.length) throw new UnsupportedPattern(`unexpected "${this.char()}" at ${this.pos}`);
    return node;
  }

  private peek(offset = 0): number | undefined {
    return this.cps[this.pos + offset];
  }

  private char(offset = 0): string {
    const cp = this.peek(offset);
    return cp === undefined ? '' : String.fromCodePoint(cp);
  }

  private eat(c: string): boolean {
    if (this.char() === c) {
      this.pos++;
      return true;
    }
    return false;
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.eat('|')) items.push(this.sequence());
    return items.length === 1 ? items[0]! : { kind: 'alt', items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.pos < this.cps.length && this.char() !== '|' && this.char() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { kind: 'seq', items };
  }

  private quantified(atom: Node): Node {
    let min: number;
    let max: number;
    const c = this.char();
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 40)));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.pos += m[0].length - 1;
    } else return atom;
    this.pos++;
    this.eat('?'); // laziness changes which match is found, not whether one is
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) {
      throw new UnsupportedPattern(`repetition count above ${MAX_REPEAT} ({${min},${max === Infinity ? '' : max}}) is not supported`);
    }
    return this.quantified({ kind: 'repeat', item: atom, min, max });
  }

  private atom(): Node {
    const c = this.char();
    this.pos++;
    switch (c) {
      case '^':
        return { kind: 'start' };
      case '$':
        return { kind: 'end' };
      case '.':
        return { kind: 'set', ranges: DOT };
      case '[':
        return { kind: 'set', ranges: this.classBody() };
      case '(':
        return this.group();
      case '\\':
        return this.atomEscape();
      case '*':
      case '+':
      case '?':
      case '{':
        throw new UnsupportedPattern(`nothing to repeat at ${this.pos - 1}`);
      default: {
        const cp = this.cps[this.pos - 1]!;
        return { kind: 'set', ranges: [cp, cp] };
      }
    }
  }

  private group(): Node {
    if (this.eat('?')) {
      if (this.eat(':')) {
        // non-capturing
      } else if (this.char() === '=' || this.char() === '!') {
        throw new UnsupportedPattern(`lookahead (?${this.char()}…) is not supported`);
      } else if (this.char() === '<' && (this.char(1) === '=' || this.char(1) === '!')) {
        throw new UnsupportedPattern(`lookbehind (?<${this.char(1)}…) is not supported`);
      } else if (this.eat('<')) {
        while (this.pos < this.cps.length && this.char() !== '>') this.pos++;
        if (!this.eat('>')) throw new UnsupportedPattern('unterminated group name');
      } else {
        throw new UnsupportedPattern(`group (?${this.char()}…) is not supported`);
      }
    }
    const inner = this.alternation();
    if (!this.eat(')')) throw new UnsupportedPattern('unterminated group');
    return inner;
  }

  private atomEscape(): Node {
    const c = this.char();
    if (c === 'b' || c === 'B') throw new UnsupportedPattern(`word boundary \\${c} is not supported`);
    if (c === 'k' || (c >= '1' && c <= '9')) throw new UnsupportedPattern('backreferences are not supported');
    return { kind: 'set', ranges: this.escapeRanges(false) };
  }

  /** The code points of one escape (after the backslash), in a class or outside one. */
  private escapeRanges(inClass: boolean): Ranges {
    const c = this.char();
    this.pos++;
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'p':
      case 'P':
        throw new UnsupportedPattern(`Unicode property escape \\${c}{…} is not supported`);
      default: {
        const cp = this.escapeChar(c, inClass);
        return [cp, cp];
      }
    }
  }

  /** The one code point a character escape stands for (`c` is the character after the backslash, already consumed). */
  private escapeChar(c: string, inClass: boolean): number {
    switch (c) {
      case 't':
        return 0x09;
      case 'n':
        return 0x0a;
      case 'v':
        return 0x0b;
      case 'f':
        return 0x0c;
      case 'r':
        return 0x0d;
      case '0':
        return 0;
      case 'c': {
        const letter = this.peek();
        if (letter === undefined || !/[A-Za-z]/.test(String.fromCodePoint(letter))) throw new UnsupportedPattern('bad \\c escape');
        this.pos++;
        return letter % 32;
      }
      case 'x': {
        if (!isHex(this.peek()) || !isHex(this.peek(1))) throw new UnsupportedPattern('bad \\x escape');
        const value = parseInt(this.char() + this.char(1), 16);
        this.pos += 2;
        return value;
      }
      case 'u':
        return this.unicodeEscape();
      case 'b':
        if (inClass) return 0x08;
        break;
      case '-':
        if (inClass) return 0x2d;
        break;
      default: {
        const cp = c.codePointAt(0);
        if (cp !== undefined && SYNTAX_CHARS.has(cp)) return cp;
      }
    }
    throw new UnsupportedPattern(`escape \\${c} is not supported`);
  }

  private unicodeEscape(): number {
    if (this.eat('{')) {
      let digits = '';
      while (isHex(this.peek())) digits += this.char(), this.pos++;
      if (!this.eat('}') || digits === '') throw new UnsupportedPattern('bad \\u{…} escape');
      return parseInt(digits, 16);
    }
    const four = (): number | undefined => {
      for (let i = 0; i < 4; i++) if (!isHex(this.peek(i))) return undefined;
      const value = parseInt(String.fromCodePoint(...this.cps.slice(this.pos, this.pos + 4)), 16);
      this.pos += 4;
      return value;
    };
    const high = four();
    if (high === undefined) throw new UnsupportedPattern('bad \\u escape');
    // In `u` mode an escaped surrogate pair is one code point.
    if (high >= 0xd800 && high <= 0xdbff && this.char() === '\\' && this.char(1) === 'u') {
      const save = this.pos;
      this.pos += 2;
      const low = four();
      if (low !== undefined && low >= 0xdc00 && low <= 0xdfff) return 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
      this.pos = save;
    }
    return high;
  }

  private classBody(): Ranges {
    const negate = this.eat('^');
    const ranges: Ranges = [];
    while (this.char() !== ']') {
      if (this.pos >= this.cps.length) throw new UnsupportedPattern('unterminated character class');
      const from = this.classAtom();
      if (this.char() === '-' && this.char(1) !== ']' && this.peek(1) !== undefined) {
        this.pos++;
        const to = this.classAtom();
        if (from.length !== 2 || to.length !== 2 || from[0] !== from[1] || to[0] !== to[1]) throw new UnsupportedPattern('a class escape as a range end is not supported');
        if (from[0]! > to[0]!) throw new UnsupportedPattern('range out of order in character class');
        ranges.push(from[0]!, to[0]!);
      } else {
        ranges.push(...from);
      }
    }
    this.pos++;
    return negate ? complement(ranges) : normalize(ranges);
  }

  private classAtom(): Ranges {
    const cp = this.peek()!;
    this.pos++;
    if (cp === 0x5c) return this.escapeRanges(true);
    return [cp, cp];
  }
}

// ---------------------------------------------------------------------------------------------
// The NFA: states are indices; every state has epsilon edges, `^` edges, `$` edges and character
// edges (a range set and a target).

class Nfa {
  readonly eps: number[][] = [];
  readonly bol: number[][] = [];
  readonly eol: number[][] = [];
  readonly chars: { ranges: Ranges; to: number }[][] = [];

  add(): number {
    if (this.eps.length >= MAX_NFA_STATES) throw new UnsupportedPattern(`the pattern needs more than ${MAX_NFA_STATES} automaton states`);
    this.eps.push([]);
    this.bol.push([]);
    this.eol.push([]);
    this.chars.push([]);
    return this.eps.length - 1;
  }

  /** Builds `node` between two fresh states; returns [entry, exit]. */
  build(node: Node): [number, number] {
    switch (node.kind) {
      case 'set': {
        const a = this.add();
        const b = this.add();
        if (node.ranges.length > 0) this.chars[a]!.push({ ranges: node.ranges, to: b });
        return [a, b];
      }
      case 'start':
      case 'end': {
        const a = this.add();
        const b = this.add();
        (node.kind === 'start' ? this.bol : this.eol)[a]!.push(b);
        return [a, b];
      }
      case 'seq': {
        const a = this.add();
        let last = a;
        for (const item of node.items) {
          const [s, e] = this.build(item);
          this.eps[last]!.push(s);
          last = e;
        }
        return [a, last];
      }
      case 'alt': {
        const a = this.add();
        const b = this.add();
        for (const item of node.items) {
          const [s, e] = this.build(item);
          this.eps[a]!.push(s);
          this.eps[e]!.push(b);
        }
        return [a, b];
      }
      case 'repeat': {
        const a = this.add();
        let last = a;
        for (let i = 0; i < node.min; i++) {
          const [s, e] = this.build(node.item);
          this.eps[last]!.push(s);
          last = e;
        }
        if (node.max === Infinity) {
          const [s, e] = this.build(node.item);
          const b = this.add();
          this.eps[last]!.push(s, b);
          this.eps[e]!.push(s, b);
          return [a, b];
        }
        // Each optional copy may be skipped straight to the exit.
        const b = this.add();
        for (let i = node.min; i < node.max; i++) {
          const [s, e] = this.build(node.item);
          this.eps[last]!.push(s, b);
          last = e;
        }
        this.eps[last]!.push(b);
        return [a, b];
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The lazy DFA.

const UNKNOWN = -2;

interface DfaState {
  /** NFA states with character edges, all live, sorted. */
  readonly nfa: readonly number[];
  readonly accepting: boolean;
  /** ASCII transitions, made on the first ASCII step (states only walked by canFinish never need one). */
  ascii?: Int32Array;
  readonly other: Map<number, number>;
  /** The state after any one character (for canFinish), UNKNOWN until computed. */
  any: number;
  /** Which continuation lengths lead to acceptance (see lengthsOf), once asked. */
  lengths?: Lengths;
}

class LazyDfa implements CharAutomaton {
  readonly start: number;
  private readonly states: DfaState[] = [];
  private readonly ids = new Map<string, number>();
  /** NFA states from which acceptance is reachable without consuming a character (through ε and `$`). */
  private readonly endOk: Uint8Array;
  /** NFA states from which acceptance is reachable at all, once past the first character. */
  private readonly live: Uint8Array;
  private readonly seen: Int32Array;
  private readonly seenEnd: Int32Array;
  private generation = 0;

  private readonly nfa: Nfa;
  private readonly accept: number;

  constructor(nfa: Nfa, entry: number, accept: number) {
    this.nfa = nfa;
    this.accept = accept;
    const n = nfa.eps.length;
    this.seen = new Int32Array(n);
    this.seenEnd = new Int32Array(n);
    // Reverse reachability: endOk from `accept` over ε and `$`; live from endOk over ε and characters.
    const revEnd: number[][] = Array.from({ length: n }, () => []);
    const revLive: number[][] = Array.from({ length: n }, () => []);
    for (let q = 0; q < n; q++) {
      for (const t of nfa.eps[q]!) revEnd[t]!.push(q), revLive[t]!.push(q);
      for (const t of nfa.eol[q]!) revEnd[t]!.push(q);
      for (const edge of nfa.chars[q]!) revLive[edge.to]!.push(q);
    }
    this.endOk = reach([accept], revEnd, n);
    this.live = reach(
      Array.from({ length: n }, (_, q) => q).filter((q) => this.endOk[q]),
      revLive,
      n,
    );
    this.start = this.intern(this.closure([entry], true));
  }

  /** The states reachable from `kernel` without consuming a character, kept where they can consume one and are live. */
  private closure(kernel: readonly number[], atStart: boolean): { nfa: number[]; accepting: boolean } {
    const gen = ++this.generation;
    const { eps, bol, eol, chars } = this.nfa;
    const kept: number[] = [];
    let accepting = false;
    // Two flavours of visit: normal, and "after `$`" (may still reach acceptance, never consume).
    const stack: number[] = [];
    const endStack: number[] = [];
    for (const q of kernel) if (this.seen[q] !== gen) (this.seen[q] = gen), stack.push(q);
    const visitEnd = (t: number): void => {
      if (this.seenEnd[t] !== gen) (this.seenEnd[t] = gen), endStack.push(t);
    };
    while (stack.length > 0) {
      const q = stack.pop()!;
      // Past a whole match every continuation matches too: the other states add nothing, and
      // dropping them keeps the "matched" states from multiplying.
      if (q === this.accept) return { nfa: [q], accepting: true };
      if (chars[q]!.length > 0 && this.live[q]) kept.push(q);
      for (const t of eps[q]!) if (this.seen[t] !== gen) (this.seen[t] = gen), stack.push(t);
      if (atStart) for (const t of bol[q]!) if (this.seen[t] !== gen) (this.seen[t] = gen), stack.push(t);
      for (const t of eol[q]!) visitEnd(t);
    }
    while (endStack.length > 0 && !accepting) {
      const q = endStack.pop()!;
      if (q === this.accept) accepting = true;
      for (const t of eps[q]!) visitEnd(t);
      for (const t of eol[q]!) visitEnd(t);
      // At position 0 with nothing to follow, `^` holds too (e.g. /$^/ matches "").
      if (atStart) for (const t of bol[q]!) visitEnd(t);
    }
    kept.sort((a, b) => a - b);
    return { nfa: kept, accepting };
  }

  private intern(set: { nfa: number[]; accepting: boolean }): number {
    if (set.nfa.length === 0 && !set.accepting) return -1;
    const key = (set.accepting ? 'a' : 'r') + set.nfa.join(',');
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.states.length;
      this.states.push({ nfa: set.nfa, accepting: set.accepting, other: new Map(), any: UNKNOWN });
      this.ids.set(key, id);
    }
    return id;
  }

  next(state: number, codePoint: number): number {
    const s = this.states[state];
    if (s === undefined) return -1;
    if (codePoint >= 0 && codePoint < 128) {
      const ascii = (s.ascii ??= new Int32Array(128).fill(UNKNOWN));
      const cached = ascii[codePoint]!;
      if (cached !== UNKNOWN) return cached;
      return (ascii[codePoint] = this.step(s, codePoint));
    }
    const cached = s.other.get(codePoint);
    if (cached !== undefined) return cached;
    const to = this.step(s, codePoint);
    s.other.set(codePoint, to);
    return to;
  }

  matchesAll(state: number): boolean {
    // The one state a found match collapses to (see closure): its only NFA state, the final one, takes anything.
    const s = this.states[state];
    return s !== undefined && s.accepting && s.nfa.length === 1 && s.nfa[0] === this.accept;
  }

  takesSome(state: number, lo: number, hi: number): boolean {
    const s = this.states[state];
    if (s === undefined) return false;
    for (const q of s.nfa) {
      for (const edge of this.nfa.chars[q]!) {
        if (!this.live[edge.to] && !this.endOk[edge.to]) continue;
        for (let i = 0; i < edge.ranges.length; i += 2) if (edge.ranges[i]! <= hi && edge.ranges[i + 1]! >= lo) return true;
      }
    }
    return false;
  }

  private step(s: DfaState, cp: number): number {
    const targets: number[] = [];
    for (const q of s.nfa) for (const edge of this.nfa.chars[q]!) if (inRanges(edge.ranges, cp)) targets.push(edge.to);
    return this.intern(this.closure(targets, false));
  }

  /** The state after some one character, whichever (every edge's range is non-empty). */
  private anyStep(state: number): number {
    const s = this.states[state]!;
    if (s.any === UNKNOWN) {
      const targets: number[] = [];
      for (const q of s.nfa) for (const edge of this.nfa.chars[q]!) targets.push(edge.to);
      s.any = this.intern(this.closure(targets, false));
    }
    return s.any;
  }

  accepts(state: number): boolean {
    return this.states[state]?.accepting ?? false;
  }

  canFinish(state: number, min: number, max: number): boolean {
    const s = this.states[state];
    if (s === undefined || max < min || max < 0) return false;
    // The common questions need no walk: "may it close now" and "can it ever close" (every
    // state but a dead start can, by the pruning of dead NFA states).
    if (min <= 0 && s.accepting) return true;
    if (max === Infinity && min <= 0) return s.nfa.length > 0;
    const { walk, offset } = this.lengthsOf(state);
    const { flags, cycleStart } = walk;
    const cycle = flags.length - cycleStart;
    const lo = offset + Math.max(0, min);
    const hi = offset + max;
    if (cycle === 0) {
      for (let k = lo; k <= hi && k < flags.length; k++) if (flags[k]) return true;
      return false;
    }
    // Past the prefix the answer repeats with the cycle's period: one period is enough to look at.
    const last = Math.min(hi, Math.max(lo, cycleStart) + cycle - 1);
    for (let k = lo; k <= last; k++) {
      if (flags[k < flags.length ? k : cycleStart + ((k - cycleStart) % cycle)]) return true;
    }
    return false;
  }

  /**
   * The lengths of the continuations that end in acceptance: the states after exactly k
   * characters (any characters) form a sequence of DFA states, which either dies or enters a
   * cycle; the accepting flags along it are then a prefix and a repeating part. Every state on
   * the walk gets its answer from the same walk (its own suffix of it).
   */
  private lengthsOf(state: number): Lengths {
    const s = this.states[state]!;
    if (s.lengths) return s.lengths;
    const order: number[] = [];
    const index = new Map<number, number>();
    let cur = state;
    while (cur !== -1 && !index.has(cur) && order.length < WALK_LIMIT) {
      index.set(cur, order.length);
      order.push(cur);
      cur = this.anyStep(cur);
    }
    // A walk cut at the limit is read as ending there: lengths past it are answered "no", which
    // can refuse a valid length but never promises one that cannot be reached.
    const cycleStart = cur === -1 || !index.has(cur) ? order.length : index.get(cur)!;
    const walk: Walk = { flags: order.map((id) => this.states[id]!.accepting), cycleStart };
    order.forEach((id, offset) => {
      const t = this.states[id]!;
      // A state inside the cycle reads the cycle from its own place in it.
      t.lengths ??= { walk, offset };
    });
    return s.lengths!;
  }
}

/** The accepting flags along the any-character walk from some state; past the end it repeats from cycleStart (or ends, when cycleStart is the end). */
interface Walk {
  readonly flags: readonly boolean[];
  readonly cycleStart: number;
}

/** Where a state stands on a walk. */
interface Lengths {
  readonly walk: Walk;
  readonly offset: number;
}

function inRanges(ranges: Ranges, cp: number): boolean {
  // Sets are short (a handful of ranges): a linear scan beats a binary search here.
  for (let i = 0; i < ranges.length; i += 2) {
    if (cp < ranges[i]!) return false;
    if (cp <= ranges[i + 1]!) return true;
  }
  return false;
}

function reach(from: number[], edges: number[][], n: number): Uint8Array {
  const mark = new Uint8Array(n);
  const stack = [...from];
  for (const q of from) mark[q] = 1;
  while (stack.length > 0) {
    const q = stack.pop()!;
    for (const t of edges[q]!) if (!mark[t]) (mark[t] = 1), stack.push(t);
  }
  return mark;
}

/**
 * The automaton of a JSON Schema `pattern`: accepting exactly the strings in which the regular
 * expression finds a match (ECMA-262, `u` flag). Throws {@link UnsupportedPattern} for what it
 * cannot represent exactly, and for a source that is not a valid `u`-mode regular expression.
 * A pattern that matches no string at all (`a^`, `[]`) compiles to a start state that cannot
 * finish: `canFinish(start, 0, Infinity)` is false, and every `next` from it is -1.
 */
export function compilePattern(source: string): CharAutomaton {
  try {
    new RegExp(source, 'u');
  } catch (error) {
    throw new UnsupportedPattern(`not a valid regular expression: ${(error as Error).message}`);
  }
  const tree = new Parser(source).parse();
  const nfa = new Nfa();
  // Search semantics: anything may come before and after the match.
  const before = nfa.add();
  nfa.chars[before]!.push({ ranges: ANY, to: before });
  const [s, e] = nfa.build(tree);
  nfa.eps[before]!.push(s);
  const after = nfa.add();
  nfa.eps[e]!.push(after);
  nfa.chars[after]!.push({ ranges: ANY, to: after });
  return new LazyDfa(nfa, before, after);
}
