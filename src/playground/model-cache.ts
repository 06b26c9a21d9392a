/**
 * The engines' own download caches, read and cleared through Cache Storage (the runtime offers no
 * API for this): transformers.js keeps files in `transformers-cache` (bundled models under their
 * `/models/<id>/` path, hub models under `…/<repo>/resolve/<rev>/…`), web-llm in `webllm/model`,
 * `webllm/config` and `webllm/wasm`. Entries are grouped per model repository.
 * @module
 */

export type CacheEngine = 'transformers' | 'webllm';

export interface CachedGroup {
  /** The repository or folder the files came from, e.g. `Xenova/all-MiniLM-L6-v2`, `models/tiny-chat`. */
  readonly label: string;
  readonly engine: CacheEngine;
  readonly entries: { readonly cache: string; readonly url: string }[];
  bytes: number;
}

const TRANSFORMERS_CACHE = 'transformers-cache';

function engineOf(cacheName: string): CacheEngine | undefined {
  if (cacheName === TRANSFORMERS_CACHE) return 'transformers';
  if (cacheName.startsWith('webllm/')) return 'webllm';
  return undefined;
}

/** Every cached model file, grouped; caches that do not exist are not created. */
export async function listCachedModels(): Promise<CachedGroup[]> {
  if (typeof caches === 'undefined') return [];
  const groups = new Map<string, CachedGroup>();
  for (const name of await caches.keys()) {
    const engine = engineOf(name);
    if (!engine) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const label = groupLabel(request.url, name);
      const key = `${engine}:${label}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { label, engine, entries: [], bytes: 0 }));
      group.entries.push({ cache: name, url: request.url });
      group.bytes += await entrySize(cache, request);
    }
  }
  return [...groups.values()].sort((a, b) => a.label.localeCompare(b.label));
}

/** Which folder or repository a cached URL belongs to. */
export function groupLabel(url: string, cacheName: string): string {
  const { pathname } = new URL(url);
  const resolve = pathname.indexOf('/resolve/');
  if (resolve !== -1) return decodeURIComponent(pathname.slice(1, resolve));
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  // web-llm's model libraries are single files named after the model variant.
  if (cacheName === 'webllm/wasm') return parts.at(-1) ?? pathname;
  const models = parts.lastIndexOf('models');
  if (models !== -1 && parts.length > models + 1) return `models/${parts[models + 1]}`;
  return parts.slice(0, -1).join('/') || pathname;
}

/**
 * The groups holding a model's files. transformers.js repos end in the model id (or the id adds a
 * suffix such as `-onnx`); web-llm repos and libraries are the id plus a variant (`-q4f16_1-MLC`).
 */
export function groupsForModel(groups: readonly CachedGroup[], model: { readonly id: string; readonly engine: string }): CachedGroup[] {
  return groups.filter((group) => {
    if (group.engine !== model.engine) return false;
    const last = group.label.split('/').at(-1) ?? '';
    if (group.engine === 'webllm') return last.startsWith(`${model.id}-`);
    return last === model.id || model.id.startsWith(`${last}-`);
  });
}

export async function deleteGroups(groups: readonly CachedGroup[]): Promise<void> {
  for (const group of groups) {
    for (const entry of group.entries) {
      const cache = await caches.open(entry.cache);
      await cache.delete(entry.url);
    }
  }
}

async function entrySize(cache: Cache, request: Request): Promise<number> {
  const response = await cache.match(request);
  if (!response) return 0;
  const length = Number(response.headers.get('content-length'));
  if (Number.isFinite(length) && length > 0) return length;
  // No length header: the body's own size (a Blob handle onto the cached body, not a parse).
  return (await response.blob()).size;
}

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
