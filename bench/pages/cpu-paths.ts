/**
 * One round of the CPU-path comparison in the browser (`npm run bench -- --cpu-paths`, driven by
 * bench/driver/cpu-paths-run.ts): each candidate in turn, in an order the driver rotates round by
 * round, loads the real-shaped Qwen from nothing, runs one warm-up and one timed greedy completion,
 * and is released before the next starts, so none competes with another for the cores. Posts one
 * sample per candidate.
 * @module
 */
import type { CpuCandidate, CpuSample } from '../driver/cpu-paths-results.ts';
import { config, fail, finish, log } from './lib/channel.ts';
import type { TimedGeneration } from './lib/cpu-generation.ts';
import { runWllama } from './lib/cpu-wllama.ts';

type OrtReply = ({ ok: true; loadMs: number; threads: number } & TimedGeneration) | { ok: false; error: string };

async function runOrt(candidate: CpuCandidate): Promise<{ sample: Omit<CpuSample, 'candidate' | 'round' | 'memoryBytes'>; memoryBytes?: number }> {
  const worker = new Worker(new URL('./workers/cpu-path-ort.ts', import.meta.url), { type: 'module', name: `cpu-${candidate.id}` });
  try {
    const reply = await new Promise<OrtReply>((resolve) => {
      worker.onmessage = (event: MessageEvent<OrtReply>) => resolve(event.data);
      worker.onerror = (event) => resolve({ ok: false, error: event.message });
      worker.postMessage({ build: candidate.build, threads: candidate.threads, model: candidate.model, dtype: candidate.file, messages: config.cpu!.workload.messages, maxNewTokens: config.cpu!.workload.maxNewTokens });
    });
    if (!reply.ok) throw new Error(`${candidate.id}: ${reply.error}`);
    const memoryBytes = await memory();
    const { ok: _, ...sample } = reply;
    return { sample, memoryBytes };
  } finally {
    worker.terminate();
  }
}

/** Every realm of the page's agent cluster (workers and their wasm memory), where the browser measures it. */
async function memory(): Promise<number | undefined> {
  const measure = (performance as { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
  return measure ? (await measure.call(performance)).bytes : undefined;
}

async function main(): Promise<void> {
  const { candidates, workload, round } = config.cpu!;
  const samples: CpuSample[] = [];
  for (const candidate of candidates) {
    let result: { sample: Omit<CpuSample, 'candidate' | 'round' | 'memoryBytes'>; memoryBytes?: number };
    if (candidate.runtime === 'wllama') {
      const { release, ...run } = await runWllama(candidate, workload);
      const memoryBytes = await memory();
      await release();
      result = { sample: run, memoryBytes };
    } else {
      result = await runOrt(candidate);
    }
    const sample: CpuSample = { candidate: candidate.id, round, ...result.sample, ...(result.memoryBytes === undefined ? {} : { memoryBytes: result.memoryBytes }), crossOriginIsolated };
    samples.push(sample);
    await log(`${candidate.id}: load ${(sample.loadMs / 1000).toFixed(1)} s, first token ${(sample.firstTokenMs / 1000).toFixed(2)} s (${sample.promptTokens} tokens), decode ${sample.decodeTokensPerSecond.toFixed(2)} tok/s over ${sample.tokens}, ${sample.threads} thread(s)`);
  }
  await finish(samples);
}

main().catch(fail);
