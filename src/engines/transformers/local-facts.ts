/**
 * What the transformers.js adapter knows of its models on this device. transformers.js keeps
 * every file it fetched in Cache Storage (`transformers-cache`), bundled models included: the
 * service worker keeps the app shell only, so a bundled model loads offline once it is cached.
 * Where there is no Cache Storage (Node), models are read from local disk: those the runtime finds
 * in its models folder (`onDisk`), or, where it has no such check, the bundled ones.
 * @module
 */
import type { CpuEngineFacts, LocalFacts, PrefixCacheFigures } from '../../core/engine.ts';
import { bytesOf, clearFinishedParts, groupsForModel, listCachedModels, partialBytesOf, TRANSFORMERS_CACHE } from '../files/index.ts';
import { supportsWebGPU, type DeviceChoice, type DeviceOption } from './device.ts';
import type { TransformersModelSpec } from '../catalog/transformers-model-spec.ts';

export async function readLocalFacts(
  specs: readonly TransformersModelSpec[],
  chosen: DeviceOption,
  device: () => Promise<DeviceChoice>,
  onDisk?: (source: string) => Promise<boolean>,
  prefixCache?: (model: string) => PrefixCacheFigures,
  cpu?: CpuEngineFacts,
): Promise<Map<string, LocalFacts>> {
  // Parts of files that are whole go first: they are no download left to resume, and would count twice.
  const groups = clearFinishedParts('transformers').catch(() => 0).then(() => listCachedModels('transformers'));
  const [{ device: backend, reason: backendReason }, cached] = await Promise.all([device(), groups]);
  // `auto` only picks WebGPU when there is an adapter; a forced `webgpu` may have none.
  const missingGpu = chosen === 'webgpu' && !(await supportsWebGPU());
  const support: Pick<LocalFacts, 'runnable' | 'backend' | 'backendReason' | 'cpu' | 'reason' | 'requires'> = missingGpu
    ? { runnable: false, reason: 'The engine is set to WebGPU (device: webgpu), but this browser offers no WebGPU adapter.', requires: ['webgpu'] }
    : { runnable: true, backend, backendReason, ...(backend === 'wasm' && cpu ? { cpu } : {}), requires: backend === 'webgpu' ? ['webgpu'] : [] };
  const storage = typeof caches !== 'undefined';
  const facts = new Map<string, LocalFacts>();
  for (const spec of specs) {
    const mine = groupsForModel(cached, { ...spec.info, source: spec.source });
    // Counted as downloaded once its weights (.onnx) are cached; config and tokenizer files are
    // small and fetched first or alongside. An unfinished download's parts are not weights.
    const weights = mine.some((group) => group.entries.some((entry) => entry.cache === TRANSFORMERS_CACHE && /\.onnx(_data)?$/.test(new URL(entry.url).pathname)));
    const partialBytes = partialBytesOf(mine);
    // Without Cache Storage (Node), a model's files are on disk when the runtime finds them in the
    // models folder (`onDisk`: bundled ones too, which are there only if written there); without
    // that check, bundled ones are taken to ship with the app.
    const local = storage ? weights && partialBytes === 0 : onDisk ? await onDisk(spec.source).catch(() => false) : spec.bundled === true;
    const cache = spec.info.kind === 'chat' ? prefixCache?.(spec.info.id) : undefined;
    // Its source names its files' group, whatever its id: the page groups and deletes them by it (only where they are cached).
    facts.set(spec.info.id, { downloaded: local, bytesOnDisk: bytesOf(mine), ...(partialBytes > 0 ? { partialBytes } : {}), ...(cache ? { prefixCache: cache } : {}), ...support, ...(storage ? { source: spec.source } : {}) });
  }
  return facts;
}
