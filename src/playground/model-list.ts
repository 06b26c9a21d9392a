/**
 * `GET /models` in the OpenAI shape, with the extra keys this API adds (kind, engine, context
 * window, output limit, embedding dimensions): the chat and embedding pickers and the models
 * panel are all built from this one answer.
 * @module
 */
import { absoluteUrl, call } from './api.ts';

export interface ApiModel {
  readonly id: string;
  readonly kind: 'chat' | 'embedding';
  readonly engine: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly dimensions?: number;
  readonly supportsDimensions: boolean;
}

interface WireModel {
  id: string;
  kind?: string;
  engine?: string;
  context_window?: number;
  max_output_tokens?: number;
  dimensions?: number;
  supports_dimensions?: boolean;
}

export async function fetchModels(baseUrl: string): Promise<ApiModel[]> {
  const exchange = await call('models', { method: 'GET', url: absoluteUrl(baseUrl, '/models'), headers: {} });
  const list = JSON.parse(exchange.raw) as { data: WireModel[] };
  return list.data.map((m) => ({
    id: m.id,
    kind: m.kind === 'embedding' ? 'embedding' : 'chat',
    engine: m.engine ?? 'unknown',
    contextWindow: m.context_window,
    maxOutputTokens: m.max_output_tokens,
    dimensions: m.dimensions,
    supportsDimensions: m.supports_dimensions ?? false,
  }));
}

/** The bundled offline defaults (the catalog's DEFAULT_MODELS; not imported: that module pulls the engines in). */
export const DEFAULT_MODELS = { chat: 'tiny-chat', embedding: 'tiny-embed' } as const;

/** The model to preselect: the default when offered, else the first of its kind. */
export function defaultModel(models: readonly ApiModel[], kind: ApiModel['kind']): string | undefined {
  const preferred = kind === 'chat' ? DEFAULT_MODELS.chat : DEFAULT_MODELS.embedding;
  return models.find((m) => m.id === preferred)?.id ?? models.find((m) => m.kind === kind)?.id;
}
