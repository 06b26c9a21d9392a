import { describe, expect, it } from 'vitest';
import type { CpuCandidate, CpuPathsResult, CpuSample } from '../cpu-paths-results.ts';
import { cpuFigures, cpuPathsReport, cpuVerdicts } from './cpu-paths.ts';

const candidate = (id: string, runtime: CpuCandidate['runtime'], weights: CpuCandidate['weights'], threads: number): CpuCandidate => ({ id, runtime, weights, threads, model: 'm', file: 'f', ...(runtime === 'ort-web' ? { build: 'asyncify' as const } : {}) });
const sample = (c: CpuCandidate, round: number, decode: number): CpuSample => ({ candidate: c.id, round, loadMs: 1000, promptTokens: 64, firstTokenMs: 640, tokens: 24, decodeTokensPerSecond: decode, threads: c.threads });

function result(rates: Record<string, number[]>, candidates: CpuCandidate[], cores = 2): CpuPathsResult {
  return {
    candidates,
    samples: candidates.flatMap((c) => (rates[c.id] ?? []).map((r, i) => sample(c, i, r))),
    workload: { messages: [{ role: 'user', content: 'x' }], promptTokens: 64, maxNewTokens: 24 },
    rounds: 3,
    downloadBytes: Object.fromEntries(candidates.map((c) => [c.id, 5e8])),
    hardwareConcurrency: cores,
    loadAverage: { start: [0.5, 0.5, 0.5], end: [0.6, 0.6, 0.6] },
  };
}

const native = candidate('ort-node q4 ×1', 'ort-node', 'q4', 1);
const q8one = candidate('ort-web asyncify q8 ×1', 'ort-web', 'q8', 1);
const q8two = candidate('ort-web asyncify q8 ×2', 'ort-web', 'q8', 2);
const q4two = candidate('ort-web asyncify q4 ×2', 'ort-web', 'q4', 2);

describe('the CPU-path report', () => {
  it('takes medians over rounds, prefill from the first token, and the fastest candidate at every core', () => {
    const r = result({ [native.id]: [10, 8, 9], [q8one.id]: [6, 5, 7], [q8two.id]: [12, 11, 13], [q4two.id]: [1, 1, 1] }, [native, q8one, q8two, q4two]);
    const q8 = cpuFigures(r).find((x) => x.candidate.id === q8two.id)!;
    expect(q8).toMatchObject({ decode: 12, decodeMin: 11, decodeMax: 13, prefill: 100 });
    const v = cpuVerdicts(r, 'full');
    expect(v.fastest?.candidate.id).toBe(q8two.id);
    // 12 tok/s on 2 threads against 9 native: 67% per thread; one thread: 6 of 9, 67%.
    expect(v.perThread?.allCores?.percent).toBeCloseTo((12 / 2 / 9) * 100, 6);
    expect(v.perThread?.allCores?.judged.verdict).toBe('met');
    expect(v.perThread?.oneThread?.percent).toBeCloseTo((6 / 9) * 100, 6);
    expect(v.cores?.judged.verdict).toBe('met');
    expect(cpuPathsReport(r, 'full')).toMatch(/ort-web asyncify q8 ×2 \| 2 \| 1\.0 \| 0\.64 \| 100\.0 \| 12\.00 \(11\.00–13\.00\) \| — \|/);
  });

  it('fails the per-thread target below half the native rate, and the cores target short of every core', () => {
    const r = result({ [native.id]: [10, 10, 10], [q8one.id]: [4, 4, 4] }, [native, q8one], 4);
    const v = cpuVerdicts(r, 'full');
    expect(v.perThread?.allCores?.judged.verdict).toBe('not met');
    expect(v.cores).toMatchObject({ threads: 1, allowed: 4, judged: { verdict: 'not met' } });
    expect(cpuVerdicts(r, 'quick').cores?.judged.verdict).toBe('not met');
  });
});
