/** The Anthropic-flavoured endpoints as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../model-extras.ts';
import { randomId } from '../../core/ids.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { parseMessages } from './parse.ts';
import { toMessage, toMessageEvents } from './render.ts';
import { toAnthropicModel, toAnthropicModelPage } from './models.ts';
import { parseVersion } from './version.ts';
import { ANTHROPIC } from './wire.ts';

export async function messages(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  // The version's rules apply where this gateway reads the request (a server sent it as it came checks its own).
  const answer = await ctx.generate(requiredString(body, 'model'), () => parseMessages(body, parseVersion(ctx.request.headers)), {
    passThrough: { flavour: 'anthropic', path: '/messages' },
    namesStop: true,
  });
  if (answer.passed) return answer.passed;
  const { generation, model, parsed } = answer;
  // Shown as asked where the gateway splits the thinking off itself, a model on this device; a
  // remote model's, met through a translation, stays hidden.
  const meta = { id: randomId('msg_'), model: model.id, requestId: ctx.requestId, showThinking: parsed.showThinking && model.upstream === undefined };
  if (!parsed.stream) return jsonResponse(await toMessage(generation, meta));
  return new Response(toSSEStream(toMessageEvents(generation, meta), generation.cancel, ANTHROPIC.keepAlive), { headers: SSE_HEADERS });
}

/**
 * `POST /messages/count_tokens`: the `input_tokens` that the same `/messages` request would report,
 * counted by the model's own tokenizer and chat template (tools and system included), or by a
 * remote model's server.
 */
export async function countTokens(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  // The same checks as /messages, which requires `max_tokens`; this endpoint takes none.
  const answer = await ctx.countTokens(requiredString(body, 'model'), () => parseMessages({ ...body, max_tokens: 1, stream: false }, parseVersion(ctx.request.headers)), {
    passThrough: { flavour: 'anthropic', path: '/messages/count_tokens' },
  });
  return answer.passed ?? jsonResponse({ input_tokens: answer.count });
}

export async function models(ctx: RequestContext): Promise<Response> {
  if (ctx.rest) {
    const model = asSeenBy(findModel(await ctx.models(), ctx.rest, ctx.scope), ctx.scope);
    const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, [model])]);
    return jsonResponse(toAnthropicModel(model, local.get(model.id), remote.get(model.id)));
  }
  const query = new URL(ctx.request.url).searchParams;
  const models = visibleModels(await ctx.models(), ctx.scope);
  const [local, remote] = await Promise.all([readLocalStates(ctx.engine), readRemoteStates(ctx, models)]);
  return jsonResponse(toAnthropicModelPage(models, query, local, remote));
}
