import { describe, expect, it } from 'vitest';
import type { Summary } from '../../pages/lib/stats.ts';
import type { Profile } from '../options.ts';
import type { MainResult } from '../results.ts';
import { acrossRuns } from './across-runs.ts';
import { loadTargets, mainTargets, type Target, targetsTable } from './targets.ts';
import { allOf, type Check, exactly, judge, shown } from './verdict.ts';

/** A target of at most 2 ms (time to first token via SW within 2 ms of direct). */
const within2ms = (value: number): Check => ({ value, limit: 2, at: 'most', unit: ' ms' });

describe('judge', () => {
  it('gives "not judgeable" where the 95% interval holds the bound, on either side of it', () => {
    expect(judge(within2ms(1.5), { interval: { low: -1, high: 4 } })).toEqual({ verdict: 'not judgeable', why: 'the 95% interval -1.00 ms to 4.00 ms holds the bound, 2 ms' });
    expect(judge(within2ms(2.5), { interval: { low: 1.2, high: 6 } }).verdict).toBe('not judgeable');
    expect(judge({ value: 98, limit: 97, at: 'least', unit: '%' }, { interval: { low: 96.5, high: 99 } }).verdict).toBe('not judgeable');
  });

  it('no longer calls the recorded −299 ms first-token run met', () => {
    // A quick real-size run on a loaded machine: sw − direct −299.21 ms against a 2 ms bound, with
    // the A/A (direct against itself) at −35 ms and a 95% interval of −26.5 to +228.9 ms. It was
    // printed "met": the value alone holds the bound.
    const recorded = within2ms(-299.21);
    const aa = { estimate: -35, low: -26.5, high: 228.9 };
    expect(judge(recorded).verdict).toBe('met');
    const judged = judge(recorded, { aa });
    expect(judged.verdict).toBe('not judgeable');
    expect(judged.why).toBe('the A/A -35.0 ms lies outside its own 95% interval, -26.5 ms to 228.9 ms: too few samples for one');
    // Read the interval as the route's own instead: it holds the bound (and not the value).
    expect(judge(recorded, { interval: { low: -26.5, high: 228.9 } }).verdict).toBe('not judgeable');
    // And the run was a quick one.
    expect(judge(recorded, { aa }, 'quick').verdict).toBe('not judgeable');
  });

  it('gives "not judgeable" where the A/A reaches further from zero than the value lies from the bound', () => {
    // Interval clear of the bound, but the method reads up to 1.5 ms between like paths: 1.2 ms of margin cannot be told from that.
    const j = judge(within2ms(0.8), { interval: { low: 0.5, high: 1.1 }, aa: { estimate: 0.3, low: -1.5, high: 0.9 } });
    expect(j).toEqual({ verdict: 'not judgeable', why: 'the A/A reads up to 1.50 ms where the truth is zero, more than the 1.20 ms between the value and the bound' });
    // The same A/A against a failing value (and so for a fail too).
    expect(judge(within2ms(3), { interval: { low: 2.5, high: 3.5 }, aa: { estimate: 0.3, low: -1.5, high: 0.9 } }).verdict).toBe('not judgeable');
  });

  it('gives "met" for a clear pass with a tight interval and a small A/A, saying it is one run', () => {
    expect(judge(within2ms(0.4), { interval: { low: 0.2, high: 0.7 }, aa: { estimate: 0.05, low: -0.3, high: 0.4 } })).toEqual({ verdict: 'met', why: '1 run' });
    expect(judge({ value: 2.5, limit: 2, at: 'least', unit: '×' }, { interval: { low: 2.3, high: 2.7 } })).toEqual({ verdict: 'met', why: '1 run' });
  });

  it('gives "not met" for a clear fail', () => {
    expect(judge(within2ms(48), { interval: { low: 40, high: 60 }, aa: { estimate: 0.9, low: -4.4, high: 18.3 } })).toEqual({ verdict: 'not met', why: '1 run' });
    expect(judge({ value: 0.52, limit: 2, at: 'least', unit: '×' })).toEqual({ verdict: 'not met', why: '1 run' });
  });

  it('gives "not judgeable" for a value outside its own interval', () => {
    expect(judge(within2ms(-299.21), { interval: { low: -26.5, high: -20 } }).verdict).toBe('not judgeable');
  });

  it('judges a figure with no interval on its value, resting on what the caller names', () => {
    expect(judge(within2ms(1.9), {}, 'full', 'median of 3 runs')).toEqual({ verdict: 'met', why: 'median of 3 runs' });
    expect(exactly(true)).toEqual({ verdict: 'met', why: '1 run' });
    expect(exactly(false)).toEqual({ verdict: 'not met', why: '1 run' });
  });

  it('never gives "met" in the quick profile; a fail stays a fail', () => {
    const profiles: Profile[] = ['quick', 'short', 'full'];
    const pass = (p: Profile) => judge(within2ms(0.4), { interval: { low: 0.2, high: 0.7 } }, p);
    expect(profiles.map((p) => pass(p).verdict)).toEqual(['not judgeable', 'met', 'met']);
    expect(pass('quick')).toEqual({ verdict: 'not judgeable', why: 'quick profile' });
    expect(judge(within2ms(1), {}, 'quick').verdict).toBe('not judgeable');
    expect(exactly(true, 'quick')).toEqual({ verdict: 'not judgeable', why: 'quick profile' });
    expect(judge(within2ms(48), {}, 'quick')).toEqual({ verdict: 'not met', why: '1 run' });
    expect(exactly(false, 'quick').verdict).toBe('not met');
  });

  it('needs every part to hold: the worst of not met, not judgeable, met', () => {
    const met = { verdict: 'met', why: '1 run' } as const;
    const unsure = { verdict: 'not judgeable', why: 'x' } as const;
    const fail = { verdict: 'not met', why: '1 run' } as const;
    expect(allOf(met, met)).toEqual(met);
    expect(allOf(met, unsure)).toEqual(unsure);
    expect(allOf(fail, unsure)).toEqual(fail);
    expect(allOf(unsure, fail, met)).toEqual(fail);
  });

  it('prints the verdict with what it rests on', () => {
    expect([shown({ verdict: 'met', why: '1 run' }), shown({ verdict: 'not met', why: '1 run' }), shown({ verdict: 'not judgeable', why: 'quick profile' }), shown(undefined), shown({ verdict: undefined })]).toEqual([
      'met (1 run)',
      '**not met** (1 run)',
      'not judgeable (quick profile)',
      'n/a',
      'n/a',
    ]);
  });
});

const s = (median: number): Summary => ({ n: 12, median, p95: median * 1.2, mean: median, min: median * 0.9, max: median * 1.3 });

/** A main-page run with its embeddings section only: each target met by its value. */
const main = (profile: Profile, seqDirect = 2600): MainResult => ({
  device: 'wasm',
  profile,
  env: {},
  embeddings: {
    texts: 256,
    batch: [
      { name: '1 request × 256 texts: direct', ms: s(100), textsPerSec: s(2560), rounds: [100, 101] },
      { name: '1 request × 256 texts: SW, base64', ms: s(102), textsPerSec: s(2510), rounds: [102, 103] },
    ],
    concurrent: ['256 concurrent 1-text requests: SW, base64', '256 sequential 1-text calls: raw', '256 sequential 1-text calls: direct'].map((name, i) => ({
      name,
      ms: s([1000, 2500, seqDirect][i]!),
      textsPerSec: s(1),
      rounds: [[1000, 1010], [2500, 2510], [seqDirect, seqDirect]][i]!,
    })),
    exact: { batch: { requests: 4, vectors: 256, bitIdentical: 256, maxAbsDiff: 0, usageExact: 4 } },
  },
  memory: [],
  checks: {},
});
const load = { markdown: '', warmRatio: 0.9, productWarm: 900, rawWarm: 1000, productWarmN: 9, rawWarmN: 9 };

describe('the report in the quick profile', () => {
  it('prints no target met, where the same figures in the full profile are met', () => {
    const full = mainTargets(main('full'), load);
    expect(full.map((t) => t.verdict)).toEqual(['met', 'met', 'met', 'met', 'met']);
    expect(targetsTable(full)).toContain('| met (1 run) |');
    expect(targetsTable(full)).toContain('| met (medians of 9 warm loads each) |');
    const quick = mainTargets(main('quick'), load);
    expect(quick.map((t) => t.verdict)).toEqual(['not judgeable', 'not judgeable', 'not judgeable', 'not judgeable', 'not judgeable']);
    expect(targetsTable(quick)).not.toMatch(/\| met/);
    expect(targetsTable(loadTargets(load, 'quick'))).toContain('| not judgeable (quick profile) |');
    expect(acrossRuns('wasm', [mainTargets(main('quick'), undefined), mainTargets(main('quick'), undefined)], 'quick', loadTargets(load, 'quick'))).not.toMatch(/\| met/);
  });
});

describe('acrossRuns', () => {
  it('says how many runs each median is of, and judges on the median', () => {
    const runs = [2600, 1900, 2100].map((seq) => mainTargets(main('full', seq), undefined));
    const table = acrossRuns('wasm', runs, 'full', loadTargets(load, 'full'));
    expect(table).toContain('| 256 concurrent 1-text requests via SW ≥ 2× 256 sequential direct (createWorkerEngine) calls | 2.60×, 1.90×, 2.10× | 2.10× | met (median of 3 runs) |');
    expect(table).toContain('| concurrent requests: each vector identical to the request sent alone, usage and order exact | held, held, held |  | met (in each of 3 runs) |');
    expect(table).toContain('| warm load ≤ 1.1× the engine’s own warm load | from the load runs | 0.90× | met (medians of 9 warm loads each) |');
    const failing = acrossRuns('wasm', [1900, 1800, 2100].map((seq) => mainTargets(main('full', seq), undefined)), 'full');
    expect(failing).toContain('| 1.90×, 1.80×, 2.10× | 1.90× | **not met** (median of 3 runs) |');
  });

  it('counts only the runs that measured a target', () => {
    const measured: Target = { target: 't', measured: '1 ms', check: within2ms(1), verdict: 'met', why: '1 run' };
    const missing: Target = { target: 't', measured: 'not measured', verdict: undefined };
    expect(acrossRuns('wasm', [[measured], [missing], [measured]], 'full')).toContain('| t | 1.000 ms, not measured, 1.000 ms | 1.000 ms | met (median of 2 runs) |');
  });
});
