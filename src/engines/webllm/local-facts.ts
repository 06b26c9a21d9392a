/**
 * What the web-llm adapter knows of its models on this device, without loading web-llm itself:
 * the GPU probe it already runs decides whether a model can run (WebGPU only) and which variant
 * it would load, and Cache Storage (`webllm/model`, `webllm/config`, `webllm/wasm`) what is stored.
 * @module
 */
import type { LocalFacts } from '../adapter.ts';
import { bytesOf, groupsForModel, listCachedModels, partialBytesOf, WEBLLM_CACHES, type CachedGroup } from '../model-cache.ts';
import { clearFinishedParts } from '../partial-store.ts';
import type { WebLLMModelSpec } from './app-config.ts';
import type { GpuInfo } from './gpu.ts';
import { needsShaderF16, pickVariant } from './variant.ts';

const NO_WEBGPU = 'WebGPU is not available here (no adapter), and WebLLM models run only on WebGPU.';

export async function readLocalFacts(specs: readonly WebLLMModelSpec[], gpu: GpuInfo | null): Promise<Map<string, LocalFacts>> {
  // Parts of files that are whole go first: they are no download left to resume, and would count twice.
  await clearFinishedParts('webllm').catch(() => 0);
  const groups = await listCachedModels('webllm');
  const facts = new Map<string, LocalFacts>();
  for (const spec of specs) {
    const mine = groupsForModel(groups, spec.info);
    const variant = pickVariant(spec, gpu?.hasShaderF16 ?? false);
    const requires = needsShaderF16(spec, variant) ? ['webgpu', 'shader-f16'] : ['webgpu'];
    const support = gpu ? { runnable: true, backend: 'webgpu' as const } : { runnable: false, reason: NO_WEBGPU };
    const partialBytes = partialBytesOf(mine);
    facts.set(spec.info.id, { downloaded: await hasWeights(mine, variant), bytesOnDisk: bytesOf(mine), ...(partialBytes > 0 ? { partialBytes } : {}), requires, ...support });
  }
  return facts;
}

/**
 * Whether every weight shard of `variant` is cached, as web-llm's own `hasModelInCache` decides:
 * its `tensor-cache.json` and each file that lists. (Like web-llm, the model library is not
 * checked: web-llm does not cache libraries served from localhost at all.)
 */
async function hasWeights(groups: readonly CachedGroup[], variant: string): Promise<boolean> {
  const folder = groups.find((group) => group.label.split('/').at(-1) === variant && group.entries.some((e) => e.cache === WEBLLM_CACHES.model));
  const index = folder?.entries.find((e) => e.cache === WEBLLM_CACHES.model && e.url.endsWith('/tensor-cache.json'));
  if (!folder || !index) return false;
  try {
    const response = await (await caches.open(WEBLLM_CACHES.model)).match(index.url);
    if (!response) return false;
    const { records } = (await response.json()) as { records?: { dataPath: string }[] };
    if (!Array.isArray(records)) return false;
    const cached = new Set(folder.entries.map((e) => e.url));
    return records.every((record) => cached.has(new URL(record.dataPath, index.url).href));
  } catch {
    // An unreadable index: web-llm would fetch the model again.
    return false;
  }
}
