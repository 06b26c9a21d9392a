/**
 * `/responses` as gateway handlers: create (JSON or the event stream), retrieve, delete, cancel and
 * the input items of a stored response. A create is read into the neutral request (request.ts,
 * items.ts), answered by the chat path as `/chat/completions` is (local engine, remote model or
 * fallback), and rendered from the same events.
 * @module
 */
import { faultFor, refusalOf } from '../../../core/admit.ts';
import { jsonResponse, type RequestContext } from '../../../core/context.ts';
import { GatewayError } from '../../../core/errors.ts';
import { invalid, requiredString } from '../../../core/fields.ts';
import { randomId } from '../../../core/ids.ts';
import { SSE_HEADERS, toSSEStream } from '../../../core/sse.ts';
import { OPENAI } from '../wire.ts';
import { resolveReferences, toConversation, toWireItem, type ConversationItem } from './items.ts';
import { toResponse, toResponseEvents, type ResponseMeta } from './render.ts';
import { echoFor, parseResponsesRequest, toNeutralRequest } from './request.ts';
import { outputItems, type ResponseObject, type ResponseStore } from './store.ts';
import { conversationFull, entriesOf, withId } from '../conversations/routes.ts';
import { MAX_CONVERSATION_ITEMS, visibleItems, visibleTo, type ConversationStore, type IdentifiedItem, type StoredConversation } from '../conversations/store.ts';

export interface ResponsesRoutes {
  post(ctx: RequestContext): Promise<Response>;
  get(ctx: RequestContext): Promise<Response>;
  delete(ctx: RequestContext): Promise<Response>;
}

export function createResponsesRoutes(store: ResponseStore, conversations: ConversationStore): ResponsesRoutes {
  /**
   * A stored response this caller may see: one made by a model its key may not use is reported as
   * absent, as such a model is, so a key limited to some models cannot read others' conversations.
   */
  const visible = async (ctx: RequestContext, id: string) => {
    const entry = await store.get(id);
    return entry && (!ctx.scope || ctx.scope.has(String(entry.response.model))) ? entry : undefined;
  };
  const stored = async (ctx: RequestContext, id: string) => {
    const entry = await visible(ctx, id);
    if (!entry) throw new GatewayError('resource_not_found', `Response with id '${id}' not found.`);
    return entry;
  };

  /**
   * A create's (or a count's) request as the chat path takes it: the conversation before it (a
   * previous response's chain, or a conversation's items), its own input, and the neutral request
   * of both, which the chat path admits for each model tried.
   */
  async function prepare(ctx: RequestContext) {
    const body = await ctx.body();
    const model = requiredString(body, 'model');
    // Whether it thinks, from the model named (the chat path checks it exists and may be used):
    // asked once, here, as the stored items it references are checked below.
    const named = await ctx.model(model);
    const reasons = named?.reasoning !== undefined;
    const read = parseResponsesRequest(body);
    if ('fault' in read) throw faultFor(read, named);
    const refused = refusalOf(read.names.asks, named);
    if (refused) throw refused;
    // A model that does not reason takes no `reasoning` but an effort of `none`, which asks nothing of it, nor of a fallback.
    const parsed = reasons ? read : { ...read, reasoning: {} };
    let context: ConversationItem[] = [];
    if (parsed.previousResponseId !== undefined) {
      const previous = await visible(ctx, parsed.previousResponseId);
      if (!previous) {
        throw new GatewayError('resource_not_found', `Previous response with id '${parsed.previousResponseId}' not found.`, { param: 'previous_response_id' });
      }
      context = [...previous.context, ...outputItems(previous)];
    }
    let thread: StoredConversation | undefined;
    if (parsed.conversation !== undefined) {
      thread = await conversations.get(parsed.conversation);
      if (!thread || !visibleTo(thread, ctx.scope)) throw new GatewayError('resource_not_found', `Conversation with id '${parsed.conversation}' not found.`, { param: 'conversation' });
      context = visibleItems(thread, ctx.scope).map((entry) => entry.item);
    }
    const known = thread?.items ?? [];
    const find = async (id: string) => known.find((entry) => entry.item.id === id)?.item ?? (await store.findItem(id));
    const resolved = await resolveReferences(parsed.input, find, { reasons, model });
    // Items added to a conversation are known by their ids: each gets one (kept in the stored response too).
    const input = thread ? resolved.map(withId) : resolved;
    if (thread && thread.items.length + input.length >= MAX_CONVERSATION_ITEMS) throw conversationFull(thread.items.length);
    const history = [...context, ...input];
    const messages = [...(parsed.instructions ? [{ role: 'system' as const, content: parsed.instructions }] : []), ...toConversation(history, context.length)];
    return { model, parsed, echo: echoFor(parsed, reasons), input, history, thread, neutral: toNeutralRequest(body, parsed, messages) };
  }

  /** Adds a response's input and output to its conversation, as it is now (another request may have added to it meanwhile). */
  async function append(id: string, items: readonly IdentifiedItem[], model: string): Promise<void> {
    const thread = await conversations.get(id);
    if (!thread) return;
    await conversations.put({ ...thread, items: [...thread.items, ...entriesOf(items, model)].slice(-MAX_CONVERSATION_ITEMS) });
  }

  async function create(ctx: RequestContext): Promise<Response> {
    const { model, parsed, echo, input, history, thread, neutral } = await prepare(ctx);
    const answer = await ctx.generate(model, () => neutral);
    if (answer.passed) throw new GatewayError('internal', 'A Responses request was passed through.');
    const { generation } = answer;
    const meta: ResponseMeta = {
      id: randomId('resp_'),
      createdAt: Math.floor(Date.now() / 1000),
      model,
      previousResponseId: parsed.previousResponseId ?? null,
      ...(thread ? { conversation: thread.conversation.id } : {}),
      store: parsed.store,
      echo,
      summary: parsed.summary,
      encryptedContent: parsed.encryptedContent,
    };
    const keep = async (response: ResponseObject) => {
      const entry = { response, context: history, input };
      if (thread) await append(thread.conversation.id, [...(input as IdentifiedItem[]), ...(outputItems(entry) as IdentifiedItem[])], model);
      if (parsed.store) await store.put(entry);
    };
    if (!parsed.stream) {
      const response = await toResponse(generation, meta);
      await keep(response);
      return jsonResponse(response);
    }
    return new Response(toSSEStream(toResponseEvents(generation, meta, keep), generation.cancel, OPENAI.keepAlive), { headers: SSE_HEADERS });
  }

  /**
   * `POST /responses/input_tokens`: the `input_tokens` the same `/responses` request would report,
   * counted as the model reads its prompt (the chat path's count: its tokenizer and template, or a
   * remote model's server).
   */
  async function countInputTokens(ctx: RequestContext): Promise<Response> {
    const { model, neutral } = await prepare(ctx);
    const counted = await ctx.countTokens(model, () => neutral);
    if (counted.passed) throw new GatewayError('internal', 'A Responses request was passed through.');
    return jsonResponse({ object: 'response.input_tokens', input_tokens: counted.count });
  }

  /** `GET /responses/{id}/input_items`: newest first unless `order=asc`, paged by `after` and `limit`. */
  async function inputItems(ctx: RequestContext, id: string): Promise<Response> {
    const entry = await stored(ctx, id);
    const query = new URL(ctx.request.url).searchParams;
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw invalid('order', `Invalid value for 'order': '${order}'. Supported values are: 'asc' and 'desc'.`);
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', `Invalid 'limit': expected an integer from 1 to 100, but got '${query.get('limit')}'.`);
    const all = entry.input.map((item, i) => toWireItem(item, `${entry.response.id}_in_${i}`));
    if (order === 'desc') all.reverse();
    const after = query.get('after');
    const start = after === null ? 0 : all.findIndex((item) => item.id === after) + 1;
    const data = all.slice(start, start + limit);
    return jsonResponse({ object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < all.length });
  }

  return {
    async post(ctx) {
      if (ctx.rest === '') return create(ctx);
      if (ctx.rest === 'input_tokens') return countInputTokens(ctx);
      const [id, action, ...more] = ctx.rest.split('/');
      if (action === 'cancel' && more.length === 0) {
        await stored(ctx, id!);
        throw invalid('response_id', 'Only background responses can be cancelled, and this server makes none: every response is complete when it is returned.');
      }
      throw new GatewayError('not_found', `Unknown request URL: POST ${new URL(ctx.request.url).pathname}.`);
    },
    async get(ctx) {
      const [id, action, ...more] = ctx.rest.split('/');
      if (id && action === undefined) return jsonResponse((await stored(ctx, id)).response);
      if (id && action === 'input_items' && more.length === 0) return inputItems(ctx, id);
      throw new GatewayError('not_found', `Unknown request URL: GET ${new URL(ctx.request.url).pathname}.`);
    },
    async delete(ctx) {
      const [id, ...more] = ctx.rest.split('/');
      if (!id || more.length > 0) throw new GatewayError('not_found', `Unknown request URL: DELETE ${new URL(ctx.request.url).pathname}.`);
      if (!(await visible(ctx, id)) || !(await store.delete(id))) throw new GatewayError('resource_not_found', `Response with id '${id}' not found.`);
      return jsonResponse({ id, object: 'response', deleted: true });
    },
  };
}
