/**
 * The web-llm `AppConfig` for our catalog. Records come from the installed web-llm's own
 * `prebuiltAppConfig`, so each model library URL carries the `modelVersion` whose ABI matches the
 * tvmjs runtime bundled in that web-llm (a library of another version fails at load).
 * @module
 */

import { ModelType, prebuiltAppConfig, type AppConfig, type ModelRecord } from '@mlc-ai/web-llm';
import type { ModelInfo } from '../../core/engine.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import type { SelfHost } from '../../contracts/worker-config.ts';

export type { SelfHost };

// Its own module, so the adapter can pick a variant without importing web-llm; re-exported here.
export { pickVariant } from './variant.ts';

export interface AppConfigOptions {
  readonly selfHost?: SelfHost;
  /** Where web-llm keeps downloaded files (its default: Cache Storage). */
  readonly cacheBackend?: AppConfig['cacheBackend'];
  /** The records to pick from; default web-llm's `prebuiltAppConfig` (tests may pass their own). */
  readonly prebuilt?: AppConfig;
}

/** Both variants of every spec (deduplicated) as web-llm records; throws on an unknown `model_id`. */
export function buildAppConfig(specs: readonly WebLLMModelSpec[], options: AppConfigOptions = {}): AppConfig {
  const prebuilt = options.prebuilt ?? prebuiltAppConfig;
  const records = new Map<string, ModelRecord>();
  for (const spec of specs) {
    for (const id of variantIds(spec)) {
      if (records.has(id)) continue;
      const record = spec.record ? { ...spec.record, model_id: id } : toRecord(findPrebuiltRecord(id, prebuilt, spec.info.id), options.selfHost);
      checkRecord(spec.info, record);
      records.set(id, record);
    }
  }
  const config: AppConfig = { model_list: [...records.values()] };
  if (options.cacheBackend !== undefined) config.cacheBackend = options.cacheBackend;
  return config;
}

export function findPrebuiltRecord(modelId: string, prebuilt: AppConfig = prebuiltAppConfig, catalogId?: string): ModelRecord {
  const record = prebuilt.model_list.find((r) => r.model_id === modelId);
  if (record) return record;
  const forModel = catalogId === undefined ? '' : ` (catalog model "${catalogId}")`;
  throw new Error(`Unknown web-llm model_id "${modelId}"${forModel}: it is not in the installed @mlc-ai/web-llm's prebuiltAppConfig.`);
}

function variantIds(spec: WebLLMModelSpec): string[] {
  return spec.variants.f16 === undefined ? [spec.variants.f32] : [spec.variants.f16, spec.variants.f32];
}

/**
 * Copies only what loading needs. The self-hosted `model` URL already ends in `resolve/main/`
 * because web-llm appends that to any URL without a `/resolve/<rev>/` part, so a plain folder URL
 * would be fetched from a path the folder does not have.
 */
function toRecord(source: ModelRecord, selfHost: SelfHost | undefined): ModelRecord {
  const record: ModelRecord = { ...source };
  if (source.overrides) record.overrides = { ...source.overrides };
  if (selfHost) {
    record.model = `${trimSlash(selfHost.modelBase)}/${source.model_id}/resolve/main/`;
    record.model_lib = `${trimSlash(selfHost.libBase)}/${basename(source.model_lib)}`;
  }
  return record;
}

/**
 * Catches catalog mistakes at startup: a chat entry naming an embedding record (web-llm would load
 * the wrong pipeline), or more advertised context than web-llm's KV cache holds.
 */
function checkRecord(info: ModelInfo, record: ModelRecord): void {
  const isEmbedding = record.model_type === ModelType.embedding;
  if (isEmbedding !== (info.kind === 'embedding')) {
    throw new Error(`Catalog model "${info.id}" is a ${info.kind} model, but web-llm's "${record.model_id}" is ${isEmbedding ? 'an embedding' : 'a chat'} model.`);
  }
  const window = record.overrides?.context_window_size;
  if (info.kind === 'chat' && window !== undefined && window > 0 && info.contextWindow > window) {
    throw new Error(
      `Catalog model "${info.id}" advertises a ${info.contextWindow}-token context, but web-llm runs "${record.model_id}" with ${window}.`,
    );
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function basename(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1);
}
