import { describe, expect, it } from 'vitest';
import { ReasoningSplitter, type ReasoningFormat } from './reasoning.ts';

const QWEN3: ReasoningFormat = { open: '<think>', close: '</think>', switch: 'enable_thinking' };
const R1: ReasoningFormat = { open: '<think>', close: '</think>', startsInside: true };

function split(format: ReasoningFormat, tokens: readonly string[]) {
  const splitter = new ReasoningSplitter(format);
  let reasoning = '';
  let answer = '';
  let reasoningTokens = 0;
  const pieces: { reasoning: string; answer: string }[] = [];
  for (const token of tokens) {
    const out = splitter.push(token);
    reasoning += out.reasoning;
    answer += out.answer;
    reasoningTokens += out.reasoningTokens;
    pieces.push({ reasoning: out.reasoning, answer: out.answer });
  }
  const rest = splitter.flush();
  return { reasoning: reasoning + rest.reasoning, answer: answer + rest.answer, reasoningTokens, pieces };
}

/** Every way of cutting `text` into two or three tokens, plus one token per character. */
function cuts(text: string): string[][] {
  const out: string[][] = [[...text]];
  for (let i = 1; i < text.length; i++) {
    out.push([text.slice(0, i), text.slice(i)]);
    for (let j = i + 1; j < text.length; j += 3) out.push([text.slice(0, i), text.slice(i, j), text.slice(j)]);
  }
  return out;
}

describe('ReasoningSplitter', () => {
  it('splits the thinking from the answer, dropping the whitespace the template writes around them', () => {
    expect(split(QWEN3, ['<think>', '\n', 'Let me', ' think.', '\n', '</think>', '\n\n', 'Hello', ' there'])).toMatchObject({ reasoning: 'Let me think.', answer: 'Hello there', reasoningTokens: 6 });
  });

  it('gives the same split whatever the token boundaries, markers cut anywhere included', () => {
    const text = '<think>\nI <b>weigh</b> a </thin, then </think>\n\nAnswer: <think> is a tag.';
    for (const tokens of cuts(text)) {
      const { reasoning, answer } = split(QWEN3, tokens);
      expect({ reasoning, answer }, JSON.stringify(tokens)).toEqual({ reasoning: 'I <b>weigh</b> a </thin, then', answer: 'Answer: <think> is a tag.' });
    }
  });

  it('streams the thinking as it comes, holding back only what may be a marker', () => {
    const { pieces } = split(QWEN3, ['<thi', 'nk>', 'one', ' two </', 'th', 'ink>', 'Hi']);
    expect(pieces).toEqual([
      { reasoning: '', answer: '' },
      { reasoning: '', answer: '' },
      { reasoning: 'one', answer: '' },
      { reasoning: ' two', answer: '' },
      { reasoning: '', answer: '' },
      { reasoning: '', answer: '' },
      { reasoning: '', answer: 'Hi' },
    ]);
  });

  it('leaves a reply that does not open with thinking as it is, markers later in it included', () => {
    for (const text of ['Hello <think>x</think>', '<b>bold</b>', '  <thinker>', '']) {
      for (const tokens of cuts(text)) expect(split(QWEN3, tokens), JSON.stringify(tokens)).toMatchObject({ reasoning: '', answer: text, reasoningTokens: 0 });
    }
  });

  it('keeps thinking that never closes (cut by the token cap) as thinking, never as the answer', () => {
    expect(split(QWEN3, ['<think>', 'still ', 'going', ' </thi'])).toMatchObject({ reasoning: 'still going </thi', answer: '' });
    expect(split(QWEN3, ['<th'])).toMatchObject({ reasoning: '', answer: '<th' });
  });

  it('counts the tokens of the thinking, markers included, and none of the answer', () => {
    expect(split(QWEN3, ['<', 'think', '>', 'a', '</think>', 'b', 'c']).reasoningTokens).toBe(5);
    expect(split(QWEN3, ['a', '<think>']).reasoningTokens).toBe(0);
  });

  it('for a template that opens the thinking itself, starts inside it (and takes a repeated marker as part of it)', () => {
    for (const text of ['Because.\n</think>\n\nYes.', '<think>\nBecause.\n</think>\n\nYes.']) {
      for (const tokens of cuts(text)) expect(split(R1, tokens), JSON.stringify(tokens)).toMatchObject({ reasoning: 'Because.', answer: 'Yes.' });
    }
    expect(split(R1, ['a', 'b', '</think>', 'c']).reasoningTokens).toBe(3);
  });
});
