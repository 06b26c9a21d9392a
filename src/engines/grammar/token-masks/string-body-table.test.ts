// The string-body table's reading of a token, compared with the test matcher's (which decodes
// each character whole and compares escapes with JSON.stringify's) over every one- and two-byte
// string, every `\u00` escape's last two bytes, and the three-byte forms around UTF-8's edges.
import { describe, expect, it } from 'vitest';
import type { MatchState } from '../byte-matcher.ts';
import { stringMatcher } from './test-matchers.ts';
import { buildStringBodyTable, CLOSES, INSIDE, INVALID } from './string-body-table.ts';
import { TEXT, type TokenBytes } from './token-trie.ts';

/** Token bytes for a list of byte strings, all text. */
function bytesOf(strings: readonly (readonly number[])[]): TokenBytes {
  const offset = new Uint32Array(strings.length + 1);
  strings.forEach((bytes, id) => (offset[id + 1] = offset[id]! + bytes.length));
  return { data: Uint8Array.from(strings.flat()), offset, kind: new Uint8Array(strings.length).fill(TEXT) };
}
const utf8 = (text: string) => [...new TextEncoder().encode(text)];

/** The test matcher's reading: inside with its characters, closing after some, or invalid. */
function expected(bytes: readonly number[]): { kind: number; count: number } {
  const matcher = stringMatcher(0, Infinity);
  let state: MatchState | undefined = matcher.step(matcher.start, 0x22)!;
  let count = 0;
  for (const byte of bytes) {
    const body = matcher.stringBody!(state!);
    if (byte === 0x22 && body) return { kind: CLOSES, count };
    if (body) count++; // a character (or escape) begins
    state = matcher.step(state!, byte);
    if (state === undefined) return { kind: INVALID, count: 0 };
  }
  return { kind: INSIDE, count };
}

describe('the string-body table', () => {
  it('reads every short byte string as the independent matcher does', () => {
    const strings: number[][] = [];
    for (let a = 0; a < 256; a++) {
      strings.push([a]);
      for (let b = 0; b < 256; b++) strings.push([a, b]);
    }
    for (let a = 0; a < 256; a++) for (let b = 0; b < 256; b++) strings.push([...utf8('\\u00'), a, b]);
    for (const lead of [0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4, 0xf5]) for (let b = 0x70; b < 0xd0; b++) for (const c of [0x22, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0]) strings.push([lead, b, c]);
    const table = buildStringBodyTable(bytesOf(strings), Math.ceil(strings.length / 32));
    const wrong: string[] = [];
    strings.forEach((bytes, id) => {
      const want = expected(bytes);
      const got = { kind: table.kind[id]!, count: table.kind[id] === INVALID ? 0 : table.count[id]! };
      if (got.kind !== want.kind || got.count !== want.count) wrong.push(`${bytes.map((b) => b.toString(16)).join(' ')}: ${JSON.stringify(got)} not ${JSON.stringify(want)}`);
    });
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it('counts characters, escapes and a character left unfinished as one each', () => {
    const cases: [string | number[], number, number][] = [
      ['abc', INSIDE, 3],
      ['é€😀', INSIDE, 3],
      ['\\n\\u001f\\"', INSIDE, 3],
      ['a\\u00', INSIDE, 2], // an escape begun
      [[0x61, 0xe2, 0x82], INSIDE, 2], // € begun
      ['ab"cd', CLOSES, 2],
      ['"', CLOSES, 0],
      ['\\""', CLOSES, 1],
      ['\\u0008', INVALID, 0], // \b has a short form
      ['\\u000A', INVALID, 0], // uppercase hex
      ['\\u0041', INVALID, 0], // not a control character
      ['\\/', INVALID, 0],
      ['a\tb', INVALID, 0],
      [[0xc0, 0x80], INVALID, 0],
    ];
    const bytes = bytesOf(cases.map(([text]) => (typeof text === 'string' ? utf8(text) : text)));
    const table = buildStringBodyTable(bytes, 1);
    cases.forEach(([text, kind, count], id) => {
      expect([table.kind[id], table.kind[id] === INVALID ? 0 : table.count[id]], String(text)).toEqual([kind, count]);
    });
    expect(table.restStart[5]! - bytes.offset[5]!).toBe(3); // 'ab"cd': its rest is 'cd'
  });

  it('keeps, for a bound, the inside tokens of at most that many characters', () => {
    const table = buildStringBodyTable(bytesOf(['a', 'ab', 'abc', '"', 'a\\u00'].map(utf8)), 1);
    const ids = (mask: Int32Array) => [0, 1, 2, 3, 4].filter((id) => (mask[0]! >>> id) & 1);
    expect(ids(table.inside(0))).toEqual([]);
    expect(ids(table.inside(1))).toEqual([0]);
    expect(ids(table.inside(2))).toEqual([0, 1, 4]);
    expect(ids(table.inside(Infinity))).toEqual([0, 1, 2, 4]);
  });

  it('gives the same masks for small bounds (made with the table) and large ones (made when asked)', () => {
    // Tokens of 1 to 40 characters, some twice, a closing one among them.
    const strings = Array.from({ length: 60 }, (_, id) => (id === 7 ? 'x"' : 'é'.repeat(1 + (id % 40))));
    const table = buildStringBodyTable(bytesOf(strings.map(utf8)), 2);
    const ids = (mask: Int32Array) => strings.map((_, id) => id).filter((id) => (mask[id >> 5]! >>> (id & 31)) & 1);
    for (const bound of [0, 1, 5, 15, 16, 17, 30, 39, 40, 41, 17, Infinity]) {
      expect(ids(table.inside(bound)), `bound ${bound}`).toEqual(strings.map((_, id) => id).filter((id) => id !== 7 && 1 + (id % 40) <= bound));
    }
  });
});
