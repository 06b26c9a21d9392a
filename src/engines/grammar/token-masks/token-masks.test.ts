// Token masks from a byte matcher, compared with the brute-force mask (every token's bytes stepped
// one by one) along random walks: on a small vocabulary made to hold the awkward tokens (parts of
// UTF-8 characters, quotes, backslashes and escapes, specials, stops, empty and duplicate tokens),
// and on Qwen3's. The masks must be equal, bit for bit, with and without the string-body table.
import { describe, expect, it } from 'vitest';
import type { ByteMatcher, MatchState } from '../byte-matcher.ts';
import { tokenBytes, type Vocabulary } from '../vocabulary.ts';
import { bruteMask, differences, objectMatcher, qwenVocabulary, stringMatcher } from './test-matchers.ts';
import { createTokenMasks, type TokenMasks } from './token-masks.ts';

/** GPT-2's byte-level spelling of each byte. */
const BYTE_CHARS: string[] = [];
{
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    BYTE_CHARS.push(String.fromCharCode(printable ? b : 256 + extra++));
  }
}
const spell = (bytes: ArrayLike<number>) => Array.from(bytes, (b) => BYTE_CHARS[b]!).join('');
const utf8 = (text: string) => new TextEncoder().encode(text);

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Pieces a token is made of: structure, text, escapes whole and cut, characters whole and cut, bad bytes. */
const PIECES: Uint8Array[] = [
  ...['{', '}', '[', ']', ',', ':', '"', '"a"', '"ab"', '"b"', '":', '",', '"}', '":"', 'a', 'b', 'ab', 'true', 'false', 'tr', 'ue', 'fal', '-', '0', '12', ' ', 'xyz', '\\', '\\"', '\\\\', '\\n', '\\t', '\\u', '\\u00', '\\u001', '\\u001f', '\\u000b', '\\u0008', '\\u000A', '\\u001A', '\\u001a', '\\u000e', '\\u000c', '\\u00e9', '\\/', 'A', 'e', '1', 'é', '€', '😀', '\u007f'].map(utf8),
  Uint8Array.of(0x0a),
  Uint8Array.of(0x09),
  Uint8Array.of(0x00),
  Uint8Array.of(0xc3), // é's first byte
  Uint8Array.of(0xa9), // and its last
  Uint8Array.of(0xe2, 0x82), // € cut
  Uint8Array.of(0xac),
  Uint8Array.of(0xf0, 0x9f),
  Uint8Array.of(0x98, 0x80),
  Uint8Array.of(0xef, 0xbb, 0xbf), // a byte order mark
  Uint8Array.of(0xed, 0xa0, 0x80), // a surrogate
  Uint8Array.of(0xc0, 0x80), // overlong
  Uint8Array.of(0xff),
];

/** 256 byte tokens, then random joins of pieces, then specials, stops, an empty token, a duplicate; padded logits. */
function syntheticVocabulary(seed: number, count: number): Vocabulary {
  const next = random(seed);
  const tokens = [...BYTE_CHARS];
  for (let k = 0; k < count; k++) {
    const parts: number[] = [];
    const pieces = 1 + Math.floor(next() * 4);
    for (let p = 0; p < pieces; p++) parts.push(...PIECES[Math.floor(next() * PIECES.length)]!);
    tokens.push(spell(parts));
  }
  const special = tokens.push('<|im_start|>') - 1;
  const stopSpecial = tokens.push('<|im_end|>') - 1;
  const stop = tokens.push('<|endoftext|>') - 1;
  tokens.push('');
  tokens.push(spell(utf8('":"')));
  tokens.push('<tool_call>'); // an added token not marked special: plain text
  return { tokens, type: 'byte_level', prependSpace: false, size: tokens.length + 40, stopTokenIds: [stopSpecial, stop], specialTokenIds: [special, stopSpecial] };
}

const has = (mask: Int32Array, id: number) => ((mask[id >> 5]! >>> (id & 31)) & 1) === 1;
const STRUCTURE = new Set([...'"{}[],:'].map((char) => char.charCodeAt(0)));

/**
 * Random walks through a matcher's states by tokens its masks allow (half the time one that
 * touches structure, so walks leave their strings), checking at each state the mask with the
 * string-body table, the mask of the walk alone (the same matcher without `stringBody`) and the
 * constraint's own, against the brute-force mask. Returns the states checked.
 */
function checkWalks(vocabulary: Vocabulary, masks: TokenMasks, make: (withStringBody: boolean) => ByteMatcher, options: { walks: number; steps: number; seed: number }): number {
  const spelled = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
  const next = random(options.seed);
  const fast = make(true);
  const plain = make(false);
  let checked = 0;
  for (let walk = 0; walk < options.walks; walk++) {
    const constraint = masks.constraint(fast);
    let withBody = fast.start;
    let without = plain.start;
    for (let step = 0; step < options.steps && !constraint.terminated; step++) {
      const expected = bruteMask(vocabulary, spelled, plain, without);
      expect(differences(masks.mask(fast, withBody), expected), `walk ${walk} step ${step} (table)`).toEqual([]);
      expect(differences(masks.mask(plain, without), expected), `walk ${walk} step ${step} (walk)`).toEqual([]);
      expect(differences(constraint.mask()!, expected), `walk ${walk} step ${step} (constraint)`).toEqual([]);
      checked++;
      const allowed: number[] = [];
      for (let id = 0; id < vocabulary.tokens.length; id++) if (has(expected, id)) allowed.push(id);
      expect(allowed.length).toBeGreaterThan(0); // no dead end
      const structural = allowed.filter((id) => spelled[id]!.some((byte) => STRUCTURE.has(byte)) || vocabulary.stopTokenIds.includes(id));
      const pool = structural.length > 0 && next() < 0.5 ? structural : allowed;
      const token = pool[Math.floor(next() * pool.length)]!;
      expect(constraint.accept(token)).toBe(true);
      if (vocabulary.stopTokenIds.includes(token)) break;
      for (const byte of spelled[token]!) {
        withBody = fast.step(withBody, byte)!;
        without = plain.step(without, byte)!;
      }
    }
  }
  return checked;
}

describe('token masks on a small vocabulary', () => {
  const vocabulary = syntheticVocabulary(7, 1500);
  const masks = createTokenMasks(vocabulary);

  it('equal the brute-force masks along random walks of the object language', () => {
    const checked = checkWalks(vocabulary, masks, (withBody) => objectMatcher({ min: 2, max: 5 }, withBody), { walks: 40, steps: 40, seed: 1 });
    expect(checked).toBeGreaterThan(400);
  });

  it('equal them for short bounded strings, where a token with one character too many is refused', () => {
    for (const [min, max] of [
      [0, 0],
      [0, 1],
      [1, 2],
      [3, 3],
      [0, Infinity],
    ] as const) {
      checkWalks(vocabulary, masks, (withBody) => stringMatcher(min, max, withBody), { walks: 15, steps: 12, seed: 10 + min + max });
    }
  });

  it('never allow a special token, an empty token or an id past the vocabulary', () => {
    const matcher = stringMatcher(0, Infinity);
    const body = matcher.step(matcher.start, 0x22)!;
    const mask = masks.mask(matcher, body);
    const specials = vocabulary.specialTokenIds!;
    for (const id of [specials[0]!, vocabulary.tokens.indexOf('')]) expect(has(mask, id)).toBe(false);
    for (let id = vocabulary.tokens.length; id < vocabulary.size; id++) expect(has(mask, id)).toBe(false);
    expect(has(mask, vocabulary.tokens.indexOf('<tool_call>'))).toBe(true); // not special: text
  });

  it('catch a mask that lets one forbidden token through (a string body that claims one character more)', () => {
    // The planted defect: the matcher's stringBody says one more character is allowed than its
    // steps take, so the table lets in the inside tokens one character too long.
    const honest = stringMatcher(0, 2);
    const lying: ByteMatcher = {
      ...honest,
      stringBody: (state) => {
        const body = honest.stringBody!(state);
        return body && { ...body, max: body.max + 1 };
      },
    };
    const spelled = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
    const body = honest.step(honest.start, 0x22)!;
    const wrong = differences(masks.mask(lying, body), bruteMask(vocabulary, spelled, honest, body));
    expect(wrong.length).toBeGreaterThan(0);
    expect(differences(masks.mask(honest, body), bruteMask(vocabulary, spelled, honest, body))).toEqual([]);
    // And one bit flipped in a right mask is one difference.
    const right = masks.mask(honest, body).slice();
    const forbidden = vocabulary.specialTokenIds![0]!;
    right[forbidden >> 5]! |= 1 << (forbidden & 31);
    expect(differences(right, bruteMask(vocabulary, spelled, honest, body))).toEqual([forbidden]);
  });

  it('take stop tokens only where the output may end, and nothing after', () => {
    const matcher = objectMatcher({ min: 0, max: 3 });
    const constraint = masks.constraint(matcher);
    const [stopSpecial, stop] = vocabulary.stopTokenIds as [number, number];
    const special = vocabulary.specialTokenIds![0]!;
    expect(constraint.accept(stop)).toBe(false);
    expect(constraint.accept(special)).toBe(false);
    expect(constraint.accept(vocabulary.size - 1)).toBe(false); // padding
    expect(constraint.accept('x'.charCodeAt(0))).toBe(false); // not allowed at the start
    expect(constraint.accept('{'.charCodeAt(0))).toBe(true); // the refusals above left the state as it was
    expect(has(constraint.mask()!, stop)).toBe(false);
    expect(constraint.accept('}'.charCodeAt(0))).toBe(true);
    expect(has(constraint.mask()!, stop)).toBe(true);
    expect(constraint.terminated).toBe(false);
    expect(constraint.accept(stopSpecial)).toBe(true);
    expect(constraint.terminated).toBe(true);
    expect(constraint.accept(stop)).toBe(false);
  });

  it('give the same mask for states with the same key, from the matcher\'s kept masks', async () => {
    const matcher = objectMatcher({ min: 0, max: 3 });
    const one = masks.constraint(matcher);
    const two = masks.constraint(matcher);
    await one.ready();
    for (const byte of utf8('{"ab":[true,')) expect(one.accept(byte)).toBe(true);
    for (const byte of utf8('{"ab":[false,true,')) expect(two.accept(byte)).toBe(true);
    expect(one.mask()).toBe(two.mask());
  });

  it('tell the bytes forced from a state', () => {
    const matcher = objectMatcher({ min: 0, max: 3 });
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    const after = (from: MatchState, spelled: string) => [...utf8(spelled)].reduce<MatchState>((state, byte) => matcher.step(state, byte)!, from);
    expect(text(masks.forced(matcher, matcher.start))).toBe('{');
    expect(text(masks.forced(matcher, after(matcher.start, '{"b')))).toBe('":');
    expect(text(masks.forced(matcher, after(matcher.start, '{"ab":[t')))).toBe('rue');
    expect(text(masks.forced(matcher, after(matcher.start, '{"b":')))).toBe('');
    expect(text(masks.forced(matcher, after(matcher.start, '{}')))).toBe(''); // it may end
    const one = stringMatcher(0, 0);
    expect(text(masks.forced(one, one.start))).toBe('""');
  });
});

describe("token masks on Qwen3's vocabulary", () => {
  const vocabulary = qwenVocabulary();
  const masks = createTokenMasks(vocabulary);

  it('equal the brute-force masks along random walks', { timeout: 120_000 }, () => {
    const checked = checkWalks(vocabulary, masks, (withBody) => objectMatcher({ min: 1, max: 24 }, withBody), { walks: 6, steps: 12, seed: 3 });
    expect(checked).toBeGreaterThan(30);
  });

  it('equal them in a bounded string, its bound met one token at a time', { timeout: 120_000 }, () => {
    checkWalks(vocabulary, masks, (withBody) => stringMatcher(2, 6, withBody), { walks: 3, steps: 6, seed: 4 });
  });

  it('leave the specials out but the stop tokens where the output may end', () => {
    const matcher = objectMatcher({ min: 0, max: 3 });
    const end = [...utf8('{}')].reduce<MatchState>((state, byte) => matcher.step(state, byte)!, matcher.start);
    const mask = masks.mask(matcher, end);
    const allowed: number[] = [];
    for (let id = 0; id < vocabulary.size; id++) if (has(mask, id)) allowed.push(id);
    expect(allowed).toEqual([...vocabulary.stopTokenIds].sort((a, b) => a - b));
  });
});
