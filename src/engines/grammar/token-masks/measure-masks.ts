/**
 * How long the token masks take on Qwen3's vocabulary (152K tokens): building the trie and the
 * string-body table, and one mask in the states that matter: a free string's body, a bounded
 * string counting down, a structural state, a value that may be a string or a number, and each
 * state along random walks. A measurement, not a test (no product code imports it):
 *
 *   npx node src/engines/grammar/token-masks/measure-masks.ts
 *
 * The matchers are the tests' (test-matchers.ts), which make a new state object per byte: a
 * schema's own matcher may step faster or slower, which moves the walk's figures, not the table's.
 * @module
 */
import type { ByteMatcher, MatchState } from '../byte-matcher.ts';
import { tokenBytes } from '../vocabulary.ts';
import { objectMatcher, qwenVocabulary, stringMatcher } from './test-matchers.ts';
import { createTokenMasks, type TokenMasks } from './token-masks.ts';
import { buildVocabularyTrie } from './token-trie.ts';

const utf8 = (text: string) => [...new TextEncoder().encode(text)];
const after = (matcher: ByteMatcher, text: string): MatchState => utf8(text).reduce<MatchState>((state, byte) => matcher.step(state, byte)!, matcher.start);

function time(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

function summary(name: string, times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(3);
  console.log(`${name.padEnd(58)} n=${String(times.length).padStart(4)}  p50 ${at(0.5)} ms  p99 ${at(0.99)} ms  max ${sorted.at(-1)!.toFixed(3)} ms`);
}

/** Masks of one state, computed afresh each time (no kept masks), after a few to warm up. */
function repeated(masks: TokenMasks, matcher: ByteMatcher, state: MatchState, runs: number): number[] {
  const out = new Int32Array(masks.words);
  for (let run = 0; run < 5; run++) masks.mask(matcher, state, out);
  return Array.from({ length: runs }, () => time(() => masks.mask(matcher, state, out)));
}

const vocabulary = qwenVocabulary();
const builds: number[] = [];
const tries: number[] = [];
let masks: TokenMasks | undefined;
for (let run = 0; run < 5; run++) {
  tries.push(time(() => buildVocabularyTrie(vocabulary)));
  builds.push(time(() => (masks = createTokenMasks(vocabulary))));
}
console.log(`trie alone, first build ${tries[0]!.toFixed(1)} ms`);
summary('trie alone (5 builds)', tries);
console.log(`trie + table, first build ${builds[0]!.toFixed(1)} ms`);
summary('trie + table (5 builds)', builds);
const m = masks!;

const free = stringMatcher(0, Infinity);
summary('(a) free string body', repeated(m, free, after(free, '"'), 200));

const bounded = stringMatcher(0, 400);
const counting: number[] = [];
const out = new Int32Array(m.words);
// Warm up on another bound's masks, so the first pass below is the table's first (not the code's).
const warm = stringMatcher(0, 1000);
for (let chars = 0; chars <= 200; chars++) m.mask(warm, after(warm, '"' + 'b'.repeat(chars) + 'a'.repeat(chars)), out);
for (let chars = 0; chars <= 400; chars++) counting.push(time(() => m.mask(bounded, after(bounded, '"' + 'a'.repeat(chars)), out)));
summary('(b) body of at most 400 characters, 0..400 written (first)', counting);
const again: number[] = [];
for (let chars = 0; chars <= 400; chars++) again.push(time(() => m.mask(bounded, after(bounded, '"' + 'a'.repeat(chars)), out)));
summary('(b) the same again (bound masks kept)', again);

const object = objectMatcher({ min: 1, max: 40 });
summary('(c) after `{`: a key from "a", "ab", "b", or `}`', repeated(m, object, after(object, '{'), 200));
summary('(c) after `{"a`: `"` or `b`', repeated(m, object, after(object, '{"a'), 200));
summary('(c) in an array of booleans, after `[true,`', repeated(m, object, after(object, '{"ab":[true,'), 200));
summary('(d) after `{"b":`: a string or an integer', repeated(m, object, after(object, '{"b":'), 200));
summary('(d) after `{"b":1`: digits, `,` or `}`', repeated(m, object, after(object, '{"b":1'), 200));

// A string whose body the matcher does not declare (as a pattern's would be): every byte stepped.
const undeclared = stringMatcher(0, Infinity, false);
summary('(e) free string body, not declared: the walk alone', repeated(m, undeclared, after(undeclared, '"'), 20));

// First masks of new matchers (no kept masks, bound masks of a fresh table).
const firsts: number[] = [];
for (let run = 0; run < 20; run++) {
  const fresh = objectMatcher({ min: 1, max: 40 + run });
  const constraint = m.constraint(fresh);
  firsts.push(time(() => constraint.mask()));
  for (const byte of utf8('{"a":"')) constraint.accept(byte);
  firsts.push(time(() => constraint.mask()));
}
summary('first masks of new matchers (start, then a new bound)', firsts);

// Every state along random walks: fresh masks, and through a constraint (kept masks).
let seed = 1;
const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const spelled = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
const structure = new Set(utf8('"{}[],:'));
const fresh: number[] = [];
const fastest: number[] = [];
const kept: number[] = [];
for (let walk = 0; walk < 20; walk++) {
  const matcher = objectMatcher({ min: 1, max: 40 });
  const constraint = m.constraint(matcher);
  let state = matcher.start;
  for (let step = 0; step < 60 && !constraint.terminated; step++) {
    const mask = out;
    fresh.push(time(() => m.mask(matcher, state, out)));
    // The least of three: the mask's own cost, without this machine's other work cutting in.
    fastest.push(Math.min(fresh.at(-1)!, ...[0, 1].map(() => time(() => m.mask(matcher, state, out)))));
    kept.push(time(() => constraint.mask()));
    const allowed: number[] = [];
    for (let id = 0; id < vocabulary.tokens.length; id++) if ((mask[id >> 5]! >>> (id & 31)) & 1) allowed.push(id);
    // Half the time a token that touches structure, so that walks leave their strings.
    const structural = allowed.filter((id) => spelled[id]!.some((byte) => structure.has(byte)) || vocabulary.stopTokenIds.includes(id));
    const pool = structural.length > 0 && next() < 0.5 ? structural : allowed;
    const token = pool[Math.floor(next() * pool.length)]!;
    constraint.accept(token);
    if (vocabulary.stopTokenIds.includes(token)) break;
    for (const byte of spelled[token]!) state = matcher.step(state, byte)!;
  }
}
summary('random walks, each state afresh', fresh);
summary('random walks, each state afresh, least of three', fastest);
summary('random walks, through a constraint (kept masks)', kept);
