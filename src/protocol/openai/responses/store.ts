/**
 * Where `store: true` responses are kept, so that `previous_response_id` can continue a
 * conversation, `GET /responses/{id}` can read one back and `item_reference` inputs can name an
 * item of one. The gateway takes any implementation; this module has the in-memory one (Node, msw,
 * tests). The browser's runtimes use the IndexedDB one (src/storage/), shared by every tab and the
 * service worker of one origin.
 * @module
 */
import { createMemoryConversationStore, type ConversationStore } from '../conversations/store.ts';
import type { ConversationItem } from './items.ts';

/** One stored response: what the API returned, and what the model was given to produce it. */
export interface StoredResponse {
  /** The response object exactly as it was returned. */
  readonly response: ResponseObject;
  /**
   * The conversation before this response's output, items of earlier responses in the chain
   * first (their inputs and outputs), `instructions` left out: a follow-up does not inherit them.
   */
  readonly context: readonly ConversationItem[];
  /** This request's own input items, for `GET /responses/{id}/input_items`. */
  readonly input: readonly ConversationItem[];
}

/** The wire object, as `openai`'s `Response` types it (only what the store itself reads is typed). */
export interface ResponseObject {
  readonly id: string;
  readonly created_at: number;
  readonly output: readonly ({ readonly id: string } & Record<string, unknown>)[];
  readonly [field: string]: unknown;
}

export interface ResponseStore {
  get(id: string): Promise<StoredResponse | undefined>;
  /** Keeps it, evicting the oldest entries past the store's bound. */
  put(entry: StoredResponse): Promise<void>;
  /** True when there was one to delete. */
  delete(id: string): Promise<boolean>;
  /** An item of any stored response's output or input, by its id (for `item_reference`). */
  findItem(id: string): Promise<ConversationItem | undefined>;
  /**
   * Where the Conversations API keeps its conversations, beside the responses (a store without
   * one: the gateway keeps them in its own memory).
   */
  readonly conversations?: ConversationStore;
}

/** How many responses a store keeps by default before it evicts the oldest. */
export const DEFAULT_STORED_RESPONSES = 1000;

/**
 * Kept in this process's memory, oldest evicted first past `maxEntries`; gone on restart. Its
 * conversations too (the newest 1,000 written).
 */
export function createMemoryResponseStore({ maxEntries = DEFAULT_STORED_RESPONSES } = {}): ResponseStore {
  // A Map iterates in insertion order: its first key is the oldest.
  const entries = new Map<string, StoredResponse>();
  // An item can be held by several responses (an output, then a later input that repeats it by id
  // or by reference): it is forgotten with the last of them.
  const items = new Map<string, { item: ConversationItem; owners: Set<string> }>();
  const heldItems = (entry: StoredResponse) => [...entry.input, ...outputItems(entry)].filter((item) => item.id !== undefined);
  const forget = (id: string) => {
    const entry = entries.get(id);
    if (!entry) return false;
    entries.delete(id);
    for (const item of heldItems(entry)) {
      const held = items.get(item.id!);
      held?.owners.delete(id);
      if (held?.owners.size === 0) items.delete(item.id!);
    }
    return true;
  };
  return {
    get: async (id) => entries.get(id),
    async put(entry) {
      forget(entry.response.id);
      entries.set(entry.response.id, entry);
      for (const item of heldItems(entry)) {
        const held = items.get(item.id!);
        // The first holder's copy stays: a later input that names the item repeats it.
        if (held) held.owners.add(entry.response.id);
        else items.set(item.id!, { item, owners: new Set([entry.response.id]) });
      }
      while (entries.size > maxEntries) forget(entries.keys().next().value!);
    },
    delete: async (id) => forget(id),
    findItem: async (id) => items.get(id)?.item,
    conversations: createMemoryConversationStore(),
  };
}

/**
 * A stored response's output as conversation items (what a follow-up is given of it, and what
 * `item_reference` finds): its reasoning items too, as the real API resolves every item it
 * returned, though past thinking never reaches a prompt (`toConversation` leaves it out).
 */
export function outputItems(entry: StoredResponse): ConversationItem[] {
  return entry.response.output.flatMap((item): ConversationItem[] => {
    if (item.type === 'reasoning') {
      const texts = (parts: unknown) => (Array.isArray(parts) ? parts.map((part: { text?: unknown }) => String(part.text ?? '')) : []);
      const content = Array.isArray(item.content) ? texts(item.content).join('') : undefined;
      return [{ type: 'reasoning', id: item.id, summary: texts(item.summary), ...(content !== undefined ? { text: content } : {}) }];
    }
    if (item.type === 'function_call') {
      return [{ type: 'function_call', id: item.id, call_id: String(item.call_id), name: String(item.name), arguments: String(item.arguments) }];
    }
    if (item.type === 'message') {
      const text = (item.content as { text?: string; refusal?: string }[]).map((part) => part.text ?? part.refusal ?? '').join('');
      return [{ type: 'message', id: item.id, role: 'assistant', text }];
    }
    return [];
  });
}
