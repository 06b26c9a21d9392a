/**
 * `GET /models` and `GET /models/{id}` in the OpenAI shape. Extra keys describe what the local
 * engine offers; the SDK ignores keys it does not know.
 * @see https://platform.openai.com/docs/api-reference/models
 * @module
 */
import type { ModelInfo } from '../../core/engine.ts';

export function toOpenAIModel(model: ModelInfo) {
  return {
    id: model.id,
    object: 'model',
    created: model.created ?? 0,
    owned_by: 'local',
    kind: model.kind,
    engine: model.engine,
    context_window: model.contextWindow,
    ...(model.maxOutputTokens !== undefined ? { max_output_tokens: model.maxOutputTokens } : {}),
    ...(model.dimensions !== undefined ? { dimensions: model.dimensions, supports_dimensions: model.supportsDimensions ?? false } : {}),
  };
}

export function toOpenAIModelList(models: readonly ModelInfo[]) {
  return { object: 'list', data: models.map(toOpenAIModel) };
}
