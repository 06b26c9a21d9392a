/**
 * A schema's nodes as a byte matcher (byte-matcher.ts) over compact JSON: no whitespace between
 * tokens, strings spelt as JSON.stringify spells them, object members in the order the schema
 * declares them (undeclared names where the schema allows them). A state is a set of threads,
 * one for each way the bytes so far can be read (a union keeps one per alternative still
 * possible); a thread is a stack of frames, the innermost value on top, each frame immutable.
 *
 * Every frame checks, at each byte, that its value can still be finished (a number still able to
 * reach its bounds, an object still able to take its required members, a string its length), so
 * a thread that steps is never a dead end; the places where that is not fully known are named
 * where they are.
 * @module
 */
import type { ByteMatcher, MatchState, PatternBody, StringBody } from '../byte-matcher.ts';
import { compare, decimalOf, inRange, meets, negate, tenTo, times, add, type Decimal, type NumberRange } from '../../../core/json-schema/decimal.ts';
import { ANY, ARRAY, BOOLEAN, INTEGER, integerStep, intersectNodes, matches, NULL, NUMBER, OBJECT, STRING, type ArrayRule, type Node, type ObjectRule, type StringRule, type TypedNode } from '../../../core/json-schema/schema-node.ts';

type Frame = ValueFrame | LiteralFrame | StringFrame | NumberFrame | ObjectFrame | ArrayFrame | EndFrame;
type Parent = ObjectFrame | ArrayFrame | null;

interface Base {
  /** The frame below, whose value this one is part of (null: the whole output). */
  readonly parent: Parent;
  key?: string;
}
/** Before a value's first byte. */
interface ValueFrame extends Base {
  readonly t: 'value';
  readonly node: Node;
}
interface LiteralFrame extends Base {
  readonly t: 'literal';
  readonly trie: LiteralTrie;
  readonly at: number;
}
interface StringFrame extends Base {
  readonly t: 'string';
  readonly rule: StringRule;
  /** Characters so far (capped where only reaching `rule.min` matters). */
  readonly count: number;
  /** 0: between characters; 1: after `\`; 2..4: after `\u`, `\u0`, `\u00`; 5, 6: after `\u000`, `\u001`. */
  readonly escape: number;
  /** Inside a UTF-8 character: continuation bytes still to come, the range of the next one, the code point so far. */
  readonly need: number;
  readonly lo: number;
  readonly hi: number;
  readonly point: number;
  /** Each automaton's state (the rule's, then, for a name, the object's patterns). */
  readonly automata: readonly number[];
  /** A member name: its object, and its bytes so far (as char codes). */
  readonly name?: { readonly object: ObjectFrame; readonly spelt: string };
}
interface NumberFrame extends Base {
  readonly t: 'number';
  readonly node: TypedNode;
  readonly integers: boolean;
  readonly range: NumberRange | undefined;
  /** What the number so far is, as typed (only its shape, where no range is to be kept). */
  readonly text: string;
}
interface ObjectFrame extends Base {
  readonly t: 'object';
  readonly node: TypedNode;
  /** 0: after `{`; 1: after `,`; 2: after a name; 3: after a value. */
  readonly phase: number;
  /** Which declared members have come, one character each ('1': seen). */
  readonly seen: string;
  readonly count: number;
  /** After a name: its value's node. */
  readonly value?: Node;
}
interface ArrayFrame extends Base {
  readonly t: 'array';
  readonly rule: ArrayRule;
  readonly nodeId: number;
  /** 0: after `[`; 1: after `,`; 3: after an item. */
  readonly phase: number;
  readonly count: number;
}
interface EndFrame extends Base {
  readonly t: 'end';
}

interface State {
  readonly threads: readonly Frame[];
  key?: string;
}

const END: EndFrame = { t: 'end', parent: null, key: 'E' };

/** The texts of a literal node as a byte trie: node 0 the root; a node's children by byte. */
interface LiteralTrie {
  readonly id: number;
  readonly children: Map<number, number>[];
  readonly terminal: boolean[];
}

const encoder = new TextEncoder();
const tries = new WeakMap<object, LiteralTrie>();
let trieIds = 1;
function trieOf(owner: object, texts: readonly string[]): LiteralTrie {
  let trie = tries.get(owner);
  if (trie) return trie;
  trie = { id: trieIds++, children: [new Map()], terminal: [false] };
  for (const text of texts) {
    let at = 0;
    for (const byte of encoder.encode(text)) {
      let next = trie.children[at]!.get(byte);
      if (next === undefined) {
        next = trie.children.length;
        trie.children.push(new Map());
        trie.terminal.push(false);
        trie.children[at]!.set(byte, next);
      }
      at = next;
    }
    trie.terminal[at] = true;
  }
  tries.set(owner, trie);
  return trie;
}
const TRUE = trieOf({}, ['true']);
const FALSE = trieOf({}, ['false']);
const NULL_TEXT = trieOf({}, ['null']);

const FREE: TypedNode = { kind: 'typed', id: 0, types: 127, string: { min: 0, max: Infinity, automata: [], sources: [] }, number: { minExclusive: false, maxExclusive: false }, object: { properties: [], patterns: [], additional: ANY, min: 0, max: Infinity }, array: { prefix: [], items: ANY, min: 0, max: Infinity } };

const nodeIds = new WeakMap<object, number>();
let anonymous = -1;
function idOf(node: Node): number {
  if ('id' in node) return node.id;
  let id = nodeIds.get(node);
  if (id === undefined) nodeIds.set(node, (id = anonymous--));
  return id;
}

function keyOf(frame: Frame): string {
  if (frame.key !== undefined) return frame.key;
  const below = frame.parent ? keyOf(frame.parent) : '';
  let own: string;
  switch (frame.t) {
    case 'value':
      own = `v${idOf(frame.node)}`;
      break;
    case 'literal':
      own = `l${frame.trie.id}.${frame.at}`;
      break;
    case 'string':
      own = `s${frame.count}.${frame.escape}.${frame.need}.${frame.lo}.${frame.point}.${frame.automata.join(',')}${frame.name ? `n${frame.name.spelt}` : ''}${frame.rule.sources.join('')}${frame.rule.min}.${frame.rule.max}`;
      break;
    case 'number':
      own = `n${frame.node.id}${frame.integers ? 'i' : ''}${frame.text}`;
      break;
    case 'object':
      own = `o${frame.node.id}.${frame.phase}.${frame.seen}.${frame.count}.${frame.value ? idOf(frame.value) : ''}`;
      break;
    case 'array':
      own = `a${frame.nodeId}.${frame.phase}.${frame.count}`;
      break;
    case 'end':
      own = 'E';
      break;
  }
  return (frame.key = `${below}/${own}`);
}

/** A matcher for a node (the whole output is one value of it). */
export function jsonMatcher(root: Node): ByteMatcher {
  const start: State = { threads: [{ t: 'value', node: root, parent: null }] };
  return {
    start: start as MatchState,
    step(state, byte) {
      const out: Frame[] = [];
      for (const frame of (state as State).threads) feed(frame, byte, out);
      return out.length === 0 ? undefined : (dedupe(out) as MatchState);
    },
    canEnd: (state) => (state as State).threads.some(canEndHere),
    key: (state) => stateKey(state as State),
    stringBody: (state) => stringBodyOf(state as State),
    patternBody: (state) => patternBodyOf(state as State),
  };
}

function stateKey(state: State): string {
  if (state.key === undefined) state.key = state.threads.map(keyOf).join('|');
  return state.key;
}

function dedupe(frames: Frame[]): State {
  if (frames.length === 1) return { threads: frames };
  const seen = new Map<string, Frame>();
  for (const frame of frames) {
    const key = keyOf(frame);
    if (!seen.has(key)) seen.set(key, frame);
  }
  return { threads: [...seen.values()] };
}

function canEndHere(frame: Frame): boolean {
  if (frame.t === 'end') return true;
  if (frame.parent !== null) return false;
  if (frame.t === 'number') return numberEnds(frame);
  if (frame.t === 'literal') return frame.trie.terminal[frame.at]!;
  return false;
}

/**
 * The body every thread is in, where only its length matters: threads of one union in strings
 * with the same bounds left go on together byte by byte, and each gives its own state after the
 * quote (none where one is a name that decides what follows).
 */
function stringBodyOf(state: State): StringBody | undefined {
  let min = 0;
  let max = 0;
  let spelled = false;
  const closed: Frame[] = [];
  const threads = state.threads;
  for (let i = 0; i < threads.length; i++) {
    const frame = threads[i]!;
    if (frame.t !== 'string' || frame.escape !== 0 || frame.need !== 0 || !frame.rule.automata.every((automaton, k) => automaton.matchesAll(frame.automata[k]!))) return undefined;
    const least = Math.max(0, frame.rule.min - frame.count);
    const most = frame.rule.max - frame.count;
    if (i === 0) {
      min = least;
      max = most;
    } else if (least !== min || most !== max) return undefined;
    if (frame.name && frame.name.spelt !== FREE_NAME) {
      // Still on the way to a declared name, or to one a pattern matches, where any other name
      // would do too: the tokens that stay inside the name are all allowed, those that close it
      // (whose value schema the name decides) are stepped.
      const object = frame.name.object;
      if (!anyNameSpelt(object.node, frame.automata.slice(frame.rule.automata.length)) || !extrasAllowed(object.node, object.seen, object.count)) return undefined;
      spelled = true;
    } else if (frame.name) {
      // A free name closes as it may now, but for its length: that must be met already.
      if (frame.count < frame.rule.min) return undefined;
      closeString(frame, closed);
    } else complete(frame.parent, closed);
  }
  if (spelled) return { min, max };
  if (closed.length === 0) return undefined;
  return { min, max, close: dedupe(closed) as MatchState };
}

/**
 * A value's string body under a pattern or a format that `stringBodyOf` does not take:
 * `character`, `someIn` and `closeString` are what `PatternBody` describes for a string that is
 * not a name. A name's closing depends on its spelling, but for one past every declared name in an
 * object whose other names must match its one pattern (`namePatternBody`).
 */
function patternBodyOf(state: State): PatternBody | undefined {
  if (state.threads.length !== 1) return undefined;
  const frame = state.threads[0]!;
  if (frame.t !== 'string' || frame.escape !== 0 || frame.need !== 0) return undefined;
  if (frame.name) return namePatternBody(frame, frame.name);
  const automata = frame.rule.automata;
  if (automata.length === 0 || automata.every((automaton, i) => automaton.matchesAll(frame.automata[i]!))) return undefined;
  const closed: Frame[] = [];
  complete(frame.parent, closed);
  return { min: Math.max(0, frame.rule.min - frame.count), max: frame.rule.max - frame.count, close: dedupe(closed) as MatchState, automata, states: frame.automata };
}

/**
 * A name that can no longer become a declared one, in an object whose other names are taken
 * only where its one pattern matches them (no rule for names): each character must take the
 * pattern on (`nameLive`, `someIn`), and the closing quote, where it matches, gives the pattern's
 * value schema, whatever the name spells.
 */
function namePatternBody(frame: StringFrame, name: NonNullable<StringFrame['name']>): PatternBody | undefined {
  const object = name.object;
  const node = object.node;
  const rule = node.object;
  if (name.spelt === FREE_NAME || rule.names || rule.nameRule || rule.additional.kind !== 'never' || rule.patterns.length !== 1) return undefined;
  if (!extrasAllowed(node, object.seen, object.count) || allPrefixes(node).has(name.spelt)) return undefined;
  const pattern = rule.patterns[0]!;
  const at = frame.automata[frame.rule.automata.length]!;
  if (frame.rule.automata.length > 0 || at < 0 || pattern.automaton.matchesAll(at) || pattern.node.kind === 'never') return undefined;
  const close: ObjectFrame = { ...object, key: undefined, phase: 2, count: object.count + 1, value: pattern.node };
  return { min: Math.max(0, frame.rule.min - frame.count), max: frame.rule.max - frame.count, close: { threads: [close] } as State as MatchState, automata: [pattern.automaton], states: [at] };
}

/** The frames after a value inside `parent` is complete. */
function complete(parent: Parent, out: Frame[]): void {
  if (parent === null) out.push(END);
  else if (parent.t === 'object') out.push({ ...parent, key: undefined, phase: 3, value: undefined });
  else out.push({ ...parent, key: undefined, phase: 3 });
}

/** Every frame `frame` can go on as with `byte`. */
function feed(frame: Frame, byte: number, out: Frame[]): void {
  switch (frame.t) {
    case 'value':
      return start(frame.node, frame.parent, byte, out, 0);
    case 'literal': {
      const next = frame.trie.children[frame.at]!.get(byte);
      if (next !== undefined) out.push({ t: 'literal', trie: frame.trie, at: next, parent: frame.parent });
      // A literal that is complete and could go on (`1` of `1` and `10`) ends where a byte it cannot take comes.
      if (frame.trie.terminal[frame.at] && next === undefined) after(frame.parent, byte, out);
      return;
    }
    case 'string':
      return stringByte(frame, byte, out);
    case 'number':
      return numberByte(frame, byte, out);
    case 'object':
      return objectByte(frame, byte, out);
    case 'array':
      return arrayByte(frame, byte, out);
    case 'end':
      return;
  }
}

/** A value that ended just before `byte`: its parent takes the byte. */
function after(parent: Parent, byte: number, out: Frame[]): void {
  const done: Frame[] = [];
  complete(parent, done);
  for (const frame of done) feed(frame, byte, out);
}

function start(node: Node, parent: Parent, byte: number, out: Frame[], depth: number): void {
  if (depth > 64) return;
  switch (node.kind) {
    case 'never':
      return;
    case 'ref':
      return start(node.target(), parent, byte, out, depth + 1);
    case 'union':
      for (const part of node.of) start(part, parent, byte, out, depth + 1);
      return;
    case 'literal':
      return feed({ t: 'literal', trie: trieOf(node, node.texts), at: 0, parent }, byte, out);
    case 'any':
      return start(FREE, parent, byte, out, depth);
    case 'typed':
      break;
  }
  const types = node.types;
  if (byte === 0x7b /* { */) {
    if (types & OBJECT && objectLive(node, noneSeen(node), 0)) out.push({ t: 'object', node, phase: 0, seen: noneSeen(node), count: 0, parent });
  } else if (byte === 0x5b /* [ */) {
    if (types & ARRAY && node.array.min <= node.array.max) out.push({ t: 'array', rule: node.array, nodeId: node.id, phase: 0, count: 0, parent });
  } else if (byte === 0x22 /* " */) {
    if (types & STRING && node.string.min <= node.string.max) out.push(freshString(node.string, parent));
  } else if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) {
    if (types & (INTEGER | NUMBER)) {
      const integers = !(types & NUMBER);
      const step = integers ? integerStep(node) : node.number.step;
      const range = node.number.min || node.number.max || step ? { ...node.number, ...(step ? { step } : {}) } : undefined;
      if (!range || meets(undefined, false, undefined, false, range)) numberByte({ t: 'number', node, integers, range, text: '', parent }, byte, out);
    }
  } else if (byte === 0x74 /* t */ || byte === 0x66 /* f */) {
    if (types & BOOLEAN) feed({ t: 'literal', trie: byte === 0x74 ? TRUE : FALSE, at: 0, parent }, byte, out);
  } else if (byte === 0x6e /* n */) {
    if (types & NULL) feed({ t: 'literal', trie: NULL_TEXT, at: 0, parent }, byte, out);
  }
}

function freshString(rule: StringRule, parent: Parent, name?: StringFrame['name'], extra: readonly { readonly start: number }[] = []): StringFrame {
  return { t: 'string', rule, count: 0, escape: 0, need: 0, lo: 0, hi: 0, point: 0, automata: [...rule.automata.map((a) => a.start), ...extra.map((a) => a.start)], parent, ...(name ? { name } : {}) };
}

// ---- strings ----

const SHORT_ESCAPES: Readonly<Record<number, number>> = { 0x22: 0x22, 0x5c: 0x5c, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };
/** Control characters JSON.stringify writes short (`\b`, `\t`, `\n`, `\f`, `\r`): never as `\u00XX`. */
const HAS_SHORT = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

function stringByte(frame: StringFrame, byte: number, out: Frame[]): void {
  if (frame.name && frame.name.spelt !== FREE_NAME && !(byte === 0x22 && frame.escape === 0)) {
    // A name is kept as its bytes, checked byte by byte where only declared names may come: a
    // token that ends inside a character must not start one no name has.
    const object = frame.name.object;
    let spelt = frame.name.spelt + String.fromCharCode(byte);
    if (!extrasAllowed(object.node, object.seen, object.count) && !declaredPrefixes(object).has(spelt)) return;
    if (freeNames(object.node, frame.automata) && !allPrefixes(object.node).has(spelt)) spelt = FREE_NAME;
    frame = { ...frame, key: undefined, name: { object, spelt } };
  }
  if (frame.need > 0) {
    if (byte < frame.lo || byte > frame.hi) return;
    const point = (frame.point << 6) | (byte & 0x3f);
    if (frame.need === 1) return character(frame, point, out, byte);
    if (!someCharacter(frame, point, frame.need - 1)) return;
    out.push({ ...frame, key: undefined, need: frame.need - 1, lo: 0x80, hi: 0xbf, point });
    return;
  }
  switch (frame.escape) {
    case 0:
      break;
    case 1: {
      if (byte === 0x75 /* u */) {
        if (someIn(frame, 0x00, 0x1f)) out.push({ ...frame, key: undefined, escape: 2 });
        return;
      }
      const char = SHORT_ESCAPES[byte];
      if (char !== undefined) character(frame, char, out, byte);
      return;
    }
    case 2:
    case 3:
      if (byte === 0x30) out.push({ ...frame, key: undefined, escape: frame.escape + 1 });
      return;
    case 4:
      if ((byte === 0x30 || byte === 0x31) && someIn(frame, byte === 0x30 ? 0x00 : 0x10, byte === 0x30 ? 0x0f : 0x1f)) out.push({ ...frame, key: undefined, escape: byte === 0x30 ? 5 : 6 });
      return;
    default: {
      const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
      if (digit < 0) return;
      const char = (frame.escape === 6 ? 16 : 0) + digit;
      if (!HAS_SHORT.has(char)) character(frame, char, out, byte);
      return;
    }
  }
  if (byte === 0x22) return closeString(frame, out);
  if (byte === 0x5c) {
    // An escape stands for a quote, a backslash or a control character: one of them must do.
    if (frame.count < frame.rule.max && (someIn(frame, 0x00, 0x1f) || someIn(frame, 0x22, 0x22) || someIn(frame, 0x5c, 0x5c))) out.push({ ...frame, key: undefined, escape: 1 });
    return;
  }
  if (byte < 0x20) return;
  if (byte < 0x80) return character(frame, byte, out, byte);
  // The first byte of a character of several: how many follow, and the range of the next.
  if (frame.count >= frame.rule.max) return;
  let need: number, lo = 0x80, hi = 0xbf, point: number;
  if (byte >= 0xc2 && byte <= 0xdf) [need, point] = [1, byte & 0x1f];
  else if (byte >= 0xe0 && byte <= 0xef) {
    [need, point] = [2, byte & 0x0f];
    if (byte === 0xe0) lo = 0xa0;
    if (byte === 0xed) hi = 0x9f;
  } else if (byte >= 0xf0 && byte <= 0xf4) {
    [need, point] = [3, byte & 0x07];
    if (byte === 0xf0) lo = 0x90;
    if (byte === 0xf4) hi = 0x8f;
  } else return;
  if (!someCharacter(frame, point, need)) return;
  out.push({ ...frame, key: undefined, need, lo, hi, point });
}

const LEAST_OF = [0, 0x80, 0x800, 0x10000];

/**
 * Whether the string's automata can each take some character from `lo` to `hi`; and, for a name
 * where only declared names and names a pattern matches may come, whether a declared name goes
 * on with these bytes or some pattern takes such a character.
 */
function someIn(frame: StringFrame, lo: number, hi: number): boolean {
  const automata = frame.rule.automata;
  for (let i = 0; i < automata.length; i++) if (!automata[i]!.takesSome(frame.automata[i]!, lo, hi)) return false;
  const name = frame.name;
  if (!name || name.spelt === FREE_NAME || !patternNamesOnly(name.object.node)) return true;
  if (declaredPrefixes(name.object).has(name.spelt)) return true;
  const patterns = name.object.node.object.patterns;
  return patterns.some((pattern, i) => {
    const state = frame.automata[automata.length + i]!;
    return state >= 0 && pattern.automaton.takesSome(state, lo, hi);
  });
}

/** Undeclared names only where a pattern matches them (no other name's value schema). */
function patternNamesOnly(node: TypedNode): boolean {
  return node.object.additional.kind === 'never' && node.object.patterns.length > 0;
}

/** Whether the string's automata can take some character that begins with these bits (`need` bytes of 6 bits still to come). */
function someCharacter(frame: StringFrame, point: number, need: number): boolean {
  if (frame.rule.automata.length === 0 && !(frame.name && patternNamesOnly(frame.name.object.node))) return true;
  // The least code point a character of this many bytes may be (no overlong forms).
  const lo = Math.max(point << (6 * need), LEAST_OF[need]!);
  return someIn(frame, lo, (point << (6 * need)) | ((1 << (6 * need)) - 1));
}

/** One whole character read: counted, given to the automata, checked that the string can still end. */
function character(frame: StringFrame, point: number, out: Frame[], _byte: number): void {
  const rule = frame.rule;
  const count = frame.count + 1;
  if (count > rule.max) return;
  let automata = frame.automata;
  if (automata.length > 0) {
    const all = frame.name ? [...rule.automata, ...frame.name.object.node.object.patterns.map((p) => p.automaton)] : rule.automata;
    const next: number[] = [];
    for (let i = 0; i < all.length; i++) {
      const state = automata[i]!;
      const moved = state < 0 ? -1 : all[i]!.next(state, point);
      // The rule's own automata must go on; a name's pattern automata may drop out (the name may match another).
      if (moved < 0 && i < rule.automata.length) return;
      if (moved >= 0 && i < rule.automata.length && !all[i]!.canFinish(moved, Math.max(0, rule.min - count), rule.max - count)) return;
      next.push(moved);
    }
    automata = next;
  }
  // Past the minimum, with no maximum, the count no longer matters (the automata's own states
  // say the rest): equal states stay equal, and share their masks.
  const kept = rule.max === Infinity ? Math.min(count, rule.min) : count;
  if (frame.name && !nameLive(frame.name.object, frame.name.spelt, automata.slice(rule.automata.length))) return;
  out.push({ ...frame, key: undefined, count: kept, escape: 0, need: 0, lo: 0, hi: 0, point: 0, automata });
}

function closeString(frame: StringFrame, out: Frame[]): void {
  const rule = frame.rule;
  if (frame.count < rule.min) return;
  for (let i = 0; i < rule.automata.length; i++) if (!rule.automata[i]!.accepts(frame.automata[i]!)) return;
  if (!frame.name) return complete(frame.parent, out);
  const object = frame.name.object;
  const spelt = frame.name.spelt;
  const node = object.node;
  const obj = node.object;
  if (spelt !== FREE_NAME && obj.names && !matches(obj.names, nameText(spelt))) return;
  const declared = spelt === FREE_NAME ? undefined : declaredIndex(node).get(spelt);
  if (declared !== undefined) {
    if (!allowedDeclared(node, object.seen, object.count).includes(declared)) return;
    const seen = object.seen.slice(0, declared) + '1' + object.seen.slice(declared + 1);
    out.push({ ...object, key: undefined, phase: 2, seen, count: object.count + 1, value: obj.properties[declared]!.node });
    return;
  }
  // An undeclared name is not checked against the others before it: JSON's parsers keep the last
  // of a name given twice, and validators judge what they keep.
  if (!extrasAllowed(node, object.seen, object.count)) return;
  const patternStates = frame.automata.slice(rule.automata.length);
  const matching = obj.patterns.filter((pattern, i) => patternStates[i]! >= 0 && pattern.automaton.accepts(patternStates[i]!));
  let value: Node;
  if (matching.length === 0) value = obj.additional;
  else value = matching.slice(1).reduce((both, pattern) => intersectNodes(both, pattern.node), matching[0]!.node);
  if (value.kind === 'never') return;
  out.push({ ...object, key: undefined, phase: 2, count: object.count + 1, value });
}

// ---- objects ----

const decoder = new TextDecoder();
/** A name's value from its spelling (bytes as char codes, escapes as JSON writes them). */
function nameText(spelt: string): string {
  return JSON.parse(`"${decoder.decode(Uint8Array.from(spelt, (c) => c.charCodeAt(0)))}"`) as string;
}

/** A text's UTF-8 bytes as char codes: how a name's spelling is kept while it is read. */
const asBytes = (text: string): string => String.fromCharCode(...encoder.encode(text));

const declaredIndexes = new WeakMap<TypedNode, Map<string, number>>();
function declaredIndex(node: TypedNode): Map<string, number> {
  let found = declaredIndexes.get(node);
  if (!found) declaredIndexes.set(node, (found = new Map(node.object.properties.map((p, i) => [asBytes(p.spelling), i]))));
  return found;
}

const noneSeenMemo = new WeakMap<TypedNode, string>();
function noneSeen(node: TypedNode): string {
  let found = noneSeenMemo.get(node);
  if (found === undefined) noneSeenMemo.set(node, (found = '0'.repeat(node.object.properties.length)));
  return found;
}

/** Required members not seen yet. */
function requiredLeft(rule: ObjectRule, seen: string): number {
  let n = 0;
  for (let i = 0; i < rule.properties.length; i++) if (rule.properties[i]!.required && seen[i] === '0') n++;
  return n;
}

const allowedMemo = new WeakMap<TypedNode, Map<string, number[]>>();
/**
 * The declared members that may come next, in any order (a member comes once): those the counts
 * leave room for, keeping room for the required ones still to come.
 */
function allowedDeclared(node: TypedNode, seen: string, count: number): number[] {
  let memo = allowedMemo.get(node);
  if (!memo) allowedMemo.set(node, (memo = new Map()));
  const key = `${seen}.${count}`;
  let found = memo.get(key);
  if (found) return found;
  found = [];
  const rule = node.object;
  const extras = rule.additional.kind !== 'never' || rule.patterns.length > 0;
  const required = requiredLeft(rule, seen);
  // In the schema's order, members before the last one written are behind (none of them required:
  // a required one is never passed over).
  const from = rule.anyOrder ? 0 : seen.lastIndexOf('1') + 1;
  let unseen = 0;
  for (let j = from; j < rule.properties.length; j++) if (seen[j] === '0' && rule.properties[j]!.node.kind !== 'never') unseen++;
  for (let j = from; j < rule.properties.length; j++) {
    const property = rule.properties[j]!;
    if (seen[j] !== '0') continue;
    const requiredAfter = required - (property.required ? 1 : 0);
    if (property.node.kind !== 'never' && count + 1 + requiredAfter <= rule.max && (extras || count + unseen >= rule.min)) found.push(j);
    if (property.required && !rule.anyOrder) break;
  }
  memo.set(key, found);
  return found;
}

function extrasAllowed(node: TypedNode, seen: string, count: number): boolean {
  const rule = node.object;
  return (rule.additional.kind !== 'never' || rule.patterns.length > 0) && count + 1 + requiredLeft(rule, seen) <= rule.max;
}

function canClose(node: TypedNode, seen: string, count: number): boolean {
  return requiredLeft(node.object, seen) === 0 && count >= node.object.min;
}

function objectLive(node: TypedNode, seen: string, count: number): boolean {
  return canClose(node, seen, count) || allowedDeclared(node, seen, count).length > 0 || extrasAllowed(node, seen, count);
}

const prefixMemo = new WeakMap<TypedNode, Map<string, Set<string>>>();
/** Whether a name spelt so far can still become a name the object takes here. */
function nameLive(object: ObjectFrame, spelt: string, patternStates: readonly number[]): boolean {
  const node = object.node;
  if (extrasAllowed(node, object.seen, object.count)) {
    const rule = node.object;
    // Undeclared names must match a pattern where no other name is allowed.
    if (rule.additional.kind !== 'never') return true;
    if (rule.patterns.some((pattern, i) => patternStates[i]! >= 0 && pattern.automaton.canFinish(patternStates[i]!, 0, Infinity))) return true;
  }
  return declaredPrefixes(object).has(spelt);
}

/**
 * A name's spelling once it can no longer become a declared name, where any other name may come
 * with the same value schema: the rest of the name changes nothing, so it is not kept (and the
 * name's states are one, its masks made once). No byte string is spelt with char codes past 255.
 */
const FREE_NAME = '\u0100';

/**
 * Whether undeclared names may come with nothing more asked of the name itself: no rule for
 * names, and no pattern left to decide which value schema applies (none, or each has already
 * matched, as `.*` has at once).
 */
function freeNames(node: TypedNode, patternStates: readonly number[]): boolean {
  const rule = node.object;
  if (rule.names || rule.nameRule) return false;
  if (rule.patterns.length === 0) return rule.additional.kind !== 'never';
  return rule.patterns.every((pattern, i) => patternStates[i]! >= 0 && pattern.automaton.matchesAll(patternStates[i]!));
}

/**
 * Whether a name's bytes may be any (whatever value schema the name then takes): no rule for
 * names, and names no pattern matches taken too, or every pattern matched already.
 */
function anyNameSpelt(node: TypedNode, patternStates: readonly number[]): boolean {
  const rule = node.object;
  if (rule.names || rule.nameRule) return false;
  return rule.additional.kind !== 'never' || (rule.patterns.length > 0 && rule.patterns.every((pattern, i) => patternStates[i]! >= 0 && pattern.automaton.matchesAll(patternStates[i]!)));
}

const allPrefixMemo = new WeakMap<TypedNode, Set<string>>();
/** Every beginning (as bytes) of every declared name. */
function allPrefixes(node: TypedNode): Set<string> {
  let found = allPrefixMemo.get(node);
  if (!found) {
    found = new Set();
    for (const property of node.object.properties) {
      const bytes = asBytes(property.spelling);
      for (let i = 0; i <= bytes.length; i++) found.add(bytes.slice(0, i));
    }
    allPrefixMemo.set(node, found);
  }
  return found;
}

/** Every beginning (as bytes) of the declared names that may come next in this object. */
function declaredPrefixes(object: ObjectFrame): Set<string> {
  const node = object.node;
  let memo = prefixMemo.get(node);
  if (!memo) prefixMemo.set(node, (memo = new Map()));
  const key = `${object.seen}.${object.count}`;
  let prefixes = memo.get(key);
  if (!prefixes) {
    prefixes = new Set();
    for (const j of allowedDeclared(node, object.seen, object.count)) {
      const bytes = asBytes(node.object.properties[j]!.spelling);
      for (let i = 0; i <= bytes.length; i++) prefixes.add(bytes.slice(0, i));
    }
    memo.set(key, prefixes);
  }
  return prefixes;
}

const NAME_RULE: StringRule = { min: 0, max: Infinity, automata: [], sources: [] };

function objectByte(frame: ObjectFrame, byte: number, out: Frame[]): void {
  const node = frame.node;
  switch (frame.phase) {
    case 0:
    case 3:
      if (byte === 0x7d /* } */) {
        if (canClose(node, frame.seen, frame.count)) complete(frame.parent, out);
        return;
      }
      if (frame.phase === 0) return openName(frame, byte, out);
      if (byte === 0x2c /* , */ && (allowedDeclared(node, frame.seen, frame.count).length > 0 || extrasAllowed(node, frame.seen, frame.count))) out.push({ ...frame, key: undefined, phase: 1 });
      return;
    case 1:
      return openName(frame, byte, out);
    case 2:
      if (byte === 0x3a /* : */) out.push({ t: 'value', node: frame.value!, parent: { ...frame, key: undefined, phase: 3, value: undefined } });
      return;
  }
}

function openName(frame: ObjectFrame, byte: number, out: Frame[]): void {
  if (byte !== 0x22) return;
  const node = frame.node;
  const extras = extrasAllowed(node, frame.seen, frame.count);
  if (!extras && allowedDeclared(node, frame.seen, frame.count).length === 0) return;
  const rule = node.object.nameRule ?? NAME_RULE;
  out.push(freshString(rule, frame, { object: frame, spelt: '' }, node.object.patterns.map((p) => p.automaton)));
}

// ---- arrays ----

function itemNode(rule: ArrayRule, index: number): Node {
  return rule.prefix[index] ?? rule.items;
}

function arrayByte(frame: ArrayFrame, byte: number, out: Frame[]): void {
  const rule = frame.rule;
  if (frame.phase !== 1 && byte === 0x5d /* ] */) {
    if (frame.count >= rule.min) complete(frame.parent, out);
    return;
  }
  const canAdd = frame.count < rule.max && itemNode(rule, frame.count).kind !== 'never';
  if (frame.phase === 3) {
    if (byte === 0x2c && canAdd) out.push({ ...frame, key: undefined, phase: 1 });
    return;
  }
  if (canAdd) start(itemNode(rule, frame.count), { ...frame, key: undefined, phase: 3, count: frame.count + 1 }, byte, out, 0);
}

// ---- numbers ----

/** Where a number's text stands: what may come next. */
function numberShape(text: string): 'sign' | 'zero' | 'int' | 'dot' | 'frac' | 'e' | 'esign' | 'exp' | 'empty' {
  if (text === '') return 'empty';
  if (text === '-') return 'sign';
  if (/e[+-]?\d+$/i.test(text)) return 'exp';
  if (/e[+-]$/i.test(text)) return 'esign';
  if (/e$/i.test(text)) return 'e';
  if (/\.\d+$/.test(text)) return 'frac';
  if (text.endsWith('.')) return 'dot';
  if (/^-?0$/.test(text)) return 'zero';
  return 'int';
}

function numberByte(frame: NumberFrame, byte: number, out: Frame[]): void {
  const shape = numberShape(frame.text);
  const char = String.fromCharCode(byte);
  const digit = byte >= 0x30 && byte <= 0x39;
  let ok = false;
  switch (shape) {
    case 'empty':
      ok = digit || char === '-';
      break;
    case 'sign':
      ok = digit;
      break;
    case 'zero':
      ok = (char === '.' && !frame.integers) || ((char === 'e' || char === 'E') && exponents(frame));
      break;
    case 'int':
      ok = digit || (char === '.' && !frame.integers) || ((char === 'e' || char === 'E') && exponents(frame));
      break;
    case 'dot':
      ok = digit;
      break;
    case 'frac':
      ok = digit || ((char === 'e' || char === 'E') && exponents(frame));
      break;
    case 'e':
      ok = digit || char === '+' || char === '-';
      break;
    case 'esign':
    case 'exp':
      ok = digit;
      break;
  }
  if (ok) {
    const text = frame.text + char;
    if (!frame.range || viable(text, frame.range)) out.push({ ...frame, key: undefined, text: frame.range ? text : shapeText(text) });
    return;
  }
  if (numberEnds(frame)) after(frame.parent, byte, out);
}

/** Exponents only where no range is kept (a bound on `1e400` is not worth the arithmetic). */
function exponents(frame: NumberFrame): boolean {
  return !frame.range && !frame.integers;
}

/** A stand-in text with the same shape, so unbounded numbers in the same shape have equal states. */
function shapeText(text: string): string {
  switch (numberShape(text)) {
    case 'sign':
      return '-';
    case 'zero':
      return '0';
    case 'int':
      return '1';
    case 'dot':
      return '1.';
    case 'frac':
      return '1.1';
    case 'e':
      return '1e';
    case 'esign':
      return '1e+';
    case 'exp':
      return '1e1';
    default:
      return text;
  }
}

function numberEnds(frame: NumberFrame): boolean {
  const shape = numberShape(frame.text);
  if (shape !== 'zero' && shape !== 'int' && shape !== 'frac' && shape !== 'exp') return false;
  if (!frame.range) return true;
  const value = decimalOf(frame.text);
  return value !== undefined && inRange(value, frame.range);
}

/** Whether a number begun as `text` can still be finished inside the range. */
function viable(text: string, range: NumberRange): boolean {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  // The magnitudes the finished number may have, as intervals [lo, hi) (hi undefined: no end).
  const intervals: [Decimal, Decimal | undefined][] = [];
  if (body === '') intervals.push([{ m: 0n, e: 0 }, undefined]);
  else if (body.includes('.')) {
    const frac = body.slice(body.indexOf('.') + 1);
    const low = decimalOf(frac === '' ? body.slice(0, -1) : body)!;
    intervals.push([low, add(low, tenTo(-frac.length))]);
  } else if (body === '0') intervals.push([{ m: 0n, e: 0 }, { m: 1n, e: 0 }]);
  else {
    const int = decimalOf(body)!;
    const far = negative ? (range.min ? negate(range.min) : undefined) : range.max;
    // More digits multiply the magnitude by ten each: every such interval up to the far bound.
    for (let k = 0; ; k++) {
      const scale = tenTo(k);
      const low = times(int, scale);
      if (far === undefined || compare(low, far) > 0) {
        if (far === undefined) intervals.push([low, undefined]);
        break;
      }
      intervals.push([low, times(add(int, { m: 1n, e: 0 }), scale)]);
      if (k > 400) break;
    }
  }
  for (const [lo, hi] of intervals) {
    const ok = negative ? meets(hi === undefined ? undefined : negate(hi), true, negate(lo), false, range) : meets(lo, false, hi, true, range);
    if (ok) return true;
  }
  return false;
}
