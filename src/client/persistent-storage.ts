/**
 * Persistent storage for the hosting tab, asked for once, when a model's files first start
 * downloading (a page that downloads nothing asks nothing), so that downloaded models are not
 * evicted under storage pressure.
 * @module
 */
import type { LoadProgress } from '../contracts/model-progress.ts';

export interface StoragePersistence {
  /** Watches load progress: the first download asks. */
  watch(progress: LoadProgress): void;
  /** Whether it was granted; undefined until it was asked. */
  granted(): Promise<boolean | undefined>;
}

export function createStoragePersistence(): StoragePersistence {
  let persisted: Promise<boolean> | undefined;
  return {
    watch(progress) {
      if (progress.status !== 'progress' || progress.cached || persisted || !navigator.storage?.persist) return;
      persisted = navigator.storage.persist().catch(() => false);
      void persisted.then((granted) => {
        if (!granted) console.info('inpage-llm: the browser did not grant persistent storage: downloaded models may be evicted under storage pressure.');
      });
    },
    granted: async () => (persisted ? await persisted : undefined),
  };
}
