/**
 * The native reference of the CPU-path comparison: the same transformers.js and model on
 * onnxruntime-node with one intra-op thread (and one inter-op), in this process: load, one warm-up
 * and one timed greedy completion (bench/pages/lib/cpu-generation.ts), then released.
 * @module
 */
import { env, pipeline, type TextGenerationPipeline } from '@huggingface/transformers';
import { performance } from 'node:perf_hooks';
import { timedGeneration } from '../pages/lib/cpu-generation.ts';
import type { CpuCandidate, CpuSample, CpuWorkload } from './cpu-paths-results.ts';
import { REAL_MODELS } from './paths.ts';

export async function nativeSample(candidate: CpuCandidate, workload: CpuWorkload, round: number): Promise<CpuSample> {
  env.localModelPath = `${REAL_MODELS}/`;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const chat = (await pipeline('text-generation', candidate.model, {
    device: 'cpu',
    dtype: candidate.file as 'q4',
    local_files_only: true,
    session_options: { intraOpNumThreads: candidate.threads, interOpNumThreads: 1 },
  })) as TextGenerationPipeline;
  const loadMs = performance.now() - t0;
  try {
    await chat([{ role: 'user', content: 'the' }] as never, { max_new_tokens: 2, do_sample: false });
    const timed = await timedGeneration(chat, workload.messages, workload.maxNewTokens, () => performance.now());
    return { candidate: candidate.id, round, loadMs, ...timed, memoryBytes: process.memoryUsage().rss - rss0, threads: candidate.threads };
  } finally {
    await chat.dispose();
  }
}
