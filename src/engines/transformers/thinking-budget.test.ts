/**
 * The thinking budget's processor on its own, over a made-up vocabulary and a "model" that always
 * prefers one token: it forces the closing marker exactly when the thinking has taken the budget
 * (not a step before), its tokens one a step, then leaves the model free; nothing where the
 * thinking closes by itself or the reply does not think; and the forced token stays the only
 * possible one after logit bias and through the sampler.
 */
import { Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import type { ReasoningFormat } from '../../core/reasoning.ts';
import { LogitBias } from './logit-bias.ts';
import { ThinkingBudget } from './thinking-budget.ts';
import { TokenSampler } from './token-sampler.ts';

const VOCAB = ['<think>', ' a', '</think>', ' b', '</', 'think>', '\n', 'x'];
const id = (text: string) => VOCAB.indexOf(text);
const FORMAT: ReasoningFormat = { open: '<think>', close: '</think>' };
const PROMPT = [id('x'), id('x'), id('x')];

function budget(n: number, options: { format?: ReasoningFormat; closeIds?: number[] } = {}): ThinkingBudget {
  return new ThinkingBudget({ budget: n, format: options.format ?? FORMAT, closeIds: options.closeIds ?? [id('</think>')], promptLength: PROMPT.length, decode: (token) => VOCAB[token]! });
}

/** Logits where `preferred` wins by far. */
function logits(preferred: number): Tensor {
  const data = new Float32Array(VOCAB.length).map((_, i) => (i === preferred ? 10 : i / 10));
  return new Tensor('float32', data, [1, VOCAB.length]);
}

function argmax(tensor: Tensor): number {
  const data = tensor.data as Float32Array;
  let best = 0;
  for (let i = 1; i < data.length; i++) if (data[i]! > data[best]!) best = i;
  return best;
}

/**
 * Generates `steps` tokens: at each, the model prefers `wants(generated)`; the processor runs;
 * the best token is taken. Returns the tokens and, per step, whether the processor left a single
 * finite logit (it forced one).
 */
function generate(processor: ThinkingBudget, steps: number, wants: (generated: number[]) => number): { tokens: string[]; forcedAt: number[] } {
  const generated: number[] = [];
  const forcedAt: number[] = [];
  for (let step = 0; step < steps; step++) {
    const scores = processor._call([[...PROMPT, ...generated].map(BigInt)], logits(wants(generated)));
    if ([...(scores.data as Float32Array)].filter(Number.isFinite).length === 1) forcedAt.push(step);
    generated.push(argmax(scores));
  }
  return { tokens: generated.map((token) => VOCAB[token]!), forcedAt };
}

/** Thinks (`<think>`, then ` a` without end), then, once closed, answers ` b`. */
const thinker = (generated: number[]) => (generated.length === 0 ? id('<think>') : generated.includes(id('</think>')) || generated.includes(id('think>')) ? id(' b') : id(' a'));

describe('a thinking budget', () => {
  it('forces the closing marker exactly when the thinking (its opening marker counted) has taken the budget, then lets the model answer', () => {
    const { tokens, forcedAt } = generate(budget(5), 9, thinker);
    expect(tokens).toEqual(['<think>', ' a', ' a', ' a', ' a', '</think>', ' b', ' b', ' b']);
    expect(forcedAt).toEqual([5]);
  });

  it('counts from the first generated token where the template opened the thinking', () => {
    const inside = (generated: number[]) => (generated.includes(id('</think>')) ? id(' b') : id(' a'));
    const { tokens, forcedAt } = generate(budget(3, { format: { ...FORMAT, startsInside: true } }), 6, inside);
    expect(tokens).toEqual([' a', ' a', ' a', '</think>', ' b', ' b']);
    expect(forcedAt).toEqual([3]);
  });

  it('forces a marker of several tokens one a step, in order', () => {
    const { tokens, forcedAt } = generate(budget(2, { closeIds: [id('</'), id('think>')] }), 6, thinker);
    expect(tokens).toEqual(['<think>', ' a', '</', 'think>', ' b', ' b']);
    expect(forcedAt).toEqual([2, 3]);
  });

  it('forces nothing where the thinking closes by itself within the budget', () => {
    const closes = (generated: number[]) => (generated.length === 0 ? id('<think>') : generated.length < 3 ? id(' a') : generated.length === 3 ? id('</think>') : id(' b'));
    // The thinking takes 3 tokens, its close the 4th: a budget of 4 is not reached.
    const { tokens, forcedAt } = generate(budget(4), 12, closes);
    expect(tokens).toEqual(['<think>', ' a', ' a', '</think>', ...Array(8).fill(' b')]);
    expect(forcedAt).toEqual([]);
  });

  it('forces nothing where the reply does not think', () => {
    const { tokens, forcedAt } = generate(budget(2), 10, () => id(' b'));
    expect(tokens).toEqual(Array(10).fill(' b'));
    expect(forcedAt).toEqual([]);
  });

  it('leaves the marker the only possible token after a bias for another and through the sampler', () => {
    const processor = budget(2);
    const ids = [[...PROMPT, id('<think>'), id(' a')].map(BigInt)];
    const bias = new LogitBias(new Map([[id(' a'), 100], [id('</think>'), -100]]));
    const sampler = new TokenSampler({ temperature: 2, topP: 1, seed: 7, presencePenalty: 2, frequencyPenalty: 2 }, PROMPT.length);
    for (let run = 0; run < 20; run++) {
      const forcing = budget(2);
      const scores = sampler._call(ids, forcing._call(ids, bias._call(ids, logits(id(' a')))));
      expect(argmax(scores)).toBe(id('</think>'));
    }
    // Before the budget is spent, the sampler chooses as it would.
    expect(argmax(processor._call([ids[0]!.slice(0, -1)], logits(id(' a'))))).toBe(id(' a'));
  });

  it('refuses a budget below one token', () => {
    expect(() => budget(0)).toThrow(/at least 1/);
  });
});
