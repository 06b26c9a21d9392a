import { describe, expect, it } from 'vitest';
import { Drafts, lastMatchEnd, PredictionDrafter, PromptLookupDrafter } from './drafts.ts';

/** Cheap extra positions (a small model), and dear ones. */
const CHEAP = { jump: 0, perPosition: 0.02 };
const DEAR = { jump: 3, perPosition: 0.5 };

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
  const prediction = Array.from({ length: 60 }, (_, i) => 100 + i);
  it('follows the prediction while the answer does, guessing more as more is kept, never past max', () => {
    const drafter = new PredictionDrafter(prediction);
    const first = drafter.propose([1, 2, 100], 2, 100, CHEAP);
    expect(first[0]).toBe(101);
    expect(first).toEqual(prediction.slice(1, 1 + first.length));
    drafter.settle(first.length, first.length);
    const answer = [100, ...first, 100 + first.length + 1];
    const second = drafter.propose([1, 2, ...answer], 2, 100, CHEAP);
    expect(second[0]).toBe(100 + first.length + 2);
    expect(second.length).toBeGreaterThan(first.length);
    expect(drafter.propose([1, 2, ...answer], 2, 3, CHEAP)).toHaveLength(3);
  });
  it('guesses less once guesses are cut short, and nothing where a position costs more than a guess is worth', () => {
    const drafter = new PredictionDrafter(prediction);
    const long = drafter.propose([100], 0, 100, CHEAP).length;
    for (let i = 0; i < 6; i++) drafter.settle(8, 0);
    expect(drafter.propose([100, 101], 0, 100, CHEAP).length).toBeLessThan(long);
    expect(new PredictionDrafter(prediction).propose([100], 0, 100, DEAR)).toEqual([]);
  });
  it('finds its place again after the answer left out a token or replaced one, and gives up where it is lost', () => {
    const drafter = new PredictionDrafter(prediction);
    // 102 and 103 left out: the answer's 104 is found ahead.
    expect(drafter.propose([100, 101, 104], 0, 100, CHEAP)[0]).toBe(105);
    // A token replaced: once, the place after is guessed; then nothing until the answer is found again.
    const lost = new PredictionDrafter(prediction);
    expect(lost.propose([50, 51], 0, 100, CHEAP)[0]).toBe(101);
    lost.settle(2, 0);
    expect(lost.propose([50, 51, 52], 0, 100, CHEAP)).toEqual([]);
    expect(lost.propose([50, 51, 52, 120, 121], 0, 100, CHEAP)[0]).toBe(122);
  });
});

describe('PromptLookupDrafter', () => {
  it("proposes what followed the answer's last tokens earlier, and rests longer after each miss", () => {
    const drafter = new PromptLookupDrafter();
    const sequence = [5, 6, 7, 8, 9, 1, 5, 6];
    expect(drafter.propose(sequence, 5, 100, CHEAP)).toEqual([7, 8, 9, 1, 5, 6]);
    drafter.settle(3, 0);
    expect(drafter.propose(sequence, 5, 100, CHEAP)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100, CHEAP)[0]).toBe(7);
    drafter.settle(1, 0);
    // Rests two steps now.
    expect(drafter.propose(sequence, 5, 100, CHEAP)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100, CHEAP)).toEqual([]);
    expect(drafter.propose(sequence, 5, 100, CHEAP)[0]).toBe(7);
    drafter.settle(1, 1);
    expect(drafter.propose(sequence, 5, 100, CHEAP)[0]).toBe(7);
    // One token in common is chance: no guess.
    expect(new PromptLookupDrafter().propose([1, 2, 3, 4, 2], 3, 100, CHEAP)).toEqual([]);
  });
});

describe('Drafts', () => {
  it("counts the prediction's guesses apart from the lookup's", () => {
    const drafts = new Drafts(new PredictionDrafter([10, 11, 12]), new PromptLookupDrafter());
    expect(drafts.propose([1, 2, 10], 2, 100, CHEAP)).toEqual([11, 12]);
    drafts.settle(2, 1);
    // The prediction has nothing after 12; the lookup finds [1, 2] earlier.
    expect(drafts.propose([1, 2, 3, 10, 11, 12, 1, 2], 3, 100, CHEAP)).toEqual([3, 10, 11, 12, 1, 2]);
    drafts.settle(4, 4);
    expect(drafts.prediction).toEqual({ accepted: 1, rejected: 1 });
    expect(drafts.lookup).toEqual({ accepted: 4, rejected: 0 });
  });
});
