/**
 * The app's own models (`startInference({ engine: { models } })`) as catalog entries of their
 * engines. Entries arrive as plain data from the page, so each is checked here and a mistake is
 * named at startup rather than met as a failed load later. The product's engine worker reads them
 * (`productCatalog`), and so does the page for its remote models (`remoteModelsOf`), with the same
 * checks: this file and the catalog are data and checks only, no engine's code.
 * @module
 */
import type { Engine, ModelInfo } from '../../core/engine.ts';
import type { ReasoningFormat, ThinkingBudgets } from '../../core/reasoning.ts';
import type { ModelEntry, RemoteModelEntry, TransformersModelEntry, WebLLMModelEntry, WorkerConfig } from '../../contracts/worker-config.ts';
import { isIntegrity, type FileChecks } from '../files/index.ts';
import { builtinModels, transformersModels, webllmModels } from './catalog.ts';
import type { TransformersModelSpec } from './transformers-model-spec.ts';
import type { WebLLMModelSpec } from './webllm-model-spec.ts';

export interface Catalog {
  readonly transformers: readonly TransformersModelSpec[];
  readonly webllm: readonly WebLLMModelSpec[];
  /** Models served by other servers: listed by the model host, forwarded by the gateway. */
  readonly remote?: readonly ModelInfo[];
  /** The browser's built-in model (Prompt API), run by the page that hosts the engine worker. */
  readonly builtin?: readonly ModelInfo[];
  /**
   * web-llm's own models (its prebuilt list, under web-llm's ids) are served too, read at run time
   * (webllm/prebuilt-models.ts): a fallback may name such an id before it is listed; it is checked
   * and set once the list is read (`withListedFallbacks`).
   */
  readonly webllmListedLater?: boolean;
}

/** The catalog with the app's models, and the fallbacks that wait for web-llm's own list. */
export interface AppCatalog extends Required<Omit<Catalog, 'webllmListedLater'>> {
  /** Fallbacks by model id that name a web-llm id not listed yet: see `withListedFallbacks`. */
  readonly pendingFallbacks: Readonly<Record<string, string>>;
}

/**
 * The catalog with the app's entries added (an entry with a catalog model's id replaces it), and
 * each model's fallback set, from its entry or from `fallbacks` (which may name catalog models, and
 * web-llm's own ids: at once where the catalog lists them, else once they are listed).
 */
export function withAppModels(catalog: Catalog, entries: readonly ModelEntry[] = [], origin?: string, fallbacks: Readonly<Record<string, string>> = {}): AppCatalog {
  const ids = new Set<string>();
  for (const entry of entries) {
    if (typeof entry?.id !== 'string' || entry.id === '') throw new Error('Each of engine.models needs an `id` (the name clients send as `model`).');
    if (ids.has(entry.id)) throw new Error(`engine.models names "${entry.id}" twice.`);
    if (!ENGINES.includes(entry.engine)) throw new Error(`engine.models "${entry.id}": engine must be "transformers", "webllm" or "remote", not ${JSON.stringify((entry as { engine?: unknown }).engine)}.`);
    ids.add(entry.id);
  }
  const kept = <T extends { info: ModelInfo }>(specs: readonly T[]) => specs.filter((spec) => !ids.has(spec.info.id));
  const merged = {
    transformers: [...kept(catalog.transformers), ...entries.filter(isTransformers).map((e) => transformersSpec(e, origin))],
    webllm: [...kept(catalog.webllm), ...entries.filter(isWebLLM).map(webllmSpec)],
    remote: [...(catalog.remote ?? []).filter((info) => !ids.has(info.id)), ...entries.filter(isRemote).map(remoteInfo)],
    builtin: (catalog.builtin ?? []).filter((info) => !ids.has(info.id)),
  };
  return withFallbacks(merged, { ...Object.fromEntries(entries.flatMap((e) => (e.fallback === undefined ? [] : [[e.id, e.fallback]]))), ...fallbacks }, catalog.webllmListedLater === true);
}

/**
 * What the product's engine worker serves: the catalog with the app's settings (`engine.models`,
 * `engine.fallbacks`). web-llm's own list is read later, in the worker (`withListedFallbacks`).
 */
export function productCatalog(config: Pick<WorkerConfig, 'models' | 'fallbacks'>, origin?: string): AppCatalog {
  return withAppModels({ transformers: transformersModels, webllm: webllmModels, builtin: builtinModels, webllmListedLater: true }, config.models, origin, config.fallbacks);
}

/**
 * The app's remote models as the product's engine worker lists them, read by the page from its own
 * settings: its gateways (the fetch shim's, the service worker's) serve them without asking the
 * engine worker. Checked as the worker checks them, so settings it refuses throw here too. A
 * fallback that names a web-llm id not listed yet is set as named: the worker checks it once
 * web-llm's list is read, the gateway when it follows it (one of another kind is not followed).
 */
export function remoteModelsOf(config: Pick<WorkerConfig, 'models' | 'fallbacks'>, origin?: string): readonly ModelInfo[] {
  const catalog = productCatalog(config, origin);
  return catalog.remote.map((info) => (Object.hasOwn(catalog.pendingFallbacks, info.id) ? { ...info, fallback: catalog.pendingFallbacks[info.id]! } : info));
}

const ENGINES: readonly unknown[] = ['transformers', 'webllm', 'remote'];
const isTransformers = (entry: ModelEntry): entry is TransformersModelEntry => entry.engine === 'transformers';
const isWebLLM = (entry: ModelEntry): entry is WebLLMModelEntry => entry.engine === 'webllm';
const isRemote = (entry: ModelEntry): entry is RemoteModelEntry => entry.engine === 'remote';

/**
 * Sets each named model's `fallback`, after checking it names another model of the same kind, and
 * that following fallbacks never comes back to where it started (a request would go round forever).
 * One that names a web-llm id not listed yet (`listedLater`) waits for the list: `pendingFallbacks`.
 */
function withFallbacks(catalog: Required<Omit<Catalog, 'webllmListedLater'>>, fallbacks: Readonly<Record<string, string>>, listedLater: boolean): AppCatalog {
  const infos = new Map([...catalog.transformers, ...catalog.webllm].map((spec) => [spec.info.id, spec.info] as const));
  for (const info of [...catalog.remote, ...catalog.builtin]) infos.set(info.id, info);
  // null: a web-llm id, known once web-llm's own list is read.
  const find = (id: string) => infos.get(id) ?? (listedLater && isWebLLMId(id) ? null : undefined);
  const pendingFallbacks: Record<string, string> = {};
  for (const [id, target] of Object.entries(fallbacks)) {
    const [from, to] = [find(id), find(target)];
    checkFallback(id, target, from, to);
    if (from === null || to === null) pendingFallbacks[id] = target;
  }
  // Over every fallback, those waiting for the list included: a circle needs only their ids.
  for (const id of Object.keys(fallbacks)) {
    const seen = new Set([id]);
    for (let next = fallbacks[id]; next !== undefined; next = fallbacks[next]) {
      if (seen.has(next)) throw new Error(`The fallbacks of "${id}" go round in a circle (${[...seen, next].join(' → ')}).`);
      seen.add(next);
    }
  }
  const set = <T extends { info: ModelInfo }>(spec: T): T => (Object.hasOwn(fallbacks, spec.info.id) && !Object.hasOwn(pendingFallbacks, spec.info.id) ? { ...spec, info: { ...spec.info, fallback: fallbacks[spec.info.id] } } : spec);
  return {
    transformers: catalog.transformers.map(set),
    webllm: catalog.webllm.map(set),
    remote: catalog.remote.map((info) => set({ info }).info),
    builtin: catalog.builtin.map((info) => set({ info }).info),
    pendingFallbacks,
  };
}

/**
 * One fallback's checks. A side that is `undefined` is no model; `null`, a web-llm id not listed
 * yet, whose kind is checked once it is.
 */
function checkFallback(id: string, target: string, from: ModelInfo | null | undefined, to: ModelInfo | null | undefined): void {
  if (from === undefined) throw new Error(`engine.fallbacks names "${id}", which is not a model.`);
  if (to === undefined || target === id) throw new Error(`The fallback of "${id}" must be another model's id, not ${JSON.stringify(target)}.`);
  if (from === null || to === null) return;
  if (to.kind !== from.kind) throw new Error(`The fallback of "${id}" (${aKind(from)}) must be ${aKind(from)} too; "${target}" is ${aKind(to)}.`);
  // Vectors of another length are of another model: mixed into one index they would compare as nonsense.
  if (from.kind === 'embedding' && from.dimensions !== undefined && to.dimensions !== undefined && from.dimensions !== to.dimensions) {
    throw new Error(`The fallback of "${id}" (${from.dimensions} dimensions) must give vectors of the same length; "${target}" gives ${to.dimensions}.`);
  }
}

/** web-llm's ids end in `-MLC`, or add a variant after it (`-MLC-1k`, `-MLC-b32`). */
const isWebLLMId = (id: string) => /-MLC(?:-[^-]+)?$/.test(id);

/**
 * The host, with the fallbacks that name web-llm ids (`pendingFallbacks`) set on its listing once
 * web-llm's own list is read (the host's `listModels` waits for it), checked as at startup: one
 * that names no listed model, or a model of another kind, stays unset and is said on the console.
 * Any engine's listing will do (the model host's, in practice), so the catalog needs nothing of
 * hosting/.
 */
export function withListedFallbacks<Host extends Pick<Engine, 'listModels'>>(host: Host, catalog: Pick<AppCatalog, 'pendingFallbacks'>): Host {
  const pending = Object.entries(catalog.pendingFallbacks);
  if (pending.length === 0) return host;
  const refused = new Set<string>();
  return {
    ...host,
    async listModels() {
      const models = await host.listModels();
      const infos = new Map(models.map((info) => [info.id, info]));
      const fallbacks = new Map<string, string>();
      for (const [id, target] of pending) {
        try {
          checkFallback(id, target, infos.get(id), infos.get(target));
          fallbacks.set(id, target);
        } catch (error) {
          if (!refused.has(id)) console.warn(`inpage-llm: ${(error as Error).message} (web-llm's list, now read, says so); it is not set.`);
          refused.add(id);
        }
      }
      return models.map((info) => (fallbacks.has(info.id) ? { ...info, fallback: fallbacks.get(info.id)! } : info));
    },
  };
}

const aKind = (info: ModelInfo) => (info.kind === 'chat' ? 'a chat model' : 'an embedding model');

function remoteInfo(entry: RemoteModelEntry): ModelInfo {
  const kind = entry.kind ?? 'chat';
  if (kind !== 'chat' && kind !== 'embedding') throw new Error(`engine.models "${entry.id}": kind must be "chat" or "embedding".`);
  const upstream = entry.upstream as RemoteModelEntry['upstream'] | undefined;
  const urls = typeof upstream?.baseURL === 'string' ? [upstream.baseURL] : (upstream?.baseURL ?? []);
  if (!Array.isArray(urls) || urls.length === 0) throw new Error(`engine.models "${entry.id}": upstream.baseURL must be the server's API URL (e.g. "http://127.0.0.1:11434/v1"), or a list of them.`);
  for (const url of urls) {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) throw new Error(`engine.models "${entry.id}": upstream.baseURL must be http(s) URLs, not ${JSON.stringify(url)}.`);
    // Shown in `GET /models` and in errors: a password or a key in the URL would be shown with it.
    const parsed = new URL(url);
    if (parsed.username || parsed.password || parsed.search || parsed.hash) {
      throw new Error(`engine.models "${entry.id}": upstream.baseURL must be the API's URL alone, without credentials, a query or a fragment (it is shown in the models list): give a key as upstream.apiKey, other credentials in upstream.headers.`);
    }
  }
  const speaks = upstream!.speaks ?? ['openai'];
  if (!Array.isArray(speaks) || speaks.length === 0 || speaks.some((f) => f !== 'openai' && f !== 'anthropic')) throw new Error(`engine.models "${entry.id}": upstream.speaks lists "openai" and/or "anthropic".`);
  if (kind === 'embedding' && !speaks.includes('openai')) throw new Error(`engine.models "${entry.id}": an embedding model needs an upstream that speaks the OpenAI API (Anthropic's has no embeddings).`);
  return {
    id: entry.id,
    kind,
    engine: 'remote',
    // 0: the entry does not say. The upstream enforces its own limits, and `GET /models` shows
    // what it lists of the model rather than a figure made up here.
    contextWindow: entry.contextWindow ?? 0,
    ...(entry.displayName !== undefined ? { displayName: entry.displayName } : {}),
    // The upstream enforces its own limits and features: the gateway forwards what it is sent.
    ...(kind === 'chat' ? { ...(entry.maxOutputTokens !== undefined ? { maxOutputTokens: entry.maxOutputTokens } : {}), structuredOutput: true, toolCalling: true } : {}),
    ...(entry.dimensions !== undefined ? { dimensions: entry.dimensions } : {}),
    upstream: { ...upstream!, speaks },
  };
}

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
      ...(entry.reasoning !== undefined ? { reasoning: reasoningFormat(entry) } : {}),
    },
    source: localSource(entry, origin),
    ...(entry.dtype !== undefined ? { dtype: entry.dtype } : {}),
    ...(entry.wasmDtype !== undefined ? { wasmDtype: entry.wasmDtype } : {}),
    ...(entry.pooling !== undefined ? { pooling: entry.pooling } : {}),
    ...(entry.normalize !== undefined ? { normalize: entry.normalize } : {}),
    ...(entry.files !== undefined ? { files: fileChecks(entry) } : {}),
  };
}

/** A thinking model's markers, checked: two texts, the closing one's first character not again in it (its grammar needs that). */
function reasoningFormat(entry: TransformersModelEntry | WebLLMModelEntry): ReasoningFormat {
  const reasoning = entry.reasoning as Partial<ReasoningFormat> | null;
  const at = `engine.models "${entry.id}": reasoning`;
  if (entry.kind !== undefined && entry.kind !== 'chat') throw new Error(`${at} is for chat models.`);
  if (typeof reasoning !== 'object' || reasoning === null) throw new Error(`${at} must be an object such as { open: '<think>', close: '</think>' }.`);
  const { open, close, startsInside, switch: onOff, budgets } = reasoning;
  if (typeof open !== 'string' || open === '' || typeof close !== 'string' || close === '') throw new Error(`${at}.open and .close must be the markers around its thinking, such as '<think>' and '</think>'.`);
  if ([...close].slice(1).includes(close[0]!)) throw new Error(`${at}.close must not repeat its first character (${JSON.stringify(close)}).`);
  if (startsInside !== undefined && typeof startsInside !== 'boolean') throw new Error(`${at}.startsInside must be true or false.`);
  if (onOff !== undefined && onOff !== 'enable_thinking') throw new Error(`${at}.switch can only be 'enable_thinking' (Qwen3's template switch).`);
  return { open, close, ...(startsInside ? { startsInside } : {}), ...(onOff ? { switch: onOff } : {}), ...(budgets !== undefined ? { budgets: thinkingBudgets(budgets, `${at}.budgets`) } : {}) };
}

/** Thinking budgets by `reasoning_effort`: whole numbers of tokens, at least 1, none above a higher effort's. */
function thinkingBudgets(value: unknown, at: string): ThinkingBudgets {
  if (typeof value !== 'object' || value === null) throw new Error(`${at} must be an object such as { low: 256, medium: 1024 }.`);
  const out: Record<string, number> = {};
  for (const [effort, budget] of Object.entries(value)) {
    if (effort !== 'low' && effort !== 'medium' && effort !== 'high') throw new Error(`${at} names the efforts low, medium and high, not "${effort}".`);
    if (budget === undefined) continue;
    if (!Number.isSafeInteger(budget) || (budget as number) < 1) throw new Error(`${at}.${effort} must be a whole number of tokens, at least 1.`);
    out[effort] = budget as number;
  }
  const levels = (['low', 'medium', 'high'] as const).filter((effort) => out[effort] !== undefined);
  for (let i = 1; i < levels.length; i++) {
    if (out[levels[i]!]! < out[levels[i - 1]!]!) throw new Error(`${at}.${levels[i]} must not be below ${levels[i - 1]}: a higher effort thinks at least as long.`);
  }
  return out;
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
      ...(entry.reasoning !== undefined ? { reasoning: reasoningFormat(entry) } : {}),
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
