import { describe, expect, it } from 'vitest';
import { Drafts, lastMatchEnd, PredictionDrafter, PromptLookupDrafter } from './drafts.ts';

describe('lastMatchEnd', () => {
  it('finds the latest occurrence of the longest tail, ending no later than asked', () => {
    const source = [1, 2, 3, 9, 1, 2, 3, 4, 2, 3];
    expect(lastMatchEnd(source, 10, [7, 2, 3], 4, 2)).toBe(10);
    expect(lastMatchEnd(source, 6, [7, 2, 3], 4, 2)).toBe(3);
    expect(lastMatchEnd(source, 10, [1, 2, 3], 4, 2)).toBe(7);
    expect(lastMatchEnd(source, 10, [5, 6], 4, 2)).toBe(-1);
  });
});

describe('PredictionDrafter', () => {
  const prediction = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19];
  it('follows the prediction while the answer does, longer after each whole guess kept', () => {
    const drafter = new PredictionDrafter(prediction, { start: 2, ceiling: 8 });
    const prompt = [1, 2];
    expect(drafter.propose([...prompt, 10], 2, 100)).toEqual([11, 12]);
    drafter.settle(2, 2);
    expect(drafter.propose([...prompt, 10, 11, 12, 13], 2, 100)).toEqual([14, 15, 16, 17]);
    drafter.settle(4, 1);
    // 14 kept, then the model wrote 99 instead of 15: guessed as a replacement, shorter.
    expect(drafter.propose([...prompt, 10, 11, 12, 13, 14, 99], 2, 100)).toEqual([16, 17]);
  });
  it('finds its place again after the answer left out or added tokens, and never guesses past max', () => {
    const drafter = new PredictionDrafter(prediction, { start: 4 });
    // 12 and 13 left out: the answer's 14 is found ahead.
    expect(drafter.propose([10, 11, 14], 0, 100)).toEqual([15, 16, 17, 18]);
    drafter.settle(4, 0);
    expect(drafter.propose([10, 11, 14, 15, 16], 0, 1)).toEqual([17]);
    // Somewhere the prediction does not have: one guess that a token was replaced, then none.
    const lost = new PredictionDrafter(prediction, { start: 2 });
    expect(lost.propose([50, 51], 0, 100)).toEqual([11, 12]);
    lost.settle(2, 0);
    expect(lost.propose([50, 51, 52], 0, 100)).toEqual([]);
  });
});

describe('PromptLookupDrafter', () => {
  it('proposes what followed the answer\'s last tokens earlier, and rests longer after each miss', () => {
    const drafter = new PromptLookupDrafter({ start: 3 });
    const sequence = [5, 6, 7, 8, 9, 1, 5, 6];
    expect(drafter.propose(sequence, 5, 100)).toEqual([7, 8, 9]);
    drafter.settle(3, 0);
    expect(drafter.propose(sequence, 5, 100)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100)).toEqual([7]);
    drafter.settle(1, 0);
    // Rests two steps now.
    expect(drafter.propose(sequence, 5, 100)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100)).toEqual([7]);
    drafter.settle(1, 1);
    expect(drafter.propose(sequence, 5, 100)).toEqual([7, 8]);
    // One token in common is chance: no guess.
    expect(new PromptLookupDrafter().propose([1, 2, 3, 4, 2], 3, 100)).toEqual([]);
  });
});

describe('Drafts', () => {
  it('counts the prediction\'s guesses apart from the lookup\'s', () => {
    const drafts = new Drafts(new PredictionDrafter([10, 11, 12]), new PromptLookupDrafter());
    expect(drafts.propose([1, 2, 10], 2, 100)).toEqual([11, 12]);
    drafts.settle(2, 1);
    // The prediction has nothing after 12; the lookup finds [1, 2] earlier.
    expect(drafts.propose([1, 2, 3, 10, 11, 12, 1, 2], 3, 100)).toEqual([3, 10, 11, 12]);
    drafts.settle(4, 4);
    expect(drafts.prediction).toEqual({ accepted: 1, rejected: 1 });
    expect(drafts.lookup).toEqual({ accepted: 4, rejected: 0 });
  });
});
