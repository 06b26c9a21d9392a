/**
 * The model catalog: which models the app offers, on which engine, with what limits. Data only.
 * The tiny generated models ship with the app (the offline default); the others load from their
 * real sources on users' machines (or from a self-hosted mirror, see the README).
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
// From the files themselves, not the folders' index: a page reads the catalog too (app-models.ts),
// and must not pull in the engines' code with it.
import { tinyModelSpecs } from './transformers/tiny-model-specs.ts';
import type { TransformersModelSpec } from './transformers/transformers-engine.ts';
import type { WebLLMModelSpec } from './webllm/app-config.ts';

const created = Date.UTC(2026, 10, 1) / 1000;
const info = (i: Omit<ModelInfo, 'created'>): ModelInfo => ({ created, ...i });

/** Served by transformers.js (WebGPU, else WASM). */
export const transformersModels: readonly TransformersModelSpec[] = [
  ...tinyModelSpecs.map((spec) => ({ ...spec, info: { created, ...spec.info } })),
  {
    info: info({ id: 'all-MiniLM-L6-v2', kind: 'embedding', engine: 'transformers', displayName: 'all-MiniLM-L6-v2', contextWindow: 256, dimensions: 384 }),
    source: 'Xenova/all-MiniLM-L6-v2',
    pooling: 'mean',
    dtype: 'fp32',
  },
  {
    info: info({
      id: 'nomic-embed-text-v1.5',
      kind: 'embedding',
      engine: 'transformers',
      displayName: 'Nomic Embed Text v1.5 (Matryoshka)',
      contextWindow: 2048,
      dimensions: 768,
      supportsDimensions: true,
    }),
    source: 'nomic-ai/nomic-embed-text-v1.5',
    pooling: 'mean',
    dtype: 'q8',
  },
  {
    info: info({ id: 'Qwen2.5-0.5B-Instruct-onnx', kind: 'chat', engine: 'transformers', displayName: 'Qwen2.5 0.5B Instruct (ONNX)', contextWindow: 4096, maxOutputTokens: 2048 }),
    source: 'onnx-community/Qwen2.5-0.5B-Instruct',
    dtype: 'q4',
    // On the CPU, onnxruntime-web's 8-bit kernels decode 5-7x faster than its 4-bit ones, and the
    // q8 file is smaller than the q4 one (whose embedding is float32): docs/decisions/cpu-path.md.
    wasmDtype: 'q8',
  },
];

/**
 * Served by web-llm on WebGPU: the featured short ids, each picking its q4f16 variant where the GPU
 * has `shader-f16` and its q4f32 one elsewhere. Every other model of web-llm's own list is served
 * too, under web-llm's ids, read from the installed package when its script loads
 * (webllm/prebuilt-models.ts); so are these variants. The figures here are replaced by the
 * records' own (context window) once that list is read.
 */
export const webllmModels: readonly WebLLMModelSpec[] = [
  webllmChat('Qwen2.5-0.5B-Instruct', 'Qwen2.5 0.5B Instruct', 'Qwen2.5', '0.5B'),
  webllmChat('Qwen2.5-1.5B-Instruct', 'Qwen2.5 1.5B Instruct', 'Qwen2.5', '1.5B'),
  webllmChat('Qwen3-0.6B', 'Qwen3 0.6B (thinks before it answers)', 'Qwen3', '0.6B'),
  webllmChat('Llama-3.2-1B-Instruct', 'Llama 3.2 1B Instruct', 'Llama-3.2', '1B'),
  webllmChat('SmolLM2-360M-Instruct', 'SmolLM2 360M Instruct', 'SmolLM2', '360M'),
];

function webllmChat(name: string, displayName: string, family: string, size: string): WebLLMModelSpec {
  return {
    info: info({ id: name, kind: 'chat', engine: 'webllm', displayName, contextWindow: 4096, maxOutputTokens: 4096, family, size, featured: true }),
    variants: { f16: `${name}-q4f16_1-MLC`, f32: `${name}-q4f32_1-MLC` },
  };
}

/**
 * The browser's own model through the Prompt API (Chrome's Gemini Nano, Edge's Phi): nothing to
 * download from the app, and absent where the browser has none. Its context window is the usual
 * session quota; each session reports its own (`inputQuota`), which is what is enforced.
 */
export const builtinModels: readonly ModelInfo[] = [
  info({ id: 'browser-builtin', kind: 'chat', engine: 'builtin', displayName: "The browser's built-in model (Prompt API)", contextWindow: 6144, maxOutputTokens: 4096 }),
];
