/**
 * A CPU-path candidate on llama.cpp in WASM (@wllama/wllama, bench/pages/cpu-paths.ts): the GGUF
 * fetched from the bench server, loaded CPU-only with the thread count it is told, then one timed
 * greedy completion (the end token ignored: random weights may pick it early). A fresh instance
 * per candidate and round, like the onnxruntime ones.
 * @module
 */
import { Wllama } from '@wllama/wllama/esm/index.js';
import type { CpuCandidate, CpuWorkload } from '../../driver/cpu-paths-results.ts';
import { decodeRate, type TimedGeneration } from './cpu-generation.ts';

const quiet = { debug: () => {}, log: () => {}, warn: console.warn.bind(console), error: console.error.bind(console) };

export async function runWllama(candidate: CpuCandidate, workload: CpuWorkload): Promise<TimedGeneration & { loadMs: number; threads: number; release(): Promise<void> }> {
  const t0 = performance.now();
  const wllama = new Wllama({ default: '/bench/runtime/wllama/wllama.wasm' }, { suppressNativeLog: true, logger: quiet });
  const blob = await (await fetch(`/inpage-llm/models/${candidate.model}/${candidate.file}`)).blob();
  await wllama.loadModel([blob], { n_threads: candidate.threads, n_ctx: 1024, n_gpu_layers: 0, n_parallel: 1 });
  const loadMs = performance.now() - t0;
  await wllama.createChatCompletion({ messages: [{ role: 'user', content: 'the' }], max_tokens: 2, temperature: 0, cache_prompt: false } as never);
  const times: number[] = [];
  let promptTokens = 0;
  const start = performance.now();
  await wllama.createChatCompletion({
    messages: workload.messages,
    max_tokens: workload.maxNewTokens,
    temperature: 0,
    stream: true,
    // Every round a fresh prompt prefill, as the onnxruntime paths have it.
    cache_prompt: false,
    ignore_eos: true,
    // Timings on every chunk: a token is counted where llama.cpp's own count grows (a chunk's text
    // may be empty, a token holding part of a character).
    timings_per_token: true,
    onData: (chunk: { timings?: { prompt_n?: number; predicted_n?: number } }) => {
      const predicted = chunk.timings?.predicted_n ?? 0;
      while (times.length < predicted) times.push(performance.now());
      if (chunk.timings?.prompt_n) promptTokens = chunk.timings.prompt_n;
    },
  } as never);
  return {
    loadMs,
    promptTokens,
    firstTokenMs: times[0]! - start,
    tokens: times.length,
    decodeTokensPerSecond: decodeRate(times),
    threads: wllama.getNumThreads(),
    release: () => wllama.exit(),
  };
}
