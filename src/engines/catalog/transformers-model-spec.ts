/**
 * What the catalog says of a model transformers.js serves: its ONNX files' source, variant and
 * checks. It is catalog data, so it lives with the catalog: the catalog's lists, the app's own
 * entries and the adapter (transformers/) all import it from here, and the adapter's helpers
 * (local-facts.ts) need not import the adapter for it, which imports them.
 * @module
 */
import type { ModelInfo } from '../../core/engine.ts';
import type { FileChecks } from '../files/index.ts';

/** One catalog entry served by transformers.js. */
export interface TransformersModelSpec {
  readonly info: ModelInfo;
  /** A model id under `localModelPath`, or a hub repo id (under `remoteHost`) when remote models are allowed. */
  readonly source: string;
  /** Embedding models: how token vectors become one vector (default `mean`). */
  readonly pooling?: 'mean' | 'cls';
  /** Embedding models: scale vectors to unit length (default true). */
  readonly normalize?: boolean;
  /** ONNX weight variant (`fp32`, `fp16`, `q8`, `q4`, ...); default: the model's `transformers.js_config`. */
  readonly dtype?: string;
  /**
   * The variant on the WASM backend, where it differs: onnxruntime-web's 4-bit MatMulNBits runs
   * 5–7× slower there than its 8-bit kernels (docs/decisions/cpu-path.md).
   */
  readonly wasmDtype?: string;
  /** The files ship with the app under `localModelPath`: never fetch anything for it from the hub. */
  readonly bundled?: boolean;
  /**
   * Its files (paths in its folder) with their sizes and SRI hashes, where known: each downloaded
   * or cached file is checked against them, and room in storage is checked for all of them first.
   */
  readonly files?: FileChecks;
}
