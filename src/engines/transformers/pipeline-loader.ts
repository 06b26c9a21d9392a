/**
 * Loads a model's pipeline once and memoises it, so concurrent first requests share one load.
 * A failed load is forgotten (the next request tries again) and reported as `model_unavailable`
 * naming the model and the cause. `forget` hands back a loaded pipeline for disposal.
 * @module
 */

import { pipeline, type FeatureExtractionPipeline, type ProgressInfo, type TextGenerationPipeline } from '@huggingface/transformers';
import type { TransformersDevice } from './device.ts';
import { modelUnavailable } from './engine-errors.ts';

type PipelineOptions = NonNullable<Parameters<typeof pipeline>[2]>;

export interface PipelineTasks {
  'feature-extraction': FeatureExtractionPipeline;
  'text-generation': TextGenerationPipeline;
}

export interface LoadRequest {
  /** The id clients use; keys the memo and names the model in errors and progress. */
  readonly id: string;
  readonly source: string;
  readonly dtype?: string;
  /** Never look beyond `localModelPath` (bundled models: their optional files must not be sought on the hub). */
  readonly localOnly?: boolean;
}

export interface PipelineLoader {
  load<T extends keyof PipelineTasks>(task: T, model: LoadRequest, onProgress?: (info: ProgressInfo) => void): Promise<PipelineTasks[T]>;
  /** Drops the memo; resolves to the pipeline if it had loaded. */
  forget(id: string): Promise<{ dispose(): Promise<unknown> } | undefined>;
  readonly device: () => Promise<TransformersDevice>;
}

export function createPipelineLoader(device: () => Promise<TransformersDevice>): PipelineLoader {
  const loads = new Map<string, Promise<unknown>>();
  return {
    device,
    load<T extends keyof PipelineTasks>(task: T, model: LoadRequest, onProgress?: (info: ProgressInfo) => void): Promise<PipelineTasks[T]> {
      let loading = loads.get(model.id);
      if (!loading) {
        loading = (async () =>
          pipeline(task, model.source, {
            device: await device(),
            dtype: model.dtype as PipelineOptions['dtype'],
            local_files_only: model.localOnly ?? false,
            progress_callback: (info: ProgressInfo) => {
              try {
                onProgress?.(info);
              } catch {
                // A broken progress listener must not fail the load.
              }
            },
          }))().catch((cause: unknown) => {
          loads.delete(model.id);
          throw modelUnavailable(model.id, cause);
        });
        loads.set(model.id, loading);
      }
      return loading as Promise<PipelineTasks[T]>;
    },
    async forget(id) {
      const loading = loads.get(id);
      loads.delete(id);
      return (await loading?.catch(() => undefined)) as { dispose(): Promise<unknown> } | undefined;
    },
  };
}
