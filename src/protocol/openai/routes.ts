/** The OpenAI-flavoured endpoints as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../../core/remote-state.ts';
import { startGeneration } from '../../core/generation.ts';
import { randomId } from '../../core/ids.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { encodeSSEComment, KEEP_ALIVE_MS, SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { parseChatCompletion, toChatCompletion, toChatCompletionChunks } from './chat.ts';
import { parseEmbeddings, toEmbeddingsResponse } from './embeddings.ts';
import { toOpenAIModel, toOpenAIModelList } from './models.ts';

export async function chatCompletions(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  const parsed = parseChatCompletion(body, model);
  const generation = await startGeneration(ctx.engine, parsed.chat, ctx.signal, { whole: !parsed.stream, ...(model.reasoning ? { reasoning: model.reasoning } : {}) });
  const meta = { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: model.id, reasons: model.reasoning !== undefined };
  if (!parsed.stream) return jsonResponse(await toChatCompletion(generation, meta));
  return new Response(toSSEStream(toChatCompletionChunks(generation, meta, parsed.includeUsage), generation.cancel, OPENAI_KEEP_ALIVE), { headers: SSE_HEADERS });
}

/** OpenAI streams have no ping event: a comment, which openai-node and every SSE reader skip. */
export const OPENAI_KEEP_ALIVE = { message: encodeSSEComment('keep-alive'), everyMs: KEEP_ALIVE_MS };

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
