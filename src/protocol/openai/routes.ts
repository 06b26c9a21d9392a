/** The OpenAI-flavoured endpoints as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../model-extras.ts';
import { startGeneration } from '../../core/generation.ts';
import { randomId } from '../../core/ids.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { parseChatCompletion, toChatCompletion, toChatCompletionChunks } from './chat.ts';
import { parseEmbeddings, toEmbeddingsResponse } from './embeddings.ts';
import { toOpenAIModel, toOpenAIModelList } from './models.ts';
import { OPENAI } from './wire.ts';

export async function chatCompletions(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  const parsed = parseChatCompletion(body, model);
  const generation = await startGeneration(ctx.engine, parsed.chat, ctx.signal, { whole: !parsed.stream, ...(model.reasoning ? { reasoning: model.reasoning } : {}) });
  const meta = { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: model.id, reasons: model.reasoning !== undefined };
  if (!parsed.stream) return jsonResponse(await toChatCompletion(generation, meta));
  return new Response(toSSEStream(toChatCompletionChunks(generation, meta, parsed.includeUsage), generation.cancel, OPENAI.keepAlive), { headers: SSE_HEADERS });
}

export async function embeddings(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'embedding');
  const parsed = parseEmbeddings(body, model);
  const result = await ctx.engine.embed({ model: model.id, input: parsed.input }, { signal: ctx.signal });
  return jsonResponse(toEmbeddingsResponse(result, parsed, model.id));
}

export async function models(ctx: RequestContext): Promise<Response> {
  if (ctx.rest) {
    const model = asSeenBy(findModel(ctx.models, ctx.rest, ctx.scope), ctx.scope);
    const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, [model])]);
    return jsonResponse(toOpenAIModel(model, local.get(model.id), remote.get(model.id)));
  }
  const models = visibleModels(ctx.models, ctx.scope);
  const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, models)]);
  return jsonResponse(toOpenAIModelList(models, local, remote));
}
