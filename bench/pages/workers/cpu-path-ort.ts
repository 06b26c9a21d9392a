/**
 * A CPU-path candidate on onnxruntime-web (bench/pages/cpu-paths.ts): transformers.js in a plain
 * worker with the build (`plain`: ort-wasm-simd-threaded, `asyncify`: the WebGPU-capable one the
 * product ships) and thread count it is told, then one timed greedy completion. One worker per
 * candidate and round: onnxruntime reads its settings once, at its first session.
 * @module
 */
import { env, pipeline, type TextGenerationPipeline } from '@huggingface/transformers';
import { timedGeneration } from '../lib/cpu-generation.ts';

declare const self: DedicatedWorkerGlobalScope;

interface Job {
  readonly build: 'plain' | 'asyncify';
  readonly threads: number;
  readonly model: string;
  readonly dtype: string;
  readonly messages: { role: string; content: string }[];
  readonly maxNewTokens: number;
}

self.onmessage = async (event: MessageEvent<Job>) => {
  const job = event.data;
  try {
    env.localModelPath = '/inpage-llm/models/';
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    const wasm = env.backends.onnx!.wasm!;
    const base = job.build === 'plain' ? 'ort-wasm-simd-threaded' : 'ort-wasm-simd-threaded.asyncify';
    wasm.wasmPaths = { wasm: new URL(`/bench/runtime/ort/${base}.wasm`, self.location.href).href, mjs: new URL(`/bench/runtime/ort/${base}.mjs`, self.location.href).href };
    wasm.numThreads = job.threads;
    const t0 = performance.now();
    const chat = (await pipeline('text-generation', job.model, { device: 'wasm', dtype: job.dtype as 'q4', local_files_only: true })) as TextGenerationPipeline;
    const loadMs = performance.now() - t0;
    // A first completion compiles and warms what the timed one would otherwise pay for.
    await chat([{ role: 'user', content: 'the' }] as never, { max_new_tokens: 2, do_sample: false });
    const timed = await timedGeneration(chat, job.messages, job.maxNewTokens, () => performance.now());
    self.postMessage({ ok: true, loadMs, ...timed, threads: wasm.numThreads ?? job.threads });
  } catch (error) {
    self.postMessage({ ok: false, error: String((error as Error)?.stack ?? error) });
  }
};
