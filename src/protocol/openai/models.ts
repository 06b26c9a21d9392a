/**
 * `GET /models` and `GET /models/{id}` in the OpenAI shape. Extra keys describe what the local
 * engine offers, and `local` the model's state on this device; the SDK ignores keys it does not know.
 * @see https://platform.openai.com/docs/api-reference/models
 * @module
 */
import type { ModelInfo, ModelLocalState } from '../../core/engine.ts';
import { toWireLocalState } from '../../core/local-state.ts';
import { remoteFacts, wireRouting } from '../model-extras.ts';
import type { RemoteState } from '../../core/remote-state.ts';

/**
 * `local`: the model's state on this device, when the engine reports it (see core/local-state.ts);
 * `remote`: where a remote model runs and whether it is up; `fallback`: the model that serves
 * when this one cannot (core/remote-state.ts).
 */
export function toOpenAIModel(model: ModelInfo, local?: ModelLocalState, remote?: RemoteState) {
  // A remote model: what its entry or its server says, and no figure made up (see remoteFacts).
  const far = remoteFacts(model, remote);
  const created = far ? far.created : (model.created ?? 0);
  const contextWindow = far ? far.contextWindow : model.contextWindow;
  const maxOutputTokens = far ? far.maxOutputTokens : model.maxOutputTokens;
  return {
    id: model.id,
    object: 'model',
    ...(created !== undefined ? { created } : {}),
    owned_by: far?.ownedBy ?? 'local',
    kind: model.kind,
    engine: model.engine,
    ...(model.family !== undefined ? { family: model.family } : {}),
    ...(model.size !== undefined ? { size: model.size } : {}),
    ...(model.featured ? { featured: true } : {}),
    // A thinking model: its markers, and whether a request can turn its thinking off.
    ...(model.reasoning ? { reasoning: { open: model.reasoning.open, close: model.reasoning.close, can_turn_off: model.reasoning.switch !== undefined } } : {}),
    ...(contextWindow !== undefined ? { context_window: contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { max_output_tokens: maxOutputTokens } : {}),
    ...(model.dimensions !== undefined ? { dimensions: model.dimensions, supports_dimensions: model.supportsDimensions ?? false } : {}),
    ...(local ? { local: toWireLocalState(local) } : {}),
    ...wireRouting(model, remote),
  };
}

export function toOpenAIModelList(models: readonly ModelInfo[], local: ReadonlyMap<string, ModelLocalState> = new Map(), remote: ReadonlyMap<string, RemoteState> = new Map()) {
  return { object: 'list', data: models.map((model) => toOpenAIModel(model, local.get(model.id), remote.get(model.id))) };
}
