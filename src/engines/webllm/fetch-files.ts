/**
 * A web-llm model's files fetched by the product before web-llm loads it, into the Cache Storage
 * entries web-llm 0.2.x reads (`webllm/config` for `mlc-chat-config.json`, `webllm/model` for
 * `tensor-cache.json`, the tokenizer and every weight shard, `webllm/wasm` for the model library,
 * each keyed by its URL). web-llm fetches a file only when its entry is missing (`Cache.add`), so
 * its `reload()` then finds them all and downloads nothing. Unlike `Cache.add`, each file here is
 * resumable (a cut shard continues from its last byte, across reloads: resumable-download.ts),
 * refused when it is an HTML page, checked against its size (the shard sizes `tensor-cache.json`
 * lists) and hash (the record's `integrity`) before it is stored, and told as progress by bytes.
 * See docs/decisions/resumable-downloads.md.
 * @module
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import type { DownloadState } from '../../contracts/model-progress.ts';
import { checkedModelFetch, verifyFile, WEBLLM_CACHES, type FileCheck, type ResumeOptions } from '../files/index.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface FetchFilesOptions {
  readonly fetch?: Fetch;
  readonly resume?: ResumeOptions;
  /** Bytes of one file (`file`: its path under the model folder, or the library's name). */
  readonly onBytes?: (bytes: { file: string; loaded: number; total: number; cached: boolean; download?: DownloadState }) => void;
  readonly room?: (bytes: number, url: string) => Promise<void>;
  readonly signal?: AbortSignal;
  /** Files fetched at once (web-llm's own loader uses 4). */
  readonly parallel?: number;
}

/** web-llm's own rule: a model URL without `/resolve/<rev>/` gets `resolve/main/` appended. */
export function modelBaseUrl(model: string, base = globalThis.location?.href): string {
  let url = model.endsWith('/') ? model : `${model}/`;
  if (!/.+\/resolve\/.+\//.test(url)) url += 'resolve/main/';
  return new URL(url, base).href;
}

/**
 * Fetches what `record` needs that the caches lack. A library web-llm would not cache (a relative
 * URL or one on `localhost`: web-llm fetches those itself each time) is left to web-llm; so is a
 * record with a package manifest, which the adapter does not pass here.
 */
export async function fetchWebLLMFiles(record: ModelRecord, options: FetchFilesOptions = {}): Promise<void> {
  const base = modelBaseUrl(record.model);
  const plain = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const fileOf = (url: string) => (url.startsWith(base) ? url.slice(base.length) : url.slice(url.lastIndexOf('/') + 1));
  const checked = checkedModelFetch(plain, {
    ...(options.resume ? { resume: options.resume } : {}),
    ...(options.room ? { room: options.room } : {}),
    onBytes: (url, loaded, total, download) =>
      options.onBytes?.({
        file: fileOf(url),
        loaded,
        total,
        cached: false,
        ...(download ? { download } : {}),
      }),
  });
  const integrity = record.integrity;
  const configUrl = new URL('mlc-chat-config.json', base).href;
  const json = async <T>(cache: string, url: string, check: FileCheck) => JSON.parse(new TextDecoder().decode(await stored(cache, url, checked, options, check, fileOf, true))) as T;
  const config = await json<{ tokenizer_files?: string[] }>(WEBLLM_CACHES.config, configUrl, integrity?.config ? { integrity: integrity.config } : {});
  const index = await json<{ records?: { dataPath: string; nbytes: number }[] }>(WEBLLM_CACHES.model, new URL('tensor-cache.json', base).href, {});
  const files: { cache: string; url: string; check: FileCheck }[] = [];
  const tokenizer = config.tokenizer_files?.includes('tokenizer.json') ? 'tokenizer.json' : config.tokenizer_files?.includes('tokenizer.model') ? 'tokenizer.model' : undefined;
  if (tokenizer) files.push({ cache: WEBLLM_CACHES.model, url: new URL(tokenizer, base).href, check: integrity?.tokenizer?.[tokenizer] ? { integrity: integrity.tokenizer[tokenizer] } : {} });
  for (const shard of index.records ?? []) files.push({ cache: WEBLLM_CACHES.model, url: new URL(shard.dataPath, base).href, check: { bytes: shard.nbytes } });
  const lib = record.model_lib;
  if (/^https?:/.test(lib) && !lib.includes('localhost')) files.push({ cache: WEBLLM_CACHES.wasm, url: lib, check: integrity?.model_lib ? { integrity: integrity.model_lib } : {} });
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      options.signal?.throwIfAborted();
      await stored(file.cache, file.url, checked, options, file.check, fileOf);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 4) }, worker));
}

/**
 * The file from `cacheName` when it is there, else fetched, checked and stored there (by its URL,
 * as web-llm keys it); its bytes when `read` (a cached weight shard is not read here: web-llm reads it).
 */
async function stored(cacheName: string, url: string, checked: Fetch, options: FetchFilesOptions, check: FileCheck, fileOf: (url: string) => string, read = false): Promise<ArrayBuffer> {
  const cache = await caches.open(cacheName);
  const hit = await cache.match(url);
  if (hit) {
    const bytes = read ? await hit.arrayBuffer() : undefined;
    const size = bytes?.byteLength ?? (Number(hit.headers.get('content-length')) || 0);
    options.onBytes?.({ file: fileOf(url), loaded: size, total: size, cached: true });
    return bytes ?? new ArrayBuffer(0);
  }
  const response = await checked(url, options.signal ? { signal: options.signal } : undefined);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  const bytes = await response.arrayBuffer();
  // Shards have their size from the index; the record's hashes cover the config, tokenizer and library.
  await verifyFile(url, bytes, check);
  await cache.put(url, new Response(bytes, { headers: { 'content-type': response.headers.get('content-type') ?? 'application/octet-stream', 'content-length': String(bytes.byteLength) } }));
  return bytes;
}
