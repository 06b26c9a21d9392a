import { describe, expect, it } from 'vitest';
import { TokenStreamer } from './token-streamer.ts';

// A byte-level "tokenizer": each id is one byte, so characters span tokens.
const bytes = { decode: (ids: number[]) => new TextDecoder().decode(Uint8Array.from(ids)) };

function stream(ids: number[], endTokenIds: number[] = []): { texts: string[]; sawEnd: boolean } {
  const texts: string[] = [];
  const streamer = new TokenStreamer({ tokenizer: bytes, endTokenIds: new Set(endTokenIds), onToken: (t) => texts.push(t) });
  streamer.put([[0n]]); // the prompt
  for (const id of ids) streamer.put([[BigInt(id)]]);
  streamer.end();
  return { texts, sawEnd: streamer.sawEnd };
}

describe('TokenStreamer', () => {
  it('emits one event per token and holds split characters until complete', () => {
    const ids = [...new TextEncoder().encode('a€b')];
    expect(stream(ids).texts).toEqual(['a', '', '', '€', 'b']);
  });

  it('flushes an incomplete trailing character so the deltas equal the full decode', () => {
    const ids = [0x61, 0xe2, 0x82];
    const { texts } = stream(ids);
    expect(texts).toHaveLength(3);
    expect(texts.join('')).toBe(bytes.decode(ids));
  });

  it('does not emit the end token as a token', () => {
    expect(stream([0x68, 0x69, 0xff], [0xff])).toEqual({ texts: ['h', 'i'], sawEnd: true });
  });
});
