import { describe, expect, it } from 'vitest';
import type { TurnFigures } from '../../pages/lib/conversation.ts';
import type { ConversationResult } from '../conversation-results.ts';
import { conversationCharts, conversationReport, conversationTargets } from './conversation.ts';

/** Turns whose first token takes `ms(turn)`; prompts grow by 134 tokens a turn, all but the new ones cached when `cached`. */
const turns = (count: number, ms: (turn: number) => number, cached: boolean): TurnFigures[] =>
  Array.from({ length: count }, (_, i) => ({ turn: i + 1, firstTokenMs: ms(i + 1), totalMs: ms(i + 1) + 500, promptTokens: 218 + 134 * i, cachedTokens: cached && i > 0 ? 218 + 134 * (i - 1) : 0 }));

function result(on: (turn: number) => number, off: (turn: number) => number, peakBytes = 40e6): ConversationResult {
  return {
    where: 'node',
    model: 'qwen2.5-0.5b-q4-shaped',
    replyTokens: 16,
    newTokensPerTurn: 118,
    conversation: { on: [turns(10, on, true), turns(10, on, true), turns(10, on, true)], off: [turns(10, off, false), turns(10, off, false), turns(10, off, false)] },
    agent: { on: [turns(6, on, true)], off: [turns(6, off, false)] },
    cache: { peakBytes, maxBytes: 256 * 2 ** 20, entries: 1 },
  };
}

describe('the prefix-cache report', () => {
  it('judges a flat first token with the cache, and turn 10 against the uncached one', () => {
    const good = conversationTargets(result(() => 700, (t) => 600 * t), 'full');
    expect(good.flat.value).toBeCloseTo(1);
    expect(good.flat.judged).toEqual({ verdict: 'met', why: 'median of 3 runs' });
    expect(good.faster.value).toBeCloseTo(6000 / 700);
    expect(good.faster.judged.verdict).toBe('met');
    expect(good.bounded.judged.verdict).toBe('met');
    // A cache that grows with the conversation after all, one that barely helps, one past its bound.
    const bad = conversationTargets(result((t) => 300 * t, (t) => 400 * t, 300 * 2 ** 20), 'full');
    expect(bad.flat.judged.verdict).toBe('not met');
    expect(bad.faster.judged.verdict).toBe('not met');
    expect(bad.bounded.judged.verdict).toBe('not met');
    // A smoke run never says met.
    expect(conversationTargets(result(() => 700, (t) => 600 * t), 'quick').flat.judged.verdict).toBe('not judgeable');
  });

  it('gives the tables per turn, and draws each as a chart', async () => {
    const markdown = conversationReport(result(() => 700, (t) => 600 * t), 'full');
    expect(markdown).toContain('| 10 | 1424 | 1290 | 0.70 | 6.00 | 8.57× |');
    expect(markdown).toMatch(/at the last turn, ≥ 5× faster .* \| 8.57× \| met \(median of 3 runs\) \|/);
    const { charts, markdown: embedded } = await conversationCharts(result(() => 700, (t) => 600 * t), (name) => `${name}.svg`);
    expect(charts.map((c) => c.file)).toEqual(['node-conversation.svg', 'node-agent.svg']);
    expect(charts[0]!.svg).toMatch(/^<svg/);
    expect(embedded).toContain('![A 10-turn conversation, node](node-conversation.svg)');
  });
});
