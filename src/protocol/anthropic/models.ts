/**
 * `GET /models` and `GET /models/{id}` in the Anthropic shape, with the cursor pagination its SDK
 * follows (`after_id` / `before_id`, `has_more`), so auto-pagination terminates. `local`, beside
 * the real API's keys, is the model's state on this device; the SDK ignores keys it does not know.
 * @see https://docs.anthropic.com/en/api/models-list
 * @module
 */
import type { ModelInfo, ModelLocalState } from '../../core/engine.ts';
import { checkNumber, invalid } from '../../core/fields.ts';
import { toWireLocalState } from '../../core/local-state.ts';
import { remoteFacts, wireRouting } from '../model-extras.ts';
import type { RemoteState } from '../../core/remote-state.ts';

/** `local`, `remote` and `fallback` as in the OpenAI flavour (see toOpenAIModel). */
export function toAnthropicModel(model: ModelInfo, local?: ModelLocalState, remote?: RemoteState) {
  // A remote model: what its entry or its server says, and no figure made up (see remoteFacts).
  const far = remoteFacts(model, remote);
  const created = far ? far.created : (model.created ?? 0);
  return {
    type: 'model',
    id: model.id,
    display_name: (far ? far.displayName : model.displayName) ?? model.id,
    ...(created !== undefined ? { created_at: new Date(created * 1000).toISOString().replace('.000Z', 'Z') } : {}),
    max_input_tokens: (far ? far.contextWindow : model.contextWindow) ?? null,
    max_tokens: (far ? far.maxOutputTokens : model.maxOutputTokens) ?? null,
    ...(local ? { local: toWireLocalState(local) } : {}),
    ...wireRouting(model, remote),
  };
}

export function toAnthropicModelPage(
  models: readonly ModelInfo[],
  query: URLSearchParams,
  local: ReadonlyMap<string, ModelLocalState> = new Map(),
  remote: ReadonlyMap<string, RemoteState> = new Map(),
) {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 20 : checkNumber(Number(rawLimit), { integer: true, min: 1, max: 1000 }, 'limit');
  const afterId = query.get('after_id');
  const beforeId = query.get('before_id');
  const indexOf = (id: string, param: string) => {
    const i = models.findIndex((m) => m.id === id);
    if (i === -1) throw invalid(param, `${param}: no model with id '${id}'`);
    return i;
  };
  let page: readonly ModelInfo[];
  let hasMore: boolean;
  if (beforeId !== null) {
    const end = indexOf(beforeId, 'before_id');
    page = models.slice(Math.max(0, end - limit), end);
    hasMore = end - limit > 0;
  } else {
    const start = afterId !== null ? indexOf(afterId, 'after_id') + 1 : 0;
    page = models.slice(start, start + limit);
    hasMore = start + limit < models.length;
  }
  return {
    data: page.map((model) => toAnthropicModel(model, local.get(model.id), remote.get(model.id))),
    has_more: hasMore,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  };
}
