/**
 * OpenAI's Conversations API as gateway handlers: `POST /conversations`, `GET`/`POST`/`DELETE
 * /conversations/{id}`, `GET`/`POST /conversations/{id}/items`, `GET`/`DELETE
 * /conversations/{id}/items/{item_id}`, in the shapes `openai` types. A conversation's items are
 * the history of a `/responses` request that names it (responses/routes.ts), which appends its
 * input and output. A key sees only what it may: a conversation made under a key limited to models
 * it may use, and the items of those models' responses (store.ts, `visibleTo`).
 * @see https://platform.openai.com/docs/api-reference/conversations
 * @module
 */
import { jsonResponse, type RequestContext } from '../../../core/context.ts';
import { GatewayError } from '../../../core/errors.ts';
import { describe, invalid } from '../../../core/fields.ts';
import { randomId } from '../../../core/ids.ts';
import { parseInput, resolveReferences, toWireItem, type ConversationItem } from '../responses/items.ts';
import { encryptedContentOf } from '../responses/render.ts';
import { parseMetadata } from '../responses/request.ts';
import type { ResponseStore } from '../responses/store.ts';
import { MAX_CONVERSATION_ITEMS, visibleItems, visibleTo, type ConversationEntry, type ConversationStore, type IdentifiedItem, type StoredConversation } from './store.ts';

/** The most items one request may add, as the real API allows. */
const MAX_ITEMS_AT_ONCE = 20;

/**
 * `include` values of the real API. This server makes none of what they add but logprobs (empty:
 * no logprobs are kept) and reasoning items' `encrypted_content` (an opaque token: see
 * docs/decisions/reasoning-encrypted-content.md), so the others are accepted and change nothing;
 * any other is a 400.
 */
const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];

export interface ConversationRoutes {
  post(ctx: RequestContext): Promise<Response>;
  get(ctx: RequestContext): Promise<Response>;
  delete(ctx: RequestContext): Promise<Response>;
}

/** A new item's id, in the real API's prefixes, where the caller gave it none. */
export function withId(item: ConversationItem): IdentifiedItem {
  if (item.id !== undefined) return item as IdentifiedItem;
  const prefix = item.type === 'message' ? 'msg_' : item.type === 'function_call' ? 'fc_' : item.type === 'reasoning' ? 'rs_' : 'fco_';
  return { ...item, id: randomId(prefix) };
}

export function createConversationRoutes(responses: ResponseStore, store: ConversationStore): ConversationRoutes {
  /** The conversation, if this caller may see it: one it may not is reported as absent, as a model it may not use is. */
  const visible = async (ctx: RequestContext, id: string) => {
    const stored = await store.get(id);
    return stored && visibleTo(stored, ctx.scope) ? stored : undefined;
  };
  const found = async (ctx: RequestContext, id: string) => {
    const stored = await visible(ctx, id);
    if (!stored) throw new GatewayError('resource_not_found', `Conversation with id '${id}' not found.`);
    return stored;
  };
  const unknownUrl = (ctx: RequestContext) => new GatewayError('not_found', `Unknown request URL: ${ctx.request.method} ${new URL(ctx.request.url).pathname}.`);

  /** New items as sent (`items`, at most 20), references resolved against stored responses and this conversation. */
  async function newItems(value: unknown, field: string, within: readonly ConversationEntry[]): Promise<IdentifiedItem[]> {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw invalid(field, `Invalid type for '${field}': expected an array of items, but got ${describe(value)}.`);
    if (value.length > MAX_ITEMS_AT_ONCE) throw invalid(field, `Invalid '${field}': array too long. Expected an array with maximum length ${MAX_ITEMS_AT_ONCE}, but got an array with length ${value.length} instead.`);
    // Reasoning items are kept, as a thinking model's input is; no prompt holds them: templates drop past thinking.
    const parsed = parseInput(value, undefined, undefined, field);
    const resolved = await resolveReferences(parsed, async (id) => within.find((entry) => entry.item.id === id)?.item ?? (await responses.findItem(id)));
    return resolved.map(withId);
  }

  async function create(ctx: RequestContext): Promise<Response> {
    const body = await ctx.body();
    for (const key of Object.keys(body)) if (key !== 'items' && key !== 'metadata') throw invalid(key, `Unknown parameter: '${key}'.`);
    const items = await newItems(body.items, 'items', []);
    const conversation = { id: randomId('conv_'), object: 'conversation', created_at: Math.floor(Date.now() / 1000), metadata: parseMetadata(body.metadata) } as const;
    await store.put({ conversation, models: ctx.scope ? [...ctx.scope] : null, items: items.map((item) => ({ item })) });
    return jsonResponse(conversation);
  }

  async function update(ctx: RequestContext, stored: StoredConversation): Promise<Response> {
    const body = await ctx.body();
    for (const key of Object.keys(body)) if (key !== 'metadata') throw invalid(key, `Unknown parameter: '${key}'.`);
    if (!('metadata' in body)) throw invalid('metadata', `Missing required parameter: 'metadata'.`);
    const conversation = { ...stored.conversation, metadata: parseMetadata(body.metadata) };
    await store.put({ ...stored, conversation });
    return jsonResponse(conversation);
  }

  /** `POST /conversations/{id}/items`: the items added, as a list. */
  async function addItems(ctx: RequestContext, stored: StoredConversation): Promise<Response> {
    const include = includeOf(ctx);
    const body = await ctx.body();
    for (const key of Object.keys(body)) if (key !== 'items') throw invalid(key, `Unknown parameter: '${key}'.`);
    if (body.items === undefined || body.items === null) throw invalid('items', `Missing required parameter: 'items'.`);
    const items = await newItems(body.items, 'items', stored.items);
    if (stored.items.length + items.length > MAX_CONVERSATION_ITEMS) throw conversationFull(stored.items.length);
    await store.put({ ...stored, items: [...stored.items, ...items.map((item) => ({ item }))] });
    return jsonResponse(page(items.map((item) => wireItem(item, include)), false));
  }

  /** `GET /conversations/{id}/items`: newest first unless `order=asc`, paged by `after` and `limit`. */
  function listItems(ctx: RequestContext, stored: StoredConversation): Response {
    const query = new URL(ctx.request.url).searchParams;
    const include = includeOf(ctx);
    const order = query.get('order') ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw invalid('order', `Invalid value for 'order': '${order}'. Supported values are: 'asc' and 'desc'.`);
    const limit = query.has('limit') ? Number(query.get('limit')) : 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', `Invalid 'limit': expected an integer from 1 to 100, but got '${query.get('limit')}'.`);
    const all = visibleItems(stored, ctx.scope).map((entry) => entry.item);
    if (order === 'desc') all.reverse();
    const after = query.get('after');
    let start = 0;
    if (after !== null) {
      const at = all.findIndex((item) => item.id === after);
      if (at === -1) throw invalid('after', `Invalid 'after': no item with id '${after}' in this conversation.`);
      start = at + 1;
    }
    return jsonResponse(page(all.slice(start, start + limit).map((item) => wireItem(item, include)), start + limit < all.length));
  }

  /** One item this caller may see, or the API's 404. */
  const itemOf = (ctx: RequestContext, stored: StoredConversation, itemId: string) => {
    const entry = visibleItems(stored, ctx.scope).find((candidate) => candidate.item.id === itemId);
    if (!entry) throw new GatewayError('resource_not_found', `Item with id '${itemId}' not found.`);
    return entry;
  };

  return {
    async post(ctx) {
      if (ctx.rest === '') return create(ctx);
      const [id, sub, ...more] = ctx.rest.split('/');
      if (!id || more.length > 0) throw unknownUrl(ctx);
      const stored = await found(ctx, id);
      if (sub === undefined) return update(ctx, stored);
      if (sub === 'items') return addItems(ctx, stored);
      throw unknownUrl(ctx);
    },
    async get(ctx) {
      const [id, sub, itemId, ...more] = ctx.rest.split('/');
      if (!id || more.length > 0 || (sub !== undefined && sub !== 'items')) throw unknownUrl(ctx);
      const stored = await found(ctx, id);
      if (sub === undefined) return jsonResponse(stored.conversation);
      if (itemId === undefined) return listItems(ctx, stored);
      return jsonResponse(wireItem(itemOf(ctx, stored, itemId).item, includeOf(ctx)));
    },
    async delete(ctx) {
      const [id, sub, itemId, ...more] = ctx.rest.split('/');
      if (!id || more.length > 0 || (sub !== undefined && (sub !== 'items' || itemId === undefined))) throw unknownUrl(ctx);
      const stored = await found(ctx, id);
      if (sub === undefined) {
        await store.delete(id);
        return jsonResponse({ id, object: 'conversation.deleted', deleted: true });
      }
      const entry = itemOf(ctx, stored, itemId!);
      await store.put({ ...stored, items: stored.items.filter((candidate) => candidate !== entry) });
      // As the real API: the conversation the item was deleted from.
      return jsonResponse(stored.conversation);
    },
  };
}

/** A page of items in the list shape. */
function page(data: readonly Record<string, unknown>[], hasMore: boolean) {
  return { object: 'list', data, first_id: (data[0]?.id as string | undefined) ?? null, last_id: (data.at(-1)?.id as string | undefined) ?? null, has_more: hasMore };
}

/** The `include` query values, each one the real API knows. */
function includeOf(ctx: RequestContext): ReadonlySet<string> {
  const values = new URL(ctx.request.url).searchParams.getAll('include').concat(new URL(ctx.request.url).searchParams.getAll('include[]'));
  values.forEach((value, i) => {
    if (!INCLUDABLE.includes(value)) throw invalid(`include[${i}]`, `Invalid value for 'include[${i}]': ${describe(value)}. Supported values are: ${INCLUDABLE.map((v) => `'${v}'`).join(', ')}.`);
  });
  return new Set(values);
}

/**
 * An item as the API shows it; its output text's logprobs (none kept), a reasoning item's
 * `encrypted_content`, where they are asked for.
 */
function wireItem(item: IdentifiedItem, include: ReadonlySet<string>): Record<string, unknown> {
  const wire = toWireItem(item, item.id);
  if (item.type === 'reasoning' && include.has('reasoning.encrypted_content')) return { ...wire, encrypted_content: encryptedContentOf(item.id) };
  if (!include.has('message.output_text.logprobs') || !Array.isArray(wire.content)) return wire;
  return { ...wire, content: (wire.content as Record<string, unknown>[]).map((part) => (part.type === 'output_text' ? { ...part, logprobs: [] } : part)) };
}

export function conversationFull(held: number): GatewayError {
  return invalid('conversation', `The conversation holds ${held} items, and at most ${MAX_CONVERSATION_ITEMS} can be kept: start a new one.`);
}

/** Entries to add to a conversation: `items`, written by `model`'s response (absent: by the caller). */
export function entriesOf(items: readonly IdentifiedItem[], model?: string): ConversationEntry[] {
  return items.map((item) => (model === undefined ? { item } : { item, model }));
}
