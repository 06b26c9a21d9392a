/**
 * The CPU-path comparison's tables and targets (judged as every bench target is: verdict.ts):
 * per candidate, load, first token, prefill and decode rates, decode per thread against the native
 * single-thread rate of the same weights' family (4-bit: onnxruntime-node q4; 8-bit: q8), memory
 * and download size. Targets:
 * - decode per thread at least 50% of onnxruntime-node's single-thread rate (4-bit, the catalog's
 *   file), judged on the fastest browser candidate at every core it was given, and at one thread;
 * - every core the browser offers in use (that candidate's thread count reaches the cores, at most 4).
 * @module
 */
import type { Profile } from '../options.ts';
import type { CpuCandidate, CpuPathsResult, CpuSample } from '../cpu-paths-results.ts';
import { f, table } from './format.ts';
import { median } from './medians.ts';
import { exactly, judge, shown, type Judged } from './verdict.ts';

export interface CpuFigures {
  readonly candidate: CpuCandidate;
  readonly samples: readonly CpuSample[];
  readonly decode: number;
  readonly decodeMin: number;
  readonly decodeMax: number;
  readonly firstTokenMs: number;
  readonly prefill: number;
  readonly loadMs: number;
  readonly memoryBytes?: number;
  readonly threads: number;
}

export function cpuFigures(result: CpuPathsResult): CpuFigures[] {
  return result.candidates.flatMap((candidate) => {
    const samples = result.samples.filter((s) => s.candidate === candidate.id);
    if (!samples.length) return [];
    const decodes = samples.map((s) => s.decodeTokensPerSecond);
    const memory = samples.flatMap((s) => (s.memoryBytes === undefined ? [] : [s.memoryBytes]));
    return [{
      candidate,
      samples,
      decode: median(decodes),
      decodeMin: Math.min(...decodes),
      decodeMax: Math.max(...decodes),
      firstTokenMs: median(samples.map((s) => s.firstTokenMs)),
      prefill: median(samples.map((s) => s.promptTokens / (s.firstTokenMs / 1000))),
      loadMs: median(samples.map((s) => s.loadMs)),
      ...(memory.length ? { memoryBytes: median(memory) } : {}),
      threads: Math.max(...samples.map((s) => s.threads)),
    }];
  });
}

const family = (c: CpuCandidate) => (c.weights === 'q4' || c.weights === 'q4_0' ? 'q4' : 'q8');

/** The native single-thread decode rate a candidate's weights are compared with. */
function nativeRate(figures: readonly CpuFigures[], c: CpuCandidate): number | undefined {
  return figures.find((x) => x.candidate.runtime === 'ort-node' && x.candidate.weights === family(c))?.decode;
}

export interface PerThread {
  readonly candidate: CpuFigures;
  readonly percent: number;
  readonly judged: Judged;
}

export interface CpuVerdicts {
  /** The fastest browser candidate at every core it was given (the most threads measured). */
  readonly fastest?: CpuFigures;
  /** Decode per thread against native, at every core and at one thread (each the fastest there). */
  readonly perThread?: { readonly allCores?: PerThread; readonly oneThread?: PerThread };
  readonly cores?: { readonly judged: Judged; readonly threads: number; readonly allowed: number };
}

/** The fastest browser candidates (at the most threads, and at one), and the targets judged on them. */
export function cpuVerdicts(result: CpuPathsResult, profile: Profile | undefined): CpuVerdicts {
  const figures = cpuFigures(result);
  const browser = figures.filter((x) => x.candidate.runtime !== 'ort-node');
  const fastestAt = (threads: number) => browser.filter((x) => x.candidate.threads === threads).sort((a, b) => b.decode - a.decode)[0];
  const most = Math.max(...browser.map((x) => x.candidate.threads));
  const fastest = fastestAt(most);
  if (!fastest) return {};
  const native = figures.find((x) => x.candidate.id === 'ort-node q4 ×1')?.decode;
  const basis = `median of ${result.rounds} round${result.rounds > 1 ? 's' : ''}`;
  const allowed = Math.min(result.hardwareConcurrency, 4);
  const perThread = (candidate: CpuFigures | undefined): PerThread | undefined => {
    if (!candidate || !native) return undefined;
    const percent = (candidate.decode / candidate.threads / native) * 100;
    return { candidate, percent, judged: judge({ value: percent, limit: 50, at: 'least', unit: '%' }, {}, profile, basis) };
  };
  return {
    fastest,
    perThread: { allCores: perThread(fastest), ...(most > 1 ? { oneThread: perThread(fastestAt(1)) } : {}) },
    cores: { judged: exactly(fastest.threads >= allowed, profile, basis), threads: fastest.threads, allowed },
  };
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '—' : (bytes / 1e6).toFixed(0));

export function cpuPathsReport(result: CpuPathsResult, profile: Profile | undefined): string {
  const figures = cpuFigures(result);
  const { workload } = result;
  const rows = figures.map((x) => {
    const native = nativeRate(figures, x.candidate);
    const perThread = native ? `${((x.decode / x.threads / native) * 100).toFixed(0)}%` : '—';
    return [x.candidate.id, x.threads, f(x.loadMs / 1000, 1), f(x.firstTokenMs / 1000, 2), f(x.prefill, 1), `${f(x.decode, 2)} (${f(x.decodeMin, 2)}–${f(x.decodeMax, 2)})`, perThread, mb(x.memoryBytes), mb(result.downloadBytes[x.candidate.id])];
  });
  const verdicts = cpuVerdicts(result, profile);
  const fastest = verdicts.fastest;
  const line = (p: PerThread | undefined, where: string): (string | undefined)[] => [
    `browser decode per thread ≥ 50% of onnxruntime-node on one thread (4-bit), ${where}`,
    p ? `${p.candidate.candidate.id}: ${f(p.candidate.decode, 2)} tok/s on ${p.candidate.threads} thread(s), ${p.percent.toFixed(0)}% per thread` : 'no native figure',
    shown(p?.judged),
  ];
  const targets = fastest
    ? table(['target', 'measured', 'verdict'], [
        line(verdicts.perThread?.allCores, 'at every core'),
        ...(verdicts.perThread?.oneThread ? [line(verdicts.perThread.oneThread, 'at one thread')] : []),
        ['every allowed core in use', `${fastest.candidate.id}: ${verdicts.cores!.threads} of ${verdicts.cores!.allowed} (the machine's ${result.hardwareConcurrency} cores, at most 4)`, shown(verdicts.cores!.judged)],
      ])
    : '';
  return [
    '## CPU paths: the real-shaped Qwen2.5-0.5B on WASM against onnxruntime-node',
    '',
    `Each candidate loads from nothing, runs one warm-up completion, then one greedy completion of ${workload.maxNewTokens} tokens after a ${workload.promptTokens}-token prompt; ${result.rounds} round(s), candidates in an order rotated each round, the native references (onnxruntime-node, one intra-op thread) in the same rounds. Medians over the rounds (decode: median, then the rounds' range). Decode per thread: the decode rate ÷ threads, against onnxruntime-node's single-thread rate with weights of the same width. Memory: the page's agent cluster after the load (workers and wasm memory; Node: the process's resident growth). Download: the model's files and the runtime's wasm and glue. The machine has ${result.hardwareConcurrency} cores; load average ${result.loadAverage.start.map((l) => l.toFixed(2)).join('/')} at the start, ${result.loadAverage.end.map((l) => l.toFixed(2)).join('/')} at the end.`,
    '',
    table(['candidate', 'threads', 'load (s)', 'first token (s)', 'prefill (tok/s)', 'decode (tok/s)', 'decode per thread vs native', 'memory (MB)', 'download (MB)'], rows),
    '',
    targets,
  ].join('\n');
}
