/**
 * The CPU-path comparison (`npm run bench -- --cpu-paths`): which runtimes, builds, weights and
 * thread counts it measures, and what each measurement gives. Shared by the driver
 * (cpu-paths-run.ts, cpu-paths-node.ts), the page (bench/pages/cpu-paths.ts) and the report.
 * @module
 */

/** One way to run the real-shaped Qwen on a CPU. */
export interface CpuCandidate {
  /** A short name for tables: `ort-web plain q4 ×2`. */
  readonly id: string;
  /** onnxruntime-web under transformers.js, llama.cpp in WASM (wllama), or onnxruntime-node (native). */
  readonly runtime: 'ort-web' | 'wllama' | 'ort-node';
  /** onnxruntime-web's build: the plain SIMD-threaded one or the asyncify one (WebGPU-capable). */
  readonly build?: 'plain' | 'asyncify';
  readonly weights: 'q4' | 'q8' | 'q4_0' | 'q8_0';
  readonly threads: number;
  /** The model folder under /inpage-llm/models/ (the real-shaped models). */
  readonly model: string;
  /** transformers.js dtype (ONNX), or the GGUF file (llama.cpp). */
  readonly file: string;
}

/** What one candidate did in one round: load, one streamed greedy completion. */
export interface CpuSample {
  readonly candidate: string;
  readonly round: number;
  /** From nothing to the model ready (files fetched from the local server, wasm compiled). */
  readonly loadMs: number;
  readonly promptTokens: number;
  /** Request to first token: the prompt's prefill and one decode step. */
  readonly firstTokenMs: number;
  readonly tokens: number;
  /** Tokens after the first over the time from the first to the last. */
  readonly decodeTokensPerSecond: number;
  /** The page's agent cluster (every worker, wasm memory included) after the load, where measured. */
  readonly memoryBytes?: number;
  /** Threads the runtime says it runs (onnxruntime-web: numThreads; llama.cpp: n_threads). */
  readonly threads: number;
  readonly crossOriginIsolated?: boolean;
}

export interface CpuWorkload {
  /** The user message: the template makes it `promptTokens` in all. */
  readonly messages: { role: 'user'; content: string }[];
  readonly promptTokens: number;
  readonly maxNewTokens: number;
}

export interface CpuPathsResult {
  readonly candidates: readonly CpuCandidate[];
  readonly samples: readonly CpuSample[];
  readonly workload: CpuWorkload;
  readonly rounds: number;
  /** Bytes a user downloads per candidate: the model's files and the runtime's wasm and glue. */
  readonly downloadBytes: Readonly<Record<string, number>>;
  readonly hardwareConcurrency: number;
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
}
