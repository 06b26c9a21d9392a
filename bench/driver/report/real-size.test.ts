import { describe, expect, it } from 'vitest';
import type { Summary } from '../../pages/lib/stats.ts';
import type { RealSizeResult } from '../real-size-results.ts';
import { realSizeReport, realSizeTargets } from './real-size.ts';

const s = (median: number, p95 = median * 1.2): Summary => ({ n: 20, median, p95, mean: median, min: median * 0.9, max: p95 * 1.1 });

/** A run whose numbers meet every target. */
const fixture: RealSizeResult = {
  device: 'wasm',
  profile: 'full',
  env: { hardwareConcurrency: 4 },
  models: { embed: { id: 'real-embed', bytes: 90 * 1048576 }, chat: { id: 'real-chat', bytes: 787 * 1048576 } },
  embedOne: { tokens: 128, paths: [{ name: 'sw', ms: s(12.9) }, { name: 'direct', ms: s(12.0) }, { name: 'floor', ms: s(0.8) }, { name: 'floor worker', ms: s(0.2) }] },
  chatOne: { promptTokens: 32, paths: [{ name: 'sw', ms: s(80.5) }, { name: 'direct', ms: s(80.0) }] },
  stream: {
    maxTokens: 64,
    paths: [
      { name: 'sw', firstTokenMs: s(91), decodeTokensPerSec: s(19.9) },
      { name: 'direct', firstTokenMs: s(90), decodeTokensPerSec: s(20) },
    ],
  },
  batching: { texts: 256, concurrentSw: s(1000), sequentialDirect: s(2500), oneRequestSw: s(1010), oneRequestDirect: s(1000) },
  curves: {
    embedLatencyVsTokens: {
      title: 'One-text embedding latency vs tokens',
      x: 'tokens',
      y: 'ms',
      points: [16, 64, 256].map((x) => ({ x, values: { sw: x * 0.1 + 1, direct: x * 0.1, floor: 0.6 } })),
    },
    embedThroughputVsConcurrency: {
      title: 'Embedding throughput vs concurrency',
      x: 'requests in flight',
      y: 'texts/s',
      logX: true,
      points: [1, 4, 16, 64, 256].map((x) => ({ x, values: { sw: 100 * Math.log2(x + 1), direct: 90 } })),
    },
  },
  checks: {},
};

/** `fixture` with another sw stream. */
const withStream = (sw: { first: number; rate: number }): RealSizeResult => ({
  ...fixture,
  stream: { maxTokens: 64, paths: [{ name: 'sw', firstTokenMs: s(sw.first), decodeTokensPerSec: s(sw.rate) }, fixture.stream.paths[1]!] },
});
const verdicts = (r: RealSizeResult) => realSizeTargets(r).map((t) => t.verdict);

describe('realSizeReport', () => {
  it('names the models and device and holds every table', async () => {
    const { markdown } = await realSizeReport(fixture, (name) => `run-${name}.svg`);
    expect(markdown).toContain('## Real-size models: WASM (full profile)');
    expect(markdown).toContain('`real-embed` (90.0 MB)');
    expect(markdown).toContain('`real-chat` (787.0 MB)');
    expect(markdown).toContain('### One-text embedding (128 tokens');
    expect(markdown).toMatch(/\| sw \| 12\.900 \| 15\.480 \| \+0\.900 \| \+7\.5% \|/);
    expect(markdown).toContain('### One-token chat completion (32 prompt tokens');
    expect(markdown).toMatch(/\| sw \| 91\.00 \| 109\.20 \| 19\.9 \| \+1\.00 ms \| 99\.5% \|/);
    expect(markdown).toContain('2.50× the speed of sequential direct');
    expect(markdown).toContain("99.0% of direct's throughput");
    expect(markdown).toContain('Product overhead above the floor = (sw − direct) − (floor − floor worker) = 0.300 ms');
  });

  it('embeds each curve as a chart with a table of its points, and says which were not measured', async () => {
    const { markdown, charts } = await realSizeReport(fixture, (name) => `run-${name}.svg`);
    expect(charts.map((c) => c.file)).toEqual(['run-embedLatencyVsTokens.svg', 'run-embedThroughputVsConcurrency.svg']);
    expect(markdown).toContain('![One-text embedding latency vs tokens](run-embedLatencyVsTokens.svg)');
    expect(markdown).toContain('| tokens | sw (ms) | direct (ms) | floor (ms) |');
    expect(markdown).toContain('| 256 | 26.6 | 25.6 | 0.600 |');
    expect(markdown).toContain('Curves not measured: `ttftVsPromptTokens`, `decodeRateVsLength`, `memoryVsModels`.');
    for (const c of charts) expect(c.svg.startsWith('<svg')).toBe(true);
  });

  it('judges every target met when the numbers are inside the limits', async () => {
    expect(verdicts(fixture)).toEqual(['met', 'met', 'met', 'met', 'met']);
    const { markdown } = await realSizeReport(fixture, (n) => n);
    expect(markdown).toContain('| 256 concurrent 1-text requests via SW ≥ 2× 256 sequential direct calls | 2.50× (1000 vs 2500 ms) | met (1 run) |');
  });

  it('judges no target met in the quick profile, the same figures met in the full one', async () => {
    const quick = { ...fixture, profile: 'quick' } as const;
    expect(verdicts(quick)).toEqual(['not judgeable', 'not judgeable', 'not judgeable', 'not judgeable', 'not judgeable']);
    const { markdown } = await realSizeReport(quick, (n) => n);
    expect(markdown).toContain('| 2.50× (1000 vs 2500 ms) | not judgeable (quick profile) |');
    expect(markdown).not.toMatch(/\| met/);
    // A fail stays a fail.
    expect(verdicts({ ...quick, batching: { ...fixture.batching, sequentialDirect: s(1500) } })[0]).toBe('not met');
  });

  it('judges each target not met just past its limit', () => {
    const b = fixture.batching;
    expect(verdicts({ ...fixture, batching: { ...b, sequentialDirect: s(1990) } })[0]).toBe('not met');
    expect(verdicts({ ...fixture, batching: { ...b, sequentialDirect: s(2000) } })[0]).toBe('met');
    expect(verdicts({ ...fixture, batching: { ...b, oneRequestSw: s(1032) } })[1]).toBe('not met'); // 96.9%
    expect(verdicts({ ...fixture, batching: { ...b, oneRequestSw: s(1030) } })[1]).toBe('met'); // 97.1%
    expect(verdicts(withStream({ first: 91, rate: 19.7 }))[2]).toBe('not met'); // 98.5%
    expect(verdicts(withStream({ first: 92.1, rate: 19.9 }))[3]).toBe('not met');
    expect(verdicts(withStream({ first: 91.9, rate: 19.9 }))[3]).toBe('met');
    const embed = (sw: number): RealSizeResult => ({ ...fixture, embedOne: { tokens: 128, paths: [{ name: 'sw', ms: s(sw) }, ...fixture.embedOne.paths.slice(1)] } });
    expect(verdicts(embed(13.2))[4]).toBe('not met'); // 0.6 ms above the floor
    expect(verdicts(embed(13.0))[4]).toBe('met'); // 0.4 ms
  });

  it('says "not measured" for a missing path or curve without crashing', async () => {
    const partial: RealSizeResult = {
      ...fixture,
      embedOne: { tokens: 128, paths: fixture.embedOne.paths.filter((p) => p.name !== 'floor') },
      stream: { maxTokens: 64, paths: [fixture.stream.paths[1]!] },
      curves: {},
    };
    const { markdown, charts } = await realSizeReport(partial, (n) => n);
    expect(charts).toEqual([]);
    expect(markdown).toContain('Curves not measured: `embedLatencyVsTokens`, `embedThroughputVsConcurrency`,');
    expect(markdown).toContain('| floor | not measured |');
    expect(markdown).toContain('| sw | not measured |');
    expect(markdown).toContain('Product overhead above the floor = (sw − direct) − (floor − floor worker) = not measured');
    expect(verdicts(partial)).toEqual(['met', 'met', undefined, undefined, undefined]);
    expect(markdown).toMatch(/\| time to first token via SW within 2 ms of direct \| not measured \| n\/a \|/);
  });

  it('with one worker behind both routes, judges the route alone too, over the floor measured beside the two-worker runs', async () => {
    const oneWorker: RealSizeResult['oneWorker'] = {
      embedOne: { tokens: 128, paths: [{ name: 'sw', ms: s(12.4) }, { name: 'direct', ms: s(12.0) }] },
      stream: { maxTokens: 64, paths: [{ name: 'sw', firstTokenMs: s(90.5) }, { name: 'direct', firstTokenMs: s(90) }].map((p, i) => ({ ...p, decodeTokensPerSec: s(i ? 20 : 19.7) })) },
    };
    const targets = realSizeTargets({ ...fixture, oneWorker });
    const one = targets.filter((t) => t.target.includes('one worker'));
    expect(one.map((t) => [t.measured.split(' ')[0], t.verdict])).toEqual([
      ['98.5%', 'not met'],
      ['+0.50', 'met'],
      // (12.4 − 12.0) − (0.8 − 0.2)
      ['-0.200', 'met'],
    ]);
    const { markdown } = await realSizeReport({ ...fixture, oneWorker }, (name) => `${name}.svg`);
    expect(markdown).toContain('### One worker through both routes: one-text embedding (128 tokens)');
    expect(markdown).toContain('Product overhead above the floor, one worker = (sw − direct) − (floor − floor worker) = -0.200 ms');
    expect(markdown).toContain('### One worker through both routes: streaming (64 tokens per stream)');
  });

  it('judges the one worker on the floor measured in its own rounds where there is one, and gives sw − direct by input length', async () => {
    const oneWorker: RealSizeResult['oneWorker'] = {
      embedOne: { tokens: 16, paths: [{ name: 'sw', ms: s(12.4) }, { name: 'direct', ms: s(12.0) }, { name: 'floor', ms: s(2.1) }, { name: 'floor worker', ms: s(0.1) }] },
      stream: fixture.stream,
      embedVsTokens: [
        { x: 8, values: { sw: 10.5, direct: 9.0 } },
        { x: 512, values: { sw: 437.2, direct: 430.2 } },
      ],
    };
    const overhead = realSizeTargets({ ...fixture, oneWorker }).find((t) => t.target.includes('overhead') && t.target.includes('one worker'))!;
    // (12.4 − 12.0) − (2.1 − 0.1), not the two-worker table's floor (0.8 − 0.2).
    expect(overhead.measured).toMatch(/^-1\.600 ms/);
    const { markdown } = await realSizeReport({ ...fixture, oneWorker }, (name) => `${name}.svg`);
    expect(markdown).toContain('= -1.600 ms (the floor measured in the same rounds)');
    expect(markdown).toContain('| floor worker |');
    expect(markdown).toContain('sw − direct by input length, one worker (medians): 8 tokens +1.50 ms (9.0 ms direct); 512 tokens +7.00 ms (430.2 ms direct).');
  });

  it('judges the one worker on the larger of the block and the paired estimate, and names the floor worker\'s CPU per answer', async () => {
    const embedOne: RealSizeResult['embedOne'] = { tokens: 16, paths: [{ name: 'sw', ms: s(15.0) }, { name: 'direct', ms: s(13.0) }, { name: 'floor', ms: s(15.6) }, { name: 'floor worker', ms: s(13.9) }] };
    const judged = (paired: number) => realSizeTargets({ ...fixture, oneWorker: { embedOne, stream: fixture.stream, floorBusyMs: 13, pairedOverheadMs: s(paired) } }).find((t) => t.target.includes('overhead') && t.target.includes('one worker'))!;
    // Block: (15.0 − 13.0) − (15.6 − 13.9) = 0.3.
    expect([judged(0.2).measured, judged(0.2).verdict]).toEqual(['0.300 ms, the larger of the block estimate (0.300 ms) and the paired one (0.200 ms)', 'met']);
    expect([judged(0.7).measured.split(',')[0], judged(0.7).verdict]).toEqual(['0.700 ms', 'not met']);
    const { markdown } = await realSizeReport({ ...fixture, oneWorker: { embedOne, stream: fixture.stream, floorBusyMs: 13, pairedOverheadMs: s(0.2) } }, (name) => `${name}.svg`);
    expect(markdown).toContain('its bare worker spending 13.0 ms of CPU per answer as the engine does for this text');
    expect(markdown).toContain('Paired estimate, one worker: the four requests back to back, one value per sample: 0.200 ms median over 20 samples');
  });
  it('says how far the one-worker estimates could move by chance where the samples were kept, the A/A comparison with them', async () => {
    // Samples whose medians are sw 15, direct 13, floor 15.6, floor worker 13.9, direct again 13.2.
    const around = (m: number, width: number) => Array.from({ length: 40 }, (_, i) => m - width / 2 + ((i * 7) % 40) / 39 * width);
    const embedOne: Record<string, number[]> = { sw: around(15, 2), direct: around(13, 2), floor: around(15.6, 0.2), 'floor worker': around(13.9, 0.2), 'direct again': around(13.2, 2) };
    const paths = Object.entries(embedOne).map(([name, ms]) => ({ name, ms: s([...ms].sort((a, b) => a - b)[20]!) }));
    const oneWorker: RealSizeResult['oneWorker'] = { embedOne: { tokens: 16, paths }, stream: fixture.stream, pairedOverheadMs: s(0.2), samples: { embedOne, paired: around(0.2, 1) } };
    const overhead = realSizeTargets({ ...fixture, oneWorker }).find((t) => t.target.includes('overhead') && t.target.includes('one worker'))!;
    expect(overhead.measured).toMatch(/block estimate \(0\.3\d\d ms \(95% interval -?0\.\d+ to \d\.\d+\)\) and the paired one \(0\.200 ms \(95% interval/);
    expect(overhead.measured).toMatch(/A\/A, direct against itself: \+0\.2\d\d ms \(95% interval [^)]*\)$/);
    const withPairedAA = { ...oneWorker, samples: { ...oneWorker.samples!, pairedAA: around(-0.1, 1) } };
    const judgedWithAA = realSizeTargets({ ...fixture, oneWorker: withPairedAA }).find((t) => t.target.includes('overhead') && t.target.includes('one worker'))!;
    expect(judgedWithAA.measured).toMatch(/, paired -0\.1\d\d ms \(95% interval/);
    // Both estimates must hold: the block one's interval holds the 0.5 ms bound, so the run cannot tell.
    expect([overhead.verdict, overhead.why]).toEqual(['not judgeable', expect.stringMatching(/^the block estimate: the 95% interval -?\d\.\d+ ms to \d\.\d+ ms holds the bound, 0\.5 ms$/)]);
    expect((await realSizeReport({ ...fixture, oneWorker: withPairedAA }, (n) => n)).markdown).toMatch(/; paired A\/A, direct again − direct with the direct call in sw's place among the four: -0\.1\d\d ms, 95% interval/);
    const { markdown } = await realSizeReport({ ...fixture, oneWorker }, (name) => `${name}.svg`);
    expect(markdown).toContain('| direct again |');
    expect(markdown).toMatch(/How far these could move by chance .*: the block estimate \+0\.3\d\d ms, 95% interval [-+]\d\.\d+ to \+\d\.\d+ ms; the paired median \+0\.2\d\d ms/);
    // With first-token samples the one-worker first-token target is judged on them, with its interval.
    const firstToken = { sw: around(1450, 80), direct: around(1440, 80), 'direct again': around(1430, 80) };
    const withFirst = { ...oneWorker, samples: { ...oneWorker.samples!, firstToken } };
    const ttft = realSizeTargets({ ...fixture, oneWorker: withFirst }).find((t) => t.target.startsWith('time to first token') && t.target.includes('one worker'))!;
    expect(ttft.measured).toMatch(/^\+10\.\d\d ms over 40 one-token streams a path \(95% interval [-+]\d+\.\d to \+\d+\.\d ms\); A\/A, direct against itself: -10\.\d\d ms/);
    // sw − direct +10 ms, but its interval holds the 2 ms bound: the run cannot tell.
    expect(ttft.verdict).toBe('not judgeable');
    expect(ttft.why).toMatch(/^the 95% interval -?\d+\.\d+ ms to \d+\.\d+ ms holds the bound, 2 ms$/);
    expect((await realSizeReport({ ...fixture, oneWorker: withFirst }, (n) => n)).markdown).toContain('Time to first token, one-token streams (40 a path, medians): sw − direct +10.');
    // Without samples (older results) nothing is claimed about chance.
    const { markdown: older } = await realSizeReport({ ...fixture, oneWorker: { ...oneWorker, samples: undefined } }, (name) => `${name}.svg`);
    expect(older).not.toContain('How far these could move by chance');
  });
});
