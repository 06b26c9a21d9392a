/**
 * The engines' own download caches, read and cleared through Cache Storage (the libraries offer
 * no API for this): transformers.js keeps files in `transformers-cache` (bundled models under their
 * `/models/<id>/` path, hub models under `…/<repo>/resolve/<rev>/…`), web-llm in `webllm/model`,
 * `webllm/config` and `webllm/wasm`; unfinished downloads of either wait in `PARTIAL_CACHES`.
 * Entries are grouped per model repository, and a group belongs
 * to a catalog model by one rule (`groupsForModel`), so the size `GET /models` reports is what the
 * playground's Delete removes. No DOM: `caches` exists in pages and workers; in Node there is none.
 * @module
 */

export type CacheEngine = 'transformers' | 'webllm';

export interface CachedGroup {
  /** The repository or folder the files came from, e.g. `Xenova/all-MiniLM-L6-v2`, `models/tiny-chat`. */
  readonly label: string;
  readonly engine: CacheEngine;
  /** The Cache Storage cache each file is in, and its URL there. */
  readonly entries: { readonly cache: string; readonly url: string }[];
  bytes: number;
  /** Of `bytes`, those of unfinished downloads (partial-store.ts): not a file any engine reads. */
  partialBytes: number;
}

export const TRANSFORMERS_CACHE = 'transformers-cache';
export const WEBLLM_CACHES = { model: 'webllm/model', config: 'webllm/config', wasm: 'webllm/wasm' } as const;
/** Unfinished downloads of each engine's files, kept to resume them (partial-store.ts). */
export const PARTIAL_CACHES = { transformers: 'inpage-llm-partial/transformers', webllm: 'inpage-llm-partial/webllm' } as const satisfies Record<CacheEngine, string>;

function engineOf(cacheName: string): CacheEngine | undefined {
  if (cacheName === TRANSFORMERS_CACHE || cacheName === PARTIAL_CACHES.transformers) return 'transformers';
  if (cacheName === PARTIAL_CACHES.webllm) return 'webllm';
  if (cacheName.startsWith('webllm/')) return 'webllm';
  return undefined;
}

/**
 * Every cached model file, grouped (of one engine when `only` is given). Caches that do not exist
 * are not created; where there is no Cache Storage (Node) the list is empty.
 */
export async function listCachedModels(only?: CacheEngine): Promise<CachedGroup[]> {
  if (typeof caches === 'undefined') return [];
  const groups = new Map<string, CachedGroup>();
  for (const name of await caches.keys()) {
    const engine = engineOf(name);
    if (!engine || (only && engine !== only)) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const label = groupLabel(request.url, name);
      const key = `${engine}:${label}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { label, engine, entries: [], bytes: 0, partialBytes: 0 }));
      group.entries.push({ cache: name, url: request.url });
      const size = await entrySize(cache, request);
      group.bytes += size;
      if (name === PARTIAL_CACHES[engine]) group.partialBytes += size;
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
  if (cacheName === WEBLLM_CACHES.wasm || (cacheName === PARTIAL_CACHES.webllm && pathname.endsWith('.wasm'))) return parts.at(-1) ?? pathname;
  const folder = parts.slice(0, -1);
  // transformers.js keeps a model's weights in its `onnx/` subfolder: they belong with its config.
  if (folder.at(-1) === 'onnx') folder.pop();
  // A model folder under the app's `models/` is named from there, however deep (`models/team/x`).
  const models = folder.lastIndexOf('models');
  if (models !== -1 && folder.length > models + 1) return ['models', ...folder.slice(models + 1)].join('/');
  return folder.join('/') || pathname;
}

/**
 * The groups holding a model's files. transformers.js repos end in the model id (or the id adds a
 * suffix such as `-onnx`); web-llm repos and libraries are a short id plus a variant
 * (`-q4f16_1-MLC`), or web-llm's own id (plus `-1k` for a smaller-context twin of the same files).
 * A transformers.js model given with its `source` owns the group that source names, and only that.
 */
export function groupsForModel(groups: readonly CachedGroup[], model: { readonly id: string; readonly engine: string; readonly source?: string }): CachedGroup[] {
  const source = model.source?.replace(/^\/+|\/+$/g, '');
  return groups.filter((group) => {
    if (group.engine !== model.engine) return false;
    // A transformers.js model's folder is its source (a hub repository, or a path in the models folder), whatever its id.
    if (source) return group.label === source || group.label.endsWith(`/${source}`);
    const last = group.label.split('/').at(-1) ?? '';
    // A short id owns its variants' folders; a web-llm id its own folder, which `-1k` ids share.
    if (group.engine === 'webllm') return last.startsWith(`${model.id}-`) || last === model.id || model.id.startsWith(`${last}-`);
    return last === model.id || model.id.startsWith(`${last}-`);
  });
}

export function bytesOf(groups: readonly CachedGroup[]): number {
  return groups.reduce((sum, group) => sum + group.bytes, 0);
}

/** Bytes of unfinished downloads among `groups`. */
export function partialBytesOf(groups: readonly CachedGroup[]): number {
  return groups.reduce((sum, group) => sum + group.partialBytes, 0);
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
