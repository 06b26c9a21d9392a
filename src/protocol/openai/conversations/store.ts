/**
 * Where conversations are kept: beside the stored responses (a `ResponseStore`'s
 * `conversations`), in this process's memory here, in IndexedDB in the browser
 * (src/storage/), shared there by the service worker and every tab. A conversation is kept whole
 * (its object, who may see it, its items in order) and written whole on each change.
 * @module
 */
import type { ConversationItem } from '../responses/items.ts';

/** The wire object, as `openai`'s `Conversation` types it. */
export interface ConversationObject {
  readonly id: string;
  readonly object: 'conversation';
  readonly created_at: number;
  readonly metadata: Readonly<Record<string, string>>;
}

/** One item of a conversation, with the id it is known by. */
export type IdentifiedItem = ConversationItem & { readonly id: string };

export interface ConversationEntry {
  readonly item: IdentifiedItem;
  /** The model whose response added it (its input or output); absent: the caller added it. */
  readonly model?: string;
}

export interface StoredConversation {
  readonly conversation: ConversationObject;
  /**
   * The models the key that made it may use, or null for a key that may use any: a key sees the
   * conversation only where it may use all of them (see `visibleTo`).
   */
  readonly models: readonly string[] | null;
  /** Its items, oldest first. */
  readonly items: readonly ConversationEntry[];
}

export interface ConversationStore {
  get(id: string): Promise<StoredConversation | undefined>;
  /** Keeps it whole, new or changed, evicting the least recently written past the store's bound. */
  put(conversation: StoredConversation): Promise<void>;
  /** True when there was one to delete. */
  delete(id: string): Promise<boolean>;
}

/** How many conversations a store keeps by default before it evicts the least recently written. */
export const DEFAULT_STORED_CONVERSATIONS = 1000;
/** The most items one conversation holds: past it, adding is refused (nothing is dropped unasked). */
export const MAX_CONVERSATION_ITEMS = 10_000;

/** Kept in this process's memory, the least recently written evicted first past `maxEntries`; gone on restart. */
export function createMemoryConversationStore({ maxEntries = DEFAULT_STORED_CONVERSATIONS } = {}): ConversationStore {
  // A Map iterates in insertion order: deleting before setting makes its first key the least recently written.
  const conversations = new Map<string, StoredConversation>();
  return {
    get: async (id) => conversations.get(id),
    async put(conversation) {
      conversations.delete(conversation.conversation.id);
      conversations.set(conversation.conversation.id, conversation);
      while (conversations.size > maxEntries) conversations.delete(conversations.keys().next().value!);
    },
    delete: async (id) => conversations.delete(id),
  };
}

/**
 * Whether a caller whose key may use `scope` (undefined: any model) sees this conversation: a key
 * limited to some models sees only a conversation made by a key limited to models it may use too,
 * so a key cannot read what was said to models it may not use.
 */
export function visibleTo(stored: StoredConversation, scope: ReadonlySet<string> | undefined): boolean {
  if (!scope) return true;
  return stored.models !== null && stored.models.every((model) => scope.has(model));
}

/** The items a caller whose key may use `scope` sees: those added by itself, or by a model it may use. */
export function visibleItems(stored: StoredConversation, scope: ReadonlySet<string> | undefined): ConversationEntry[] {
  return stored.items.filter((entry) => !scope || entry.model === undefined || scope.has(entry.model));
}
