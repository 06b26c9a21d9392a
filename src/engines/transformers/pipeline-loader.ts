/**
 * Loads a model's pipeline once and memoises it, so concurrent first requests share one load.
 * A failed load is forgotten (the next request tries again) and reported as `model_unavailable`
 * naming the model and the cause. `forget` hands back a loaded pipeline for disposal.
 * @module
 */

import { pipeline, type FeatureExtractionPipeline, type ProgressInfo, type TextGenerationPipeline } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';
import { bytesOf, checkRoom, groupsForModel, insufficientStorage, isQuotaError, listCachedModels, quotaExceeded, refusedBeforeBody, type FileBytes, type FileChecks } from '../files/index.ts';
import type { TransformersDevice } from './device.ts';
import { modelUnavailable } from './engine-errors.ts';
import type { ConfiguredEnv } from './configure-env.ts';

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
  /** The variant on the WASM backend, where it differs from `dtype`. */
  readonly wasmDtype?: string;
  /** Never look beyond `localModelPath` (bundled models: their optional files must not be sought on the hub). */
  readonly localOnly?: boolean;
  /** Its files with their sizes (and hashes), when the catalog knows them: room is checked for them all before the first byte. */
  readonly files?: FileChecks;
}

export interface PipelineLoader {
  /** `onProgress`: each file's bytes as they are fetched or read back from the cache. */
  load<T extends keyof PipelineTasks>(task: T, model: LoadRequest, onProgress?: (bytes: FileBytes) => void): Promise<PipelineTasks[T]>;
  /** Drops the memo; resolves to the pipeline if it had loaded. */
  forget(id: string): Promise<{ dispose(): Promise<unknown> } | undefined>;
  readonly device: () => Promise<TransformersDevice>;
}

export function createPipelineLoader(device: () => Promise<TransformersDevice>, { cache, progress }: ConfiguredEnv = {}): PipelineLoader {
  const loads = new Map<string, Promise<unknown>>();
  return {
    device,
    load<T extends keyof PipelineTasks>(task: T, model: LoadRequest, onProgress?: (bytes: FileBytes) => void): Promise<PipelineTasks[T]> {
      let loading = loads.get(model.id);
      if (!loading) {
        loading = (async () => {
          await checkRoomFor(model);
          cache?.takeQuotaFailures(model.source);
          const tell = (bytes: FileBytes) => {
            try {
              onProgress?.(bytes);
            } catch {
              // A broken progress listener must not fail the load.
            }
          };
          // In a browser the product's fetch and cache tell the bytes, and transformers.js is given
          // no progress_callback, which would make it request every file twice and read it slower.
          // A file whose body failed (cut off, not the catalog's file) reaches transformers.js as
          // "Failed to fetch" when it reads the body whole; the error naming the file is kept here.
          let fileFailure: unknown;
          // The first failure heard, unless it was a file refused at its first bytes: that only
          // sends transformers.js on to the next place (the app's folder, then the hub), so a later
          // failure that names a file (a refusal there too, a cut, a wrong hash) says more.
          const heard = (error: unknown) => {
            if (fileFailure === undefined || (refusedBeforeBody(fileFailure) && error instanceof GatewayError)) fileFailure = error;
          };
          const stopWatching = progress?.watch(model.source, { onBytes: tell, onFailure: (_file, error) => heard(error) });
          let loaded: PipelineTasks[T];
          try {
            const on = await device();
            loaded = (await pipeline(task, model.source, {
              device: on,
              dtype: (on === 'wasm' && model.wasmDtype ? model.wasmDtype : model.dtype) as PipelineOptions['dtype'],
              local_files_only: model.localOnly ?? false,
              ...(progress ? {} : { progress_callback: (info: ProgressInfo) => fromEngine(info, tell) }),
            })) as PipelineTasks[T];
          } catch (error) {
            // A file still being checked may be why the engine failed (its bytes were wrong): the
            // error naming it is the cause to report.
            await cache?.settled(model.source).catch(heard);
            throw fileFailure ?? error;
          } finally {
            stopWatching?.();
          }
          try {
            // The model's files are checked and stored beside the engine's own work (verified-cache.ts):
            // the load is done when they are, and fails if one was not the catalog's file.
            await cache?.settled(model.source);
            // Storing a file that did not fit does not stop transformers.js; such a model is
            // reported, not kept half-stored (the files that did fit are whole, and kept).
            const [quota] = cache?.takeQuotaFailures(model.source) ?? [];
            if (quota) throw quotaExceeded(`the model "${model.id}"`, quota.url, quota.bytes);
          } catch (failure) {
            await (loaded as { dispose(): Promise<unknown> }).dispose().catch(() => {});
            throw failure;
          }
          return loaded;
        })().catch((cause: unknown) => {
          loads.delete(model.id);
          throw loadFailure(model.id, cause);
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

/** transformers.js's progress (Node, which reads local files itself): bytes per file, and each file's end. */
function fromEngine(info: ProgressInfo, tell: (bytes: FileBytes) => void): void {
  if (info.status === 'progress') tell({ file: info.file, loaded: info.loaded, total: info.total, cached: false });
  else if (info.status === 'done') tell({ file: info.file, loaded: 1, total: 1, cached: false });
}

/** Room for the files of the model not stored yet, when the catalog gives their sizes. */
async function checkRoomFor(model: LoadRequest): Promise<void> {
  if (!model.files) return;
  const total = Object.values(model.files).reduce((sum, file) => sum + (file.bytes ?? 0), 0);
  // Cached files are grouped by the folder they came from: the model's source, which an app may name apart from its id.
  const stored = bytesOf(groupsForModel(await listCachedModels('transformers'), { id: model.id, engine: 'transformers', source: model.source }));
  await checkRoom(total - stored, `the model "${model.id}"`);
}

/** Storage and integrity failures keep their code (507, or 503 naming the file); others name the model. */
function loadFailure(modelId: string, cause: unknown): GatewayError {
  for (let e = cause, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof GatewayError && (e.code === 'insufficient_storage' || e.code === 'model_unavailable')) {
      return e.message.includes(`"${modelId}"`) ? e : new GatewayError(e.code, `Model "${modelId}" could not be loaded: ${e.message}`, { cause: e });
    }
  }
  if (isQuotaError(cause)) return insufficientStorage(`the model "${modelId}"`, undefined, undefined);
  return modelUnavailable(modelId, cause);
}
