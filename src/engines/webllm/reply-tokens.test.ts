import { describe, expect, it } from 'vitest';
import { ReplyTokens } from './reply-tokens.ts';

/** Feeds deltas as web-llm streams them, then its end; returns the token texts in order and the end. */
function run(stops: string[], deltas: string[], reason: string, completionTokens: number, reply?: { decoded: string; message: string }) {
  const tokens = new ReplyTokens(stops);
  const texts: string[][] = deltas.map((delta) => tokens.push(delta));
  const end = tokens.finish(reason, completionTokens, reply);
  return { perDelta: texts, texts: [...texts.flat(), ...end.texts], end };
}

describe('ReplyTokens without stop strings', () => {
  it('one token per delta; the stop token step is dropped; steps that streamed nothing are added from usage', () => {
    const { texts, end } = run([], ['Hel', 'lo', ''], 'stop', 3, { decoded: 'Hello', message: 'Hello' });
    expect(texts).toEqual(['Hel', 'lo']);
    expect(end).toEqual({ texts: [], message: 'Hello', kept: 2 });
    // Half a UTF-8 character streams no delta: counted from usage as ''.
    expect(run([], ['x', 'é', ''], 'stop', 4).texts).toEqual(['x', 'é', '']);
  });

  it('a reply cut by max_tokens inside a character: its half is never sent (web-llm decodes it as U+FFFD and streams nothing)', () => {
    const { texts } = run([], ['"'], 'length', 2, { decoded: '"\uFFFD', message: '"\uFFFD' });
    expect(texts).toEqual(['"', '']);
  });

  it('an empty delta is a token when the reply goes on, or ends on length', () => {
    expect(run([], ['a', '', 'b'], 'length', 3).texts).toEqual(['a', '', 'b']);
    expect(run([], ['a', ''], 'length', 2).texts).toEqual(['a', '']);
  });

  it('a cut at a stop string of the template (message shorter than the tokens): the last step was a token', () => {
    const { texts, end } = run([], ['Hi', ''], 'stop', 2, { decoded: 'Hi<|im_end|>', message: 'Hi' });
    expect(texts).toEqual(['Hi', '']);
    expect(end).toMatchObject({ message: 'Hi', kept: 1 });
    expect(end.stopSequence).toBeUndefined();
  });
});

describe('ReplyTokens with the stop strings web-llm stops at', () => {
  it('holds back text that could begin one, with its token, and releases both when the reply goes on', () => {
    const tokens = new ReplyTokens(['END']);
    expect(tokens.push('Hello')).toEqual(['Hello']);
    expect(tokens.push(' E')).toEqual([]);
    expect(tokens.push('x')).toEqual([' ', 'Ex']);
    expect(tokens.emitted).toBe(3);
  });

  it('a stop string across tokens: nothing of it is sent; the last token counts; the stop string is said', () => {
    // web-llm streamed "Hello", " E", "N" then cut its message before " END" ("D!" completed it).
    const { texts, end } = run(['END'], ['Hello', ' E', 'N', ''], 'stop', 4, { decoded: 'Hello END!', message: 'Hello ' });
    expect(texts.join('')).toBe('Hello ');
    expect(texts).toHaveLength(4);
    expect(end).toMatchObject({ stopSequence: 'END', message: 'Hello ', kept: 3 });
  });

  it('text of the last token before its stop string is sent with it', () => {
    // The last token was "x END": web-llm streamed "x", cut before " END".
    const { texts, end } = run([' END'], ['a', 'x', ''], 'stop', 3, { decoded: 'ax END', message: 'ax' });
    expect(texts).toEqual(['a', 'x', '']);
    expect(end).toMatchObject({ stopSequence: ' END', kept: 2 });
  });

  it("the earliest stop string wins, by the gateway's rule, where web-llm's own rule picks another", () => {
    // Last token "ab": web-llm tries "b" first (by its order, at its last occurrence) and records "xa".
    const { texts, end } = run(['b', 'a'], ['x', ''], 'stop', 2, { decoded: 'xab', message: 'xa' });
    expect(texts.join('')).toBe('x');
    expect(end).toMatchObject({ stopSequence: 'a', message: 'xa' });
  });

  it('held-back text that turns out to be the answer comes out at a natural end, with the last token', () => {
    const { texts, end } = run(['END'], ['Hello', ' EN', ''], 'stop', 3, { decoded: 'Hello EN', message: 'Hello EN' });
    expect(texts).toEqual(['Hello', ' EN']);
    expect(end.stopSequence).toBeUndefined();
    expect(end.kept).toBe(2);
  });

  it('a stop string with the token that reached max_tokens: sent whole, for the gateway to cut', () => {
    const { texts, end } = run(['END'], ['Hello', ' E', ''], 'length', 3, { decoded: 'Hello END', message: 'Hello ' });
    expect(texts).toEqual(['Hello', ' ', 'END']);
    expect(end.stopSequence).toBeUndefined();
  });

  it('a stop string web-llm streamed whole (two in one token): cut there, nothing after it', () => {
    // Last token "ENDxEND": web-llm cut at the last "END" and streamed "ENDx".
    const { texts, end } = run(['END'], ['a', 'ENDx'], 'stop', 2, { decoded: 'aENDxEND', message: 'aENDx' });
    expect(texts.join('')).toBe('a');
    expect(texts).toHaveLength(2);
    expect(end).toMatchObject({ stopSequence: 'END', message: 'aENDx', kept: 1 });
  });
});
