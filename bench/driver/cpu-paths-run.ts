/**
 * `npm run bench -- --cpu-paths`: which CPU path runs the real-shaped Qwen2.5-0.5B fastest in the
 * browser, against onnxruntime-node on one thread on the same machine. Candidates
 * (`cpuCandidates`): onnxruntime-web's plain SIMD-threaded build and the asyncify one the product
 * shipped, 4-bit (MatMulNBits) and 8-bit (dynamic quantization) weights, llama.cpp in WASM
 * (@wllama/wllama) on Q4_0 and Q8_0 GGUFs, each at 1 thread and at every core the browser offers.
 *
 * Interleaved: each round runs the native references in this process, then every browser
 * candidate in a fresh browser (bench/pages/cpu-paths.ts), in an order rotated by one each round,
 * each loaded from nothing and released before the next. `--profile quick` is one round, `short`
 * two, `full` three. Returns the markdown and the results.
 * @module
 */
import { statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { chatTextOfTokens } from '../real-models/real-chat.ts';
import { generateRealModels, GGUF_FILE, REAL_MODEL_IDS } from '../real-models/real-models.ts';
import { nativeSample } from './cpu-paths-node.ts';
import type { CpuCandidate, CpuPathsResult, CpuSample, CpuWorkload } from './cpu-paths-results.ts';
import type { Options } from './options.ts';
import { REAL_MODELS, ROOT } from './paths.ts';
import { cpuPathsReport } from './report/cpu-paths.ts';
import { runTask } from './run-task.ts';
import type { BenchServer } from './server.ts';

/** A 56-token message: 64 prompt tokens with the template's 8. */
const MESSAGE_TOKENS = 56;
const NEW_TOKENS = 24;

export function cpuCandidates(threadCounts: readonly number[]): CpuCandidate[] {
  const onnx = { q4: { model: REAL_MODEL_IDS.chat, file: 'q4' }, q8: { model: REAL_MODEL_IDS['chat-q8'], file: 'q8' } } as const;
  const gguf = { q4_0: REAL_MODEL_IDS['chat-gguf-q4_0'], q8_0: REAL_MODEL_IDS['chat-gguf-q8_0'] } as const;
  const out: CpuCandidate[] = [];
  for (const threads of threadCounts) {
    out.push({ id: `ort-web asyncify q4 ×${threads}`, runtime: 'ort-web', build: 'asyncify', weights: 'q4', threads, ...onnx.q4 });
    out.push({ id: `ort-web plain q4 ×${threads}`, runtime: 'ort-web', build: 'plain', weights: 'q4', threads, ...onnx.q4 });
    out.push({ id: `ort-web plain q8 ×${threads}`, runtime: 'ort-web', build: 'plain', weights: 'q8', threads, ...onnx.q8 });
    out.push({ id: `ort-web asyncify q8 ×${threads}`, runtime: 'ort-web', build: 'asyncify', weights: 'q8', threads, ...onnx.q8 });
    out.push({ id: `wllama q4_0 ×${threads}`, runtime: 'wllama', weights: 'q4_0', threads, model: gguf.q4_0, file: GGUF_FILE });
    out.push({ id: `wllama q8_0 ×${threads}`, runtime: 'wllama', weights: 'q8_0', threads, model: gguf.q8_0, file: GGUF_FILE });
  }
  return out;
}

export const NATIVE: readonly CpuCandidate[] = [
  { id: 'ort-node q4 ×1', runtime: 'ort-node', weights: 'q4', threads: 1, model: REAL_MODEL_IDS.chat, file: 'q4' },
  { id: 'ort-node q8 ×1', runtime: 'ort-node', weights: 'q8', threads: 1, model: REAL_MODEL_IDS['chat-q8'], file: 'q8' },
];

/** What a user downloads for each candidate: the model's files and the runtime's wasm and glue. */
function downloadBytes(candidates: readonly CpuCandidate[], modelBytes: (id: string) => number): Record<string, number> {
  const size = (path: string) => statSync(join(ROOT, 'node_modules', path)).size;
  const runtime = {
    plain: size('onnxruntime-web/dist/ort-wasm-simd-threaded.wasm') + size('onnxruntime-web/dist/ort-wasm-simd-threaded.mjs'),
    asyncify: size('onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.wasm') + size('onnxruntime-web/dist/ort-wasm-simd-threaded.asyncify.mjs'),
    wllama: size('@wllama/wllama/esm/wasm/wllama.wasm') + size('@wllama/wllama/esm/index.js'),
  };
  return Object.fromEntries(candidates.map((c) => [c.id, modelBytes(c.model) + (c.runtime === 'wllama' ? runtime.wllama : c.runtime === 'ort-web' ? runtime[c.build!] : 0)]));
}

export async function runCpuPathsBench(options: Options, server: BenchServer): Promise<{ markdown: string; results: CpuPathsResult }> {
  const start = loadavg();
  const { manifest } = await generateRealModels(REAL_MODELS, { only: ['chat', 'chat-q8', 'chat-gguf-q4_0', 'chat-gguf-q8_0'] });
  // What a GGUF user downloads is the .gguf alone (the tokenizer and template are inside it).
  const modelBytes = (id: string) => (id.includes('gguf') ? manifest.models[id]!.files[GGUF_FILE]!.bytes : manifest.models[id]!.bytes);
  const profile = options.profile ?? (options.quick ? 'quick' : 'full');
  const rounds = profile === 'quick' ? 1 : profile === 'short' ? 2 : 3;
  const cores = availableParallelism();
  const threadCounts = options.threads ?? [...new Set([1, Math.min(cores, 4)])];
  const browser = cpuCandidates(threadCounts).filter((c) => !options.candidates || options.candidates.some((name) => c.id.includes(name)));
  const native = options.node ? NATIVE : [];
  const workload: CpuWorkload = { messages: [{ role: 'user', content: chatTextOfTokens(MESSAGE_TOKENS, 3) }], promptTokens: MESSAGE_TOKENS + 8, maxNewTokens: NEW_TOKENS };
  const samples: CpuSample[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const candidate of native) {
      const sample = await nativeSample(candidate, workload, round);
      samples.push(sample);
      console.log(`  [node] ${candidate.id}: first token ${(sample.firstTokenMs / 1000).toFixed(2)} s, decode ${sample.decodeTokensPerSecond.toFixed(2)} tok/s`);
    }
    const order = browser.map((_, i) => browser[(i + round) % browser.length]!);
    if (!options.main || order.length === 0) continue;
    const [page] = await runTask(server, { name: `cpu-paths-round${round + 1}`, page: '/bench/pages/cpu-paths.html', config: { device: 'wasm', profile, cpu: { candidates: order, workload, round } }, results: 1, timeoutMs: 60 * 60_000 }, options.driver);
    samples.push(...(page as CpuSample[]));
  }
  const candidates = [...native, ...browser];
  const results: CpuPathsResult = { candidates, samples, workload, rounds, downloadBytes: downloadBytes(candidates, modelBytes), hardwareConcurrency: cores, loadAverage: { start, end: loadavg() } };
  return { markdown: cpuPathsReport(results, profile), results };
}
