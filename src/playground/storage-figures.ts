/**
 * The storage figures the models panel shows (quota, usage, persistence). Which cached files
 * belong to which model is decided as the engine decides it (`engines/files/model-cache.ts`, by the
 * source each model's state names: `cachedFilesOf` in model-groups.ts), for Delete and for the
 * files no listed model uses.
 * @module
 */

export interface StorageFigures {
  readonly usage?: number;
  readonly quota?: number;
  /** Whether the browser promised not to evict this origin's data under storage pressure. */
  readonly persisted?: boolean;
}

export async function storageFigures(): Promise<StorageFigures> {
  const storage = navigator.storage;
  if (!storage?.estimate) return {};
  const [estimate, persisted] = await Promise.all([storage.estimate(), storage.persisted?.().catch(() => undefined)]);
  return { usage: estimate.usage, quota: estimate.quota, persisted };
}
