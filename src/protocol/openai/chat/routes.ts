/** `POST /chat/completions` as a gateway handler: parse, the chat path, render. @module */
import { jsonResponse, type RequestContext } from '../../../core/context.ts';
import { requiredString } from '../../../core/fields.ts';
import { startGeneration } from '../../../core/generation.ts';
import { randomId } from '../../../core/ids.ts';
import { findModel } from '../../../core/models.ts';
import { SSE_HEADERS, toSSEStream } from '../../../core/sse.ts';
import { OPENAI } from '../wire.ts';
import { parseChatCompletion } from './parse.ts';
import { toChatCompletion, toChatCompletionChunks } from './render.ts';

export async function chatCompletions(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  const model = findModel(ctx.models, requiredString(body, 'model'), ctx.scope, 'chat');
  const parsed = parseChatCompletion(body, model);
  const generation = await startGeneration(ctx.engine, parsed.chat, ctx.signal, { whole: !parsed.stream, ...(model.reasoning ? { reasoning: model.reasoning } : {}) });
  const meta = { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: model.id, reasons: model.reasoning !== undefined };
  if (!parsed.stream) return jsonResponse(await toChatCompletion(generation, meta));
  return new Response(toSSEStream(toChatCompletionChunks(generation, meta, parsed.includeUsage), generation.cancel, OPENAI.keepAlive), { headers: SSE_HEADERS });
}
