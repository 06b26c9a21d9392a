/** The OpenAI family's model endpoints (models, embeddings) as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../model-extras.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { parseEmbeddings, toEmbeddingsResponse } from './embeddings.ts';
import { toOpenAIModel, toOpenAIModelList } from './models.ts';

export async function embeddings(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  return ctx.forward(requiredString(body, 'model'), 'embedding', { flavour: 'openai', path: '/embeddings' }, async (model) => {
    const parsed = parseEmbeddings(body, model);
    const result = await ctx.engine.embed({ model: model.id, input: parsed.input }, { signal: ctx.signal });
    return jsonResponse(toEmbeddingsResponse(result, parsed, model.id));
  });
}

export async function models(ctx: RequestContext): Promise<Response> {
  if (ctx.rest) {
    const model = asSeenBy(findModel(await ctx.models(), ctx.rest, ctx.scope), ctx.scope);
    const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, [model])]);
    return jsonResponse(toOpenAIModel(model, local.get(model.id), remote.get(model.id)));
  }
  const models = visibleModels(await ctx.models(), ctx.scope);
  const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, models)]);
  return jsonResponse(toOpenAIModelList(models, local, remote));
}
