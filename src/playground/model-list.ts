/**
 * `GET /models` in the OpenAI shape, with the extra keys this API adds (kind, engine, context
 * window, output limit, embedding dimensions, and `local`: the model's state on this device): the
 * chat and embedding pickers and the models panel are all built from this answer.
 * @module
 */
import { absoluteUrl, call } from './api.ts';

/** A model's `local` object: what the engine knows of it on this device (from any tab). */
export interface ApiLocalState {
  readonly state: 'available' | 'loading' | 'loaded' | 'failed';
  readonly downloaded: boolean;
  readonly sizeBytes: number;
  /** Bytes of files whose download was cut, kept so that it resumes (part of `sizeBytes`). */
  readonly partialBytes?: number;
  readonly runnable: boolean;
  readonly requires: readonly string[];
  readonly backend?: string;
  /** Why that backend was chosen. */
  readonly backendReason?: string;
  /** On WASM: the CPU engine, its threads, and why that many. */
  readonly cpu?: { readonly runtime: string; readonly threads: number; readonly reason: string };
  readonly reason?: string;
  readonly error?: string;
  /** The engine's own id of the variant a load would use here (web-llm's). */
  readonly variant?: string;
  /** GPU memory that variant needs, in MB. */
  readonly vramRequiredMB?: number;
  /** Fit for low-memory devices (phones), as its engine marks it. */
  readonly lowResource?: boolean;
  /** Bytes to download in all, where known. */
  readonly downloadBytes?: number;
  /** Where its files come from (a transformers.js model's repo or folder): the group its cached files are in. */
  readonly source?: string;
  /** The engine was rebuilt after its predecessor ended on its own (GPU device lost, crash). */
  readonly lastExit?: { readonly reason: string; readonly message: string; readonly at: string };
}

export interface ApiModel {
  readonly id: string;
  readonly kind: 'chat' | 'embedding';
  readonly engine: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly dimensions?: number;
  readonly supportsDimensions: boolean;
  /** Its model line and size (`Qwen3`, `0.6B`), where known: what the pickers group by. */
  readonly family?: string;
  readonly size?: string;
  /** One of the few models offered first. */
  readonly featured?: boolean;
  /** It thinks before it answers (its thinking is shown apart). */
  readonly thinks?: boolean;
  /** Absent when the engine did not report states. */
  readonly local?: ApiLocalState;
  /** A model served by another server: its URLs and whether they answered lately. */
  readonly remote?: { readonly available: boolean; readonly upstreams: readonly { readonly url: string; readonly state: string }[] };
  /** The model that serves its requests when it cannot. */
  readonly fallback?: string;
}

interface WireModel {
  id: string;
  kind?: string;
  engine?: string;
  context_window?: number;
  max_output_tokens?: number;
  dimensions?: number;
  supports_dimensions?: boolean;
  family?: string;
  size?: string;
  featured?: boolean;
  reasoning?: object;
  local?: WireLocalState;
  remote?: { available: boolean; upstreams: { url: string; state: string }[] };
  fallback?: string;
}

interface WireLocalState {
  state: ApiLocalState['state'];
  downloaded: boolean;
  size_bytes: number;
  partial_bytes?: number;
  runnable: boolean;
  requires?: string[];
  backend?: string;
  backend_reason?: string;
  cpu?: { runtime: string; threads: number; reason: string };
  reason?: string;
  error?: string;
  variant?: string;
  vram_required_MB?: number;
  low_resource_required?: boolean;
  download_size_bytes?: number;
  source?: string;
  last_exit?: { reason: string; message: string; at: string };
}

export async function fetchModels(baseUrl: string): Promise<ApiModel[]> {
  const exchange = await call('models', { method: 'GET', url: absoluteUrl(baseUrl, '/models'), headers: {} });
  return toApiModels(JSON.parse(exchange.raw) as { data: WireModel[] });
}

/**
 * Each model's `local` state, read again: plain `fetch`, not recorded as an exchange (the panel
 * refreshes in the background; the inspector shows the calls a person made). Null when the call
 * fails; a model without `local` is left out.
 */
export async function fetchLocalStates(baseUrl: string): Promise<Map<string, ApiLocalState> | null> {
  try {
    const response = await fetch(absoluteUrl(baseUrl, '/models'));
    if (!response.ok) return null;
    const models = toApiModels((await response.json()) as { data: WireModel[] });
    return new Map(models.flatMap((m) => (m.local ? [[m.id, m.local] as const] : [])));
  } catch {
    return null;
  }
}

function toApiModels(list: { data: WireModel[] }): ApiModel[] {
  return list.data.map((m) => ({
    id: m.id,
    kind: m.kind === 'embedding' ? 'embedding' : 'chat',
    engine: m.engine ?? 'unknown',
    contextWindow: m.context_window,
    maxOutputTokens: m.max_output_tokens,
    dimensions: m.dimensions,
    supportsDimensions: m.supports_dimensions ?? false,
    ...(m.family ? { family: m.family } : {}),
    ...(m.size ? { size: m.size } : {}),
    ...(m.featured ? { featured: true } : {}),
    ...(m.reasoning ? { thinks: true } : {}),
    ...(m.local ? { local: toLocal(m.local) } : {}),
    ...(m.remote ? { remote: { available: m.remote.available, upstreams: m.remote.upstreams.map(({ url, state }) => ({ url, state })) } } : {}),
    ...(m.fallback ? { fallback: m.fallback } : {}),
  }));
}

function toLocal(wire: WireLocalState): ApiLocalState {
  return {
    state: wire.state,
    downloaded: wire.downloaded,
    sizeBytes: wire.size_bytes,
    ...(wire.partial_bytes ? { partialBytes: wire.partial_bytes } : {}),
    runnable: wire.runnable,
    requires: wire.requires ?? [],
    backend: wire.backend,
    ...(wire.backend_reason ? { backendReason: wire.backend_reason } : {}),
    ...(wire.cpu ? { cpu: wire.cpu } : {}),
    reason: wire.reason,
    error: wire.error,
    ...(wire.variant ? { variant: wire.variant } : {}),
    ...(wire.vram_required_MB !== undefined ? { vramRequiredMB: wire.vram_required_MB } : {}),
    ...(wire.low_resource_required !== undefined ? { lowResource: wire.low_resource_required } : {}),
    ...(wire.download_size_bytes !== undefined ? { downloadBytes: wire.download_size_bytes } : {}),
    ...(wire.source ? { source: wire.source } : {}),
    ...(wire.last_exit ? { lastExit: wire.last_exit } : {}),
  };
}

/** The bundled models the playground selects and loads at start: they work offline anywhere. */
export const DEFAULT_MODELS = { chat: 'tiny-chat', embedding: 'tiny-embed' } as const;

/** The model to preselect: the default when offered, else the first of its kind. */
export function defaultModel(models: readonly ApiModel[], kind: ApiModel['kind']): string | undefined {
  const preferred = kind === 'chat' ? DEFAULT_MODELS.chat : DEFAULT_MODELS.embedding;
  return models.find((m) => m.id === preferred)?.id ?? models.find((m) => m.kind === kind)?.id;
}
