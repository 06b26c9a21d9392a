import { describe, expect, it } from 'vitest';
import type { StreamPath } from '../results.ts';
import { firstRuns } from './streaming.ts';

const summary = { n: 1, median: 1, p95: 1, mean: 1, min: 1, max: 1 };
const path = (name: string, firstRun?: StreamPath['firstRun']): StreamPath => ({
  name,
  tokens: [40],
  tokensPerSec: summary,
  decodeTokensPerSec: summary,
  firstTokenMs: summary,
  totalMs: summary,
  ...(firstRun ? { firstRun } : {}),
});

describe('firstRuns', () => {
  it("names each path's first stream, with the wait for headers where the path has them", () => {
    const lines = firstRuns([path('stream: direct', { firstTokenMs: 2.04, totalMs: 30 }), path('stream: SW (SSE)', { firstTokenMs: 12.3, totalMs: 41, headersMs: 9.96 })]);
    expect(lines.at(-1)).toBe(
      'First stream of each path in this page (its warm-up, left out of the table): stream: direct: first token 2.0 ms, whole 30.0 ms; stream: SW (SSE): first token 12.3 ms (headers 10.0 ms), whole 41.0 ms.',
    );
  });

  it('says nothing for results from before the first stream was kept', () => {
    expect(firstRuns([path('stream: direct')])).toEqual([]);
  });
});
