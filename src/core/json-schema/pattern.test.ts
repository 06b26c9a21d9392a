/** The pattern automaton, checked against the engine's own RegExp (`u` flag) and brute force. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CharAutomaton } from './char-automaton.ts';
import { compilePattern, UnsupportedPattern } from './pattern.ts';

/** The state after `text`, or -1. */
function run(automaton: CharAutomaton, text: string): number {
  let state = automaton.start;
  for (const ch of text) {
    state = automaton.next(state, ch.codePointAt(0)!);
    if (state === -1) return -1;
  }
  return state;
}

function matches(automaton: CharAutomaton, text: string): boolean {
  const state = run(automaton, text);
  return state !== -1 && automaton.accepts(state);
}

// One character of each class the generated patterns can tell apart (letters a b c, a newline,
// a digit, a space, another line terminator, another word character, a dot, another character).
const ALPHABET = ['a', 'b', 'c', '\n', '0', ' ', '\r', 'x', '-', '.'];

const atom = fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '[^\\n]', '\\d', '\\s', '\\w', '\\D', '\\n', '[a-c0]', '[^\\w\\s]', '\\u0061', '\\x62', '\\u{63}', '\\.', '^', '$');
const quant = fc.constantFrom('', '', '', '*', '+', '?', '{2}', '{1,}', '{0,2}', '{1,3}', '*?', '+?', '??', '{2,3}?');
const { pattern } = fc.letrec<{ pattern: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { weight: 4, arbitrary: fc.tuple(atom, quant).map(([a, q]) => (a === '^' || a === '$' ? a : a + q)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('(', '(?:'), tie('pattern'), quant).map(([open, inner, q]) => `${open}${inner})${q}`) },
  ),
  pattern: fc.oneof(
    { weight: 3, arbitrary: fc.array(tie('piece'), { minLength: 0, maxLength: 4 }).map((parts) => parts.join('')) },
    { weight: 1, arbitrary: fc.array(fc.array(tie('piece'), { maxLength: 3 }).map((p) => p.join('')), { minLength: 2, maxLength: 3 }).map((alts) => alts.join('|')) },
  ),
}));
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 8 }).map((cs) => cs.join(''));

/** Whether some continuation of length in [min, max] accepts, by walking every string over ALPHABET. */
function bruteCanFinish(automaton: CharAutomaton, state: number, min: number, max: number): boolean {
  let layer = new Set([state]);
  for (let k = 0; k <= max; k++) {
    if (k >= min && [...layer].some((s) => automaton.accepts(s))) return true;
    const nextLayer = new Set<number>();
    for (const s of layer) for (const ch of ALPHABET) {
      const t = automaton.next(s, ch.codePointAt(0)!);
      if (t !== -1) nextLayer.add(t);
    }
    if (nextLayer.size === 0) return false;
    layer = nextLayer;
  }
  return false;
}

describe('compilePattern', () => {
  it('searches unanchored, and anchors with ^ and $', () => {
    const cases: [string, string, boolean][] = [
      ['abc', 'xxabcxx', true],
      ['abc', 'ab', false],
      ['^abc', 'abcx', true],
      ['^abc', 'xabc', false],
      ['abc$', 'xabc', true],
      ['abc$', 'abcx', false],
      ['^abc$', 'abc', true],
      ['^(a|b)+$', 'abba', true],
      ['^(a|b)+$', 'abca', false],
      ['^\\d{4}-\\d{2}$', '2024-01', true],
      ['^\\d{4}-\\d{2}$', '2024-1', false],
      ['^[^\\s]+$', 'a\u00a0b', false],
      ['^.$', '😀', true],
      ['^.$', '\u2028', false],
      ['^\\uD83D\\uDE00$', '😀', true],
      ['^[😀-😂]$', '😁', true],
      ['', '', true],
      ['a^', 'a', false],
      ['$^', '', true],
      ['(?:^|,)x', 'a,x', true],
      ['^(?<year>\\d{2})-(?<m>a|b)$', '12-b', true],
      ['[^]', '', false],
      ['^[]$', '', false],
    ];
    for (const [source, input, expected] of cases) {
      expect(new RegExp(source, 'u').test(input), `${source} on ${JSON.stringify(input)} (RegExp)`).toBe(expected);
      expect(matches(compilePattern(source), input), `${source} on ${JSON.stringify(input)}`).toBe(expected);
    }
  });

  it('reads classes and escapes as RegExp does, over every BMP code point and some beyond', () => {
    const sources = ['\\s', '\\S', '\\w', '\\W', '\\d', '\\D', '.', '[^\\s\\d]', '[\\b]', '\\cJ', '\\0', '[\\0-\\x1f\\u{7f}-\\u{9f}]', '[\\-a]', '[a-]', '[\\]\\\\^]', '[^]', '\\/', '[\\ud800-\\udfff]', '\\ud83d', '[\\u{1F600}-\\u{1F64F}x]'];
    const probes: number[] = [];
    for (let cp = 0; cp <= 0xffff; cp++) probes.push(cp);
    probes.push(0x10000, 0x1f600, 0x1f64f, 0x1f650, 0x10ffff);
    for (const source of sources) {
      const automaton = compilePattern(`^${source}$`);
      const regexp = new RegExp(`^${source}$`, 'u');
      for (const cp of probes) {
        const ch = String.fromCodePoint(cp);
        const [got, expected] = [matches(automaton, ch), regexp.test(ch)];
        // Asserting only on a difference keeps 65k probes per source cheap.
        if (got !== expected) expect(got, `${source} on U+${cp.toString(16)}`).toBe(expected);
      }
    }
  });

  it('refuses what it cannot represent, naming it', () => {
    const refused: [string, RegExp][] = [
      ['a(?=b)', /lookahead/],
      ['a(?!b)', /lookahead/],
      ['(?<=a)b', /lookbehind/],
      ['(?<!a)b', /lookbehind/],
      ['(a)\\1', /backreference/],
      ['(?<n>a)\\k<n>', /backreference/],
      ['\\bword\\b', /word boundary/],
      ['\\Bx', /word boundary/],
      ['\\p{L}', /property/],
      ['a{1,32767}', /repetition count/],
      ['(?:abcdefghijklmnop){999}', /automaton states/],
      ['[\\w-.]', /not a valid/],
      ['a{', /not a valid/],
    ];
    for (const [source, message] of refused) {
      expect(() => compilePattern(source), source).toThrow(UnsupportedPattern);
      expect(() => compilePattern(source), source).toThrow(message);
    }
  });

  it('agrees with RegExp on random patterns and strings', () => {
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 12 }), (source, inputs) => {
        const automaton = compilePattern(source);
        const regexp = new RegExp(source, 'u');
        for (const input of inputs) expect(matches(automaton, input), `${source} on ${JSON.stringify(input)}`).toBe(regexp.test(input));
      }),
      { numRuns: 3000 },
    );
  });

  it('never leads into a dead state, and canFinish agrees with brute force', () => {
    fc.assert(
      fc.property(pattern, text, fc.nat(5), fc.nat(5), (source, input, a, b) => {
        const automaton = compilePattern(source);
        let state = automaton.start;
        const visited = [state];
        for (const ch of input) {
          state = automaton.next(state, ch.codePointAt(0)!);
          if (state === -1) break;
          visited.push(state);
        }
        const [min, max] = [Math.min(a, b), Math.max(a, b)];
        for (const s of visited) {
          if (s !== automaton.start) expect(automaton.canFinish(s, 0, Infinity), `${source}: live`).toBe(true);
          if (s !== automaton.start) expect(bruteCanFinish(automaton, s, 0, 100), `${source}: brute live`).toBe(true);
          expect(automaton.canFinish(s, min, max), `${source} [${min},${max}]`).toBe(bruteCanFinish(automaton, s, min, max));
          expect(automaton.canFinish(s, min, Infinity), `${source} [${min},∞]`).toBe(bruteCanFinish(automaton, s, min, min + 100));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the exact lengths of bounded and periodic patterns', () => {
    const even = compilePattern('^(?:ab)*$');
    expect(even.canFinish(even.start, 3, 3)).toBe(false);
    expect(even.canFinish(even.start, 3, 4)).toBe(true);
    expect(even.canFinish(even.start, 1001, 1001)).toBe(false);
    expect(even.canFinish(even.start, 1001, Infinity)).toBe(true);
    const bounded = compilePattern('^a{2,5}$');
    expect(bounded.canFinish(bounded.start, 0, 1)).toBe(false);
    expect(bounded.canFinish(bounded.start, 6, Infinity)).toBe(false);
    expect(bounded.canFinish(bounded.start, 5, 9)).toBe(true);
    // Cycles of coprime lengths: the walk's period (2·3·5·7·11·13 = 30030) is past WALK_LIMIT,
    // so lengths beyond the cut are refused rather than guessed, and nearer ones stay exact.
    const coprime = compilePattern('^(?:(?:.{2})*|(?:.{3})*|(?:.{5})*|(?:.{7})*|(?:.{11})*|(?:.{13})*)$');
    expect(coprime.canFinish(coprime.start, 1, 1)).toBe(false);
    expect(coprime.canFinish(coprime.start, 17 * 19, 17 * 19)).toBe(false);
    expect(coprime.canFinish(coprime.start, 7 * 19, 7 * 19)).toBe(true);
    expect(coprime.canFinish(coprime.start, 2 * 3 * 5 * 7 * 11, 2 * 3 * 5 * 7 * 11)).toBe(true);
    expect(coprime.canFinish(coprime.start, 30030, 30030)).toBe(false); // true, but past the cut
    const never = compilePattern('a^');
    expect(never.canFinish(never.start, 0, Infinity)).toBe(false);
  });

  it('caches transitions: the same state object answers the same character the same way', () => {
    const automaton = compilePattern('^[a-z]+@[a-z]+\\.com$');
    const a = run(automaton, 'me@host.co');
    const b = run(automaton, 'you@site.co');
    expect(a).toBe(b);
    expect(automaton.accepts(automaton.next(a, 'm'.codePointAt(0)!))).toBe(true);
    expect(automaton.next(a, 'x'.codePointAt(0)!)).toBe(-1);
    // Not code points at all: nothing follows.
    for (const cp of [-1, 0x110000, NaN]) expect(automaton.next(automaton.start, cp)).toBe(-1);
  });

  it('collapses everything after a whole match into one state', () => {
    const automaton = compilePattern('ab');
    const after = run(automaton, 'xxab');
    expect(run(automaton, 'abyyy')).toBe(after);
    expect(run(automaton, 'zabab')).toBe(after);
    expect(automaton.canFinish(after, 0, 0)).toBe(true);
  });
});
