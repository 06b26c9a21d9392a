/**
 * The model catalog: which models the app offers, on which engine, with what limits. Data only.
 * The tiny generated models ship with the app (the offline default); the others load from their
 * real sources on users' machines (or from a self-hosted mirror, see the README).
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import { tinyModelSpecs, type TransformersModelSpec } from './transformers/index.ts';

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
  },
];

/** The models the playground and `startInference` use when none are named. */
export const DEFAULT_MODELS = { chat: 'tiny-chat', embedding: 'tiny-embed' } as const;
