/** `POST /chat/completions` as a gateway handler: parse, the chat path, render. @module */
import { jsonResponse, type RequestContext } from '../../../core/context.ts';
import { requiredString } from '../../../core/fields.ts';
import { randomId } from '../../../core/ids.ts';
import { SSE_HEADERS, toSSEStream } from '../../../core/sse.ts';
import { OPENAI } from '../wire.ts';
import { parseChatCompletion } from './parse.ts';
import { toChatCompletion, toChatCompletionChunks } from './render.ts';

export async function chatCompletions(ctx: RequestContext): Promise<Response> {
  const body = await ctx.body();
  const answer = await ctx.generate(requiredString(body, 'model'), () => parseChatCompletion(body), { passThrough: { flavour: 'openai', path: '/chat/completions' } });
  if (answer.passed) return answer.passed;
  const { generation, model, parsed } = answer;
  const meta = { id: randomId('chatcmpl-'), created: Math.floor(Date.now() / 1000), model: model.id, reasons: model.reasoning !== undefined };
  if (!parsed.stream) return jsonResponse(await toChatCompletion(generation, meta));
  return new Response(toSSEStream(toChatCompletionChunks(generation, meta, parsed.includeUsage), generation.cancel, OPENAI.keepAlive), { headers: SSE_HEADERS });
}
