/**
 * What the catalog says of a model web-llm serves: its prebuilt variants, or the app's own record.
 * It is catalog data, so it lives with the catalog: the catalog's lists, the app's own entries
 * and the adapter (webllm/) all import it from here, and webllm/variant.ts need not import
 * app-config.ts for it, which imports variant.ts.
 * @module
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import type { ModelInfo } from '../../core/engine.ts';

/** One catalog entry served by web-llm. */
export interface WebLLMModelSpec {
  readonly info: ModelInfo;
  /**
   * web-llm prebuilt `model_id`s: `f16` for GPUs with the `shader-f16` feature, `f32` (q4f32 /
   * q0f32) for GPUs without it. Embedding models only come as `f32`.
   */
  readonly variants: { readonly f16?: string; readonly f32: string };
  /** Embedding models: scale vectors to unit length (default true, as snowflake-arctic-embed defines). */
  readonly normalize?: boolean;
  /** A model of the app's own: its record (`variants.f32` is its `model_id`), not one of web-llm's prebuilt ones. */
  readonly record?: Omit<ModelRecord, 'model_id'>;
}
