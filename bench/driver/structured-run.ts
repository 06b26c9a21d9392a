/**
 * `npm run bench -- --structured`: what structured output costs on the real-shaped Qwen2.5-0.5B
 * (q4, `npm run models:real`), in Node (structured-node.ts, onnxruntime-node) and in the browser's
 * engine worker (bench/pages/structured.ts, WASM with 8-bit weights as the catalog's Qwen loads
 * there, `--wasm-weights q4` for the 4-bit ones; WebGPU, 4-bit, with `--device webgpu`), one after
 * the other: free text, `json_schema` (plain strings, bounded strings, nested arrays, enums), a forced
 * tool (required, and named) and `tool_choice: auto` with two tools, each first-use and reused
 * (bench/pages/lib/structured.ts). `--no-node` skips Node, `--no-main` the browser; `--profile
 * quick` is one round a side, `short` three, `full` five. Returns the markdown and the results.
 * @module
 */
import type { Options } from './options.ts';
import { realModel } from './real-workload.ts';
import { structuredReport } from './report/structured.ts';
import { runTask } from './run-task.ts';
import type { BenchServer } from './server.ts';
import { structuredInNode } from './structured-node.ts';
import type { StructuredResult } from './structured-results.ts';

/** Every request's cap: long enough for a decode rate, short enough for many rounds. */
export const MAX_TOKENS = 48;

export async function runStructuredBench(options: Options, server: BenchServer): Promise<{ markdown: string; results: StructuredResult[] }> {
  const chat = await realModel('chat');
  const profile = options.profile ?? (options.quick ? 'quick' : 'full');
  const rounds = profile === 'quick' ? 1 : profile === 'short' ? 3 : 5;
  const setup = { maxTokens: MAX_TOKENS, rounds };
  const results: StructuredResult[] = [];
  if (options.node) {
    console.log(`bench: structured output in Node, ${rounds} round(s)…`);
    results.push(await structuredInNode(chat, setup, (line) => console.log(`  ${line}`)));
  }
  if (options.main) {
    const device = options.device === 'webgpu' ? 'webgpu' : 'wasm';
    // onnxruntime-web's 4-bit kernels decode about 8× slower than its 8-bit ones on WASM
    // (docs/decisions/cpu-path.md): the catalog loads q8 there, and so does this by default.
    const weights = device === 'wasm' && options.wasmWeights === 'q8' ? await realModel('chat-q8') : chat;
    console.log(`bench: structured output in the browser (${device}, ${weights.dtype}), ${rounds} round(s)…`);
    const [result] = await runTask(server, { name: `structured-${device}`, page: '/bench/pages/structured.html', config: { device, profile, structured: { ...setup, chat: weights } }, results: 1, timeoutMs: 180 * 60_000 }, options.driver);
    results.push(result as StructuredResult);
  }
  return { markdown: structuredReport(results, profile), results };
}
