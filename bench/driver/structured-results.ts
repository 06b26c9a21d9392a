/**
 * What the structured-output benchmark (`npm run bench -- --structured`) measures, in Node
 * (structured-node.ts) and in the browser (bench/pages/structured.ts): the samples of
 * bench/pages/lib/structured.ts, per place. Times in ms.
 * @module
 */
import type { StructuredSample } from '../pages/lib/structured.ts';

export interface StructuredResult {
  /** `node` (onnxruntime-node), or the browser's backend (the engine worker). */
  readonly where: 'node' | 'wasm' | 'webgpu';
  readonly model: string;
  /** The weights' dtype (`q4`, `q8`). */
  readonly dtype: string;
  readonly maxTokens: number;
  readonly rounds: number;
  /** From nothing to the model loaded. */
  readonly loadMs: number;
  readonly samples: readonly StructuredSample[];
}
