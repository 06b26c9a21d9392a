/**
 * The app's own models (`startInference({ engine: { models } })`) as catalog entries of their
 * engines. Entries arrive as plain data from the page, so each is checked here and a mistake is
 * named at startup rather than met as a failed load later.
 * @module
 */
import type { ModelInfo } from '../core/engine.ts';
import type { ModelEntry, TransformersModelEntry, WebLLMModelEntry } from '../contracts/worker-config.ts';
import { isIntegrity, type FileChecks } from './file-integrity.ts';
import type { TransformersModelSpec } from './transformers/transformers-engine.ts';
import type { WebLLMModelSpec } from './webllm/app-config.ts';

export interface Catalog {
  readonly transformers: readonly TransformersModelSpec[];
  readonly webllm: readonly WebLLMModelSpec[];
}

/** The catalog with the app's entries added; an entry with a catalog model's id replaces it. */
export function withAppModels(catalog: Catalog, entries: readonly ModelEntry[] = [], origin?: string): Catalog {
  const ids = new Set<string>();
  for (const entry of entries) {
    if (typeof entry?.id !== 'string' || entry.id === '') throw new Error('Each of engine.models needs an `id` (the name clients send as `model`).');
    if (ids.has(entry.id)) throw new Error(`engine.models names "${entry.id}" twice.`);
    ids.add(entry.id);
  }
  const kept = <T extends { info: ModelInfo }>(specs: readonly T[]) => specs.filter((spec) => !ids.has(spec.info.id));
  return {
    transformers: [...kept(catalog.transformers), ...entries.filter(isTransformers).map((e) => transformersSpec(e, origin))],
    webllm: [...kept(catalog.webllm), ...entries.filter(isWebLLM).map(webllmSpec)],
  };
}

const isTransformers = (entry: ModelEntry): entry is TransformersModelEntry => entry.engine === 'transformers';
const isWebLLM = (entry: ModelEntry): entry is WebLLMModelEntry => {
  if (entry.engine === 'webllm' || entry.engine === 'transformers') return entry.engine === 'webllm';
  throw new Error(`engine.models "${(entry as ModelEntry).id}": engine must be "transformers" or "webllm", not ${JSON.stringify((entry as { engine?: unknown }).engine)}.`);
};

function transformersSpec(entry: TransformersModelEntry, origin: string | undefined): TransformersModelSpec {
  if (entry.kind !== 'chat' && entry.kind !== 'embedding') throw new Error(`engine.models "${entry.id}": kind must be "chat" or "embedding".`);
  if (typeof entry.source !== 'string' || entry.source === '') throw new Error(`engine.models "${entry.id}": source must name a Hugging Face repo or a folder of this app.`);
  const contextWindow = entry.contextWindow ?? (entry.kind === 'chat' ? 2048 : 512);
  return {
    info: {
      id: entry.id,
      kind: entry.kind,
      engine: 'transformers',
      contextWindow,
      ...(entry.displayName !== undefined ? { displayName: entry.displayName } : {}),
      ...(entry.kind === 'chat' ? { maxOutputTokens: entry.maxOutputTokens ?? contextWindow } : {}),
      ...(entry.dimensions !== undefined ? { dimensions: entry.dimensions } : {}),
    },
    source: localSource(entry, origin),
    ...(entry.dtype !== undefined ? { dtype: entry.dtype } : {}),
    ...(entry.pooling !== undefined ? { pooling: entry.pooling } : {}),
    ...(entry.normalize !== undefined ? { normalize: entry.normalize } : {}),
    ...(entry.files !== undefined ? { files: fileChecks(entry) } : {}),
  };
}

function fileChecks(entry: TransformersModelEntry): FileChecks {
  const files = entry.files;
  if (typeof files !== 'object' || files === null) throw new Error(`engine.models "${entry.id}": files must map file paths to { bytes, integrity }.`);
  for (const [path, check] of Object.entries(files)) {
    const { bytes, integrity } = (check ?? {}) as { bytes?: unknown; integrity?: unknown };
    if (bytes !== undefined && !(Number.isSafeInteger(bytes) && (bytes as number) >= 0)) throw new Error(`engine.models "${entry.id}": files["${path}"].bytes must be a whole number of bytes.`);
    if (integrity !== undefined && !isIntegrity(integrity)) throw new Error(`engine.models "${entry.id}": files["${path}"].integrity must be an SRI hash such as "sha256-<base64>".`);
  }
  return files;
}

/**
 * transformers.js fetches a repo id from its remote host and anything else as a path of this
 * origin; a full URL it would refuse (it never fetches one directly). A same-origin URL becomes
 * its path; another origin is named as the mistake it is.
 */
function localSource(entry: TransformersModelEntry, origin: string | undefined): string {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(entry.source)) return entry.source.replace(/\/+$/, '');
  const url = new URL(entry.source);
  if (origin !== undefined && url.origin === origin) return url.pathname.replace(/\/+$/, '');
  throw new Error(
    `engine.models "${entry.id}": transformers.js loads a model from a Hugging Face repo id (via transformersRemoteHost) or from a folder of this app's origin, not from ${url.origin}. Serve the folder from this origin, or set transformersRemoteHost to a mirror with the hub's layout.`,
  );
}

function webllmSpec(entry: WebLLMModelEntry): WebLLMModelSpec {
  if (entry.kind !== undefined && entry.kind !== 'chat') throw new Error(`engine.models "${entry.id}": web-llm entries are chat models.`);
  for (const field of ['modelUrl', 'modelLib'] as const) {
    if (typeof entry[field] !== 'string' || entry[field] === '') throw new Error(`engine.models "${entry.id}": ${field} must be a URL.`);
  }
  const contextWindow = entry.contextWindow ?? 4096;
  return {
    info: {
      id: entry.id,
      kind: 'chat',
      engine: 'webllm',
      contextWindow,
      maxOutputTokens: entry.maxOutputTokens ?? contextWindow,
      ...(entry.displayName !== undefined ? { displayName: entry.displayName } : {}),
    },
    variants: { f32: entry.id },
    record: {
      model: entry.modelUrl,
      model_lib: entry.modelLib,
      ...(entry.shaderF16 ? { required_features: ['shader-f16'] } : {}),
      ...(entry.integrity ? { integrity: { ...webllmIntegrity(entry), onFailure: 'error' as const } } : {}),
      overrides: { context_window_size: contextWindow },
    },
  };
}

function webllmIntegrity(entry: WebLLMModelEntry): NonNullable<WebLLMModelEntry['integrity']> {
  const { config, model_lib, tokenizer = {} } = entry.integrity!;
  for (const [name, value] of [['config', config], ['model_lib', model_lib], ...Object.entries(tokenizer).map(([file, v]) => [`tokenizer["${file}"]`, v])] as [string, unknown][]) {
    if (value !== undefined && !isIntegrity(value)) throw new Error(`engine.models "${entry.id}": integrity.${name} must be an SRI hash such as "sha256-<base64>".`);
  }
  return entry.integrity!;
}
