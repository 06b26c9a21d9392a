import { describe, expect, it } from 'vitest';
import { createProgressMapper, parsePhase } from './progress.ts';

// Report texts exactly as web-llm 0.2.86 (lib/index.js) and its tvmjs runtime write them.
const FETCH_START = { progress: 0, timeElapsed: 0, text: 'Start to fetch params' };
const fetching = (i: number, n: number, mb: number, pct: number) => ({
  progress: pct / 100,
  timeElapsed: 3,
  text:
    `Fetching param cache[${i}/${n}]: ${mb}MB fetched. ${pct}% completed, 3 secs elapsed.` +
    ' It can take a while when we first visit this page to populate the cache. Later refreshes will become faster.',
});
const fromCache = (i: number, n: number, mb: number, pct: number) => ({
  progress: pct / 100,
  timeElapsed: 5,
  text: `Loading model from cache[${i}/${n}]: ${mb}MB loaded. ${pct}% completed, 5 secs elapsed.`,
});
const shaders = (i: number, n: number) => ({
  progress: i / n,
  timeElapsed: 9,
  text: `Loading GPU shader modules[${i}/${n}]: ${Math.floor((i / n) * 100)}% completed, 9 secs elapsed.`,
});
const FINISH = { progress: 1, timeElapsed: 12.3, text: 'Finish loading on WebGPU - Google SwiftShader' };

describe('parsePhase', () => {
  it('recognises every phase web-llm reports', () => {
    expect(parsePhase(FETCH_START.text)).toBe('fetch');
    expect(parsePhase(fetching(3, 20, 120, 30).text)).toBe('fetch');
    expect(parsePhase(fromCache(1, 20, 15, 5).text)).toBe('cache');
    expect(parsePhase(shaders(5, 40).text)).toBe('shaders');
    expect(parsePhase(FINISH.text)).toBe('done');
    expect(parsePhase('something new')).toBe('other');
  });
});

describe('createProgressMapper', () => {
  it('spreads the phases over one fraction for the whole load', () => {
    const mapper = createProgressMapper('m');
    const fractions = [FETCH_START, fetching(10, 20, 150, 50), fetching(20, 20, 300, 100), fromCache(10, 20, 150, 50), fromCache(20, 20, 300, 100), shaders(20, 40), shaders(40, 40), FINISH].map(
      (report) => mapper.map(report).fraction,
    );
    expect(fractions).toEqual([0, 0.3, 0.6, 0.7, 0.8, 0.9, 1, 1].map((f) => expect.closeTo(f, 10)));
    expect(mapper.phase).toBe('done');
  });

  it('keeps web-llm text as a stage, without the advice appended to downloads', () => {
    const mapper = createProgressMapper('qwen');
    expect(mapper.map(fetching(3, 20, 120, 30))).toEqual({
      status: 'stage',
      model: 'qwen',
      text: 'Fetching param cache[3/20]: 120MB fetched. 30% completed, 3 secs elapsed.',
      fraction: expect.closeTo(0.18, 10),
    });
    expect(mapper.map(FINISH)).toEqual({ status: 'stage', model: 'qwen', text: 'Finish loading on WebGPU - Google SwiftShader', fraction: 1 });
  });

  it('never goes back: cached weights skip the download, unknown texts keep the fraction', () => {
    const mapper = createProgressMapper('m');
    expect(mapper.phase).toBeUndefined();
    expect(mapper.map(fromCache(1, 20, 15, 5)).fraction).toBeCloseTo(0.61, 10);
    expect(mapper.map({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' }).fraction).toBeCloseTo(0.61, 10);
    expect(mapper.map({ progress: 0.2, timeElapsed: 0, text: 'a future message' }).fraction).toBeCloseTo(0.61, 10);
    expect(mapper.map({ progress: Number.NaN, timeElapsed: 0, text: 'Loading GPU shader modules[0/0]' }).fraction).toBeCloseTo(0.8, 10);
  });
});
