/** The Anthropic-flavoured endpoints as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../../core/remote-state.ts';
import { startGeneration } from '../../core/generation.ts';
import { randomId } from '../../core/ids.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { parseMessages, toMessage, toMessageEvents } from './messages.ts';
import { toAnthropicModel, toAnthropicModelPage } from './models.ts';
import { parseVersion } from './version.ts';

export async function messages(ctx: RequestContext): Promise<Response> {
  const version = parseVersion(ctx.request.headers);
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  const parsed = parseMessages(body, model, version);
  const generation = await startGeneration(ctx.engine, parsed.chat, ctx.signal, { whole: !parsed.stream });
  const meta = { id: randomId('msg_'), model: model.id, requestId: ctx.requestId };
  if (!parsed.stream) return jsonResponse(await toMessage(generation, meta));
  return new Response(toSSEStream(toMessageEvents(generation, meta), generation.cancel), { headers: SSE_HEADERS });
}

export async function models(ctx: RequestContext): Promise<Response> {
  if (ctx.rest) {
    const model = asSeenBy(findModel(ctx.models, ctx.rest, ctx.scope), ctx.scope);
    const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, [model])]);
    return jsonResponse(toAnthropicModel(model, local.get(model.id), remote.get(model.id)));
  }
  const query = new URL(ctx.request.url).searchParams;
  const models = visibleModels(ctx.models, ctx.scope);
  const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, models)]);
  return jsonResponse(toAnthropicModelPage(models, query, local, remote));
}
