/**
 * What the web-llm adapter knows of its models on this device, without loading any of them: the
 * GPU probe it already runs and each record's needs decide whether a model can run and which
 * variant it would load (device-fit.ts), and Cache Storage (`webllm/model`, `webllm/config`,
 * `webllm/wasm`) what is stored. Cache Storage is walked once for the whole list, and each
 * cached weight index read once, however many ids share it.
 * @module
 */
import type { ModelRecord } from '@mlc-ai/web-llm';
import type { LocalFacts } from '../../core/engine.ts';
import { bytesOf, clearFinishedParts, groupsForModel, listCachedModels, partialBytesOf, WEBLLM_CACHES } from '../files/index.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { fitOf, requirementsOf } from './device-fit.ts';
import { modelBaseUrl } from './fetch-files.ts';
import type { GpuInfo } from './gpu.ts';
import { pickVariant } from './variant.ts';

/** What a cached weight index says: every shard it lists is stored, and their bytes. */
interface IndexFacts {
  readonly complete: boolean;
  readonly bytes: number;
}

export async function readLocalFacts(specs: readonly WebLLMModelSpec[], records: ReadonlyMap<string, ModelRecord>, gpu: GpuInfo | null): Promise<Map<string, LocalFacts>> {
  // Parts of files that are whole go first: they are no download left to resume, and would count twice.
  await clearFinishedParts('webllm').catch(() => 0);
  const groups = await listCachedModels('webllm');
  const cached = new Set(groups.flatMap((group) => group.entries.filter((e) => e.cache === WEBLLM_CACHES.model).map((e) => e.url)));
  const indexes = new Map<string, Promise<IndexFacts | undefined>>();
  const facts = new Map<string, LocalFacts>();
  for (const spec of specs) {
    const mine = groupsForModel(groups, spec.info);
    const variant = pickVariant(spec, gpu?.hasShaderF16 ?? false);
    const record = records.get(variant);
    if (!record) continue;
    const fit = fitOf(record, gpu);
    const indexUrl = new URL('tensor-cache.json', modelBaseUrl(record.model)).href;
    const index = cached.has(indexUrl) ? await memo(indexes, indexUrl, () => readIndex(indexUrl, cached)) : undefined;
    const partialBytes = partialBytesOf(mine);
    facts.set(spec.info.id, {
      downloaded: index?.complete ?? false,
      bytesOnDisk: bytesOf(mine),
      ...(partialBytes > 0 ? { partialBytes } : {}),
      requires: requirementsOf(record),
      ...(fit.runnable ? { runnable: true, backend: 'webgpu' as const } : { runnable: false, reason: fit.reason }),
      variant,
      ...(record.vram_required_MB !== undefined ? { vramRequiredMB: record.vram_required_MB } : {}),
      ...(record.low_resource_required !== undefined ? { lowResource: record.low_resource_required } : {}),
      ...(index ? { downloadBytes: index.bytes } : {}),
    });
  }
  return facts;
}

function memo<T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) cache.set(key, (value = read()));
  return value;
}

/**
 * Whether every weight shard the index lists is cached, as web-llm's own `hasModelInCache`
 * decides (like web-llm, the model library is not checked: web-llm does not cache libraries
 * served from localhost at all), and the shards' bytes: the model's download size.
 */
async function readIndex(url: string, cached: ReadonlySet<string>): Promise<IndexFacts | undefined> {
  try {
    const response = await (await caches.open(WEBLLM_CACHES.model)).match(url);
    if (!response) return undefined;
    const { records } = (await response.json()) as { records?: { dataPath: string; nbytes?: number }[] };
    if (!Array.isArray(records)) return undefined;
    return {
      complete: records.every((record) => cached.has(new URL(record.dataPath, url).href)),
      bytes: records.reduce((sum, record) => sum + (typeof record.nbytes === 'number' ? record.nbytes : 0), 0),
    };
  } catch {
    // An unreadable index: web-llm would fetch the model again.
    return undefined;
  }
}
