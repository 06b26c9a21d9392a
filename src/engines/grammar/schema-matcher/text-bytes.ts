/**
 * Free text, byte by byte, as the constrained outputs allow it outside JSON (a reply beside tool
 * calls, a thinking block): valid UTF-8, and no control character but the newline (what the
 * grammar path's UTF-8 gate allows where newlines are written). A state is 0 between characters,
 * else what the character begun still owes: its continuation bytes (low 2 bits) and the range the
 * next one must be in (the bits above, for the second byte after E0, ED, F0 and F4).
 * @module
 */

/** Between characters: where text may end. */
export const BETWEEN = 0;

/** The state after `byte`, or -1 where it cannot come. */
export function textStep(state: number, byte: number): number {
  if (state !== BETWEEN) {
    const { lo, hi } = continuation(state >> 2);
    if (byte < lo || byte > hi) return -1;
    const count = state & 3;
    return count === 1 ? BETWEEN : count - 1;
  }
  if (byte < 0x20) return byte === 0x0a ? BETWEEN : -1;
  if (byte < 0x80) return BETWEEN;
  if (byte >= 0xc2 && byte <= 0xdf) return 1;
  if (byte === 0xe0) return 2 | (1 << 2);
  if (byte === 0xed) return 2 | (2 << 2);
  if (byte >= 0xe1 && byte <= 0xef) return 2;
  if (byte === 0xf0) return 3 | (3 << 2);
  if (byte === 0xf4) return 3 | (4 << 2);
  if (byte >= 0xf1 && byte <= 0xf3) return 3;
  return -1;
}

function continuation(range: number): { lo: number; hi: number } {
  switch (range) {
    case 1:
      return { lo: 0xa0, hi: 0xbf };
    case 2:
      return { lo: 0x80, hi: 0x9f };
    case 3:
      return { lo: 0x90, hi: 0xbf };
    case 4:
      return { lo: 0x80, hi: 0x8f };
    default:
      return { lo: 0x80, hi: 0xbf };
  }
}
