/** The Anthropic-flavoured endpoints as gateway handlers. @module */
import { jsonResponse, type RequestContext } from '../../core/context.ts';
import { requiredString } from '../../core/fields.ts';
import { readLocalStates } from '../../core/local-state.ts';
import { readRemoteStates } from '../model-extras.ts';
import { startGeneration } from '../../core/generation.ts';
import { randomId } from '../../core/ids.ts';
import { asSeenBy, findModel, visibleModels } from '../../core/models.ts';
import { SSE_HEADERS, toSSEStream } from '../../core/sse.ts';
import { parseMessages } from './parse.ts';
import { toMessage, toMessageEvents } from './render.ts';
import { toAnthropicModel, toAnthropicModelPage } from './models.ts';
import { parseVersion } from './version.ts';
import { ANTHROPIC } from './wire.ts';

export async function messages(ctx: RequestContext): Promise<Response> {
  const version = parseVersion(ctx.request.headers);
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  const parsed = parseMessages(body, model, version);
  const generation = await startGeneration(ctx.engine, parsed.chat, ctx.signal, { whole: !parsed.stream, ...(model.reasoning ? { reasoning: model.reasoning } : {}) });
  const meta = { id: randomId('msg_'), model: model.id, requestId: ctx.requestId, showThinking: parsed.showThinking };
  if (!parsed.stream) return jsonResponse(await toMessage(generation, meta));
  return new Response(toSSEStream(toMessageEvents(generation, meta), generation.cancel, ANTHROPIC.keepAlive), { headers: SSE_HEADERS });
}

/**
 * `POST /messages/count_tokens`: the `input_tokens` that the same `/messages` request would report,
 * counted by the model's own tokenizer and chat template (tools and system included). The engine
 * reads the prompt and makes one token, which is discarded: engines count the prompt as they read
 * it, and some learn the exact count only at the end. It waits its turn with other requests.
 */
export async function countTokens(ctx: RequestContext): Promise<Response> {
  const version = parseVersion(ctx.request.headers);
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  // The same checks as /messages, which requires `max_tokens`; this endpoint takes none.
  const parsed = parseMessages({ ...body, max_tokens: 1, stream: false }, model, version);
  const generation = await startGeneration(ctx.engine, { ...parsed.chat, maxTokens: 1 }, ctx.signal, { whole: true });
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return jsonResponse({ input_tokens: generation.usage().promptTokens });
      if (next.value.type === 'finish') return jsonResponse({ input_tokens: next.value.usage.promptTokens });
    }
  } finally {
    generation.cancel();
  }
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
