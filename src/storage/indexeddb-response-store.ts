/**
 * The browser's `ResponseStore`: `store: true` responses kept in IndexedDB (database
 * `inpage-llm-responses`), so that the service worker's gateway and every tab's fetch shim of one
 * origin read the same responses, and they outlive reloads and service worker restarts.
 *
 * Two object stores. `responses` holds `{ id, entry }` under a key from the database's own key
 * generator, which every context shares, so key order is insertion order across tabs and the
 * service worker; a unique index finds an entry by its response id. `items` holds each input and
 * output item that has an id (a thinking model's reasoning items too, read by `outputItems` as the
 * memory store reads them), keyed by that id, with the responses holding it (a multi-entry
 * index on them), for `findItem`.
 *
 * Same semantics as `createMemoryResponseStore`: a put of an id already stored replaces it and
 * makes it the newest; an item stays while any stored response holds it (its producer, or a later
 * input that repeated it), as its first holder's copy; delete says whether there was one. Bounded
 * the same way: past `maxEntries` (default `DEFAULT_STORED_RESPONSES`, 1,000) the oldest-inserted
 * entries go, in the put's own transaction, so no context ever sees more.
 *
 * Conversations (the Conversations API's) are kept beside them, in a third object store,
 * `conversations`: each whole, as `{ id, conversation }` under a key from the key generator, so key
 * order is the order they were last written; past `maxConversations` (default 1,000) the least
 * recently written go, in the put's own transaction.
 *
 * Where IndexedDB is missing (Node, some runtimes) or will not open (some browsers' private
 * modes refuse it), the store falls back to the memory store: responses then last as long as
 * this context, and the service worker and the pages no longer share them.
 * @module
 */
import { DEFAULT_STORED_CONVERSATIONS, type ConversationStore, type StoredConversation } from '../protocol/openai/conversations/store.ts';
import type { ConversationItem } from '../protocol/openai/responses/items.ts';
import { createMemoryResponseStore, DEFAULT_STORED_RESPONSES, outputItems, type ResponseStore, type StoredResponse } from '../protocol/openai/responses/store.ts';

/** The database every context of an origin opens. */
export const RESPONSES_DATABASE = 'inpage-llm-responses';
/** 2: conversations added (a database of version 1 gains the store, its responses kept). */
const VERSION = 2;
const RESPONSES = 'responses';
const ITEMS = 'items';
const CONVERSATIONS = 'conversations';
const BY_ID = 'by-id';
const BY_OWNER = 'by-owner';

interface ResponseRecord {
  readonly id: string;
  readonly entry: StoredResponse;
}

interface ConversationRecord {
  readonly id: string;
  readonly conversation: StoredConversation;
}

interface ItemRecord {
  readonly id: string;
  /** The stored responses whose input or output holds it. */
  readonly owners: readonly string[];
  readonly item: ConversationItem;
}

export interface IndexedDBResponseStoreOptions {
  /** How many responses to keep before the oldest are evicted. Default `DEFAULT_STORED_RESPONSES`. */
  readonly maxEntries?: number;
  /** How many conversations to keep before the least recently written are evicted. Default `DEFAULT_STORED_CONVERSATIONS`. */
  readonly maxConversations?: number;
  /** The database's name (default `inpage-llm-responses`): another name is another store. */
  readonly database?: string;
}

export function createIndexedDBResponseStore({ maxEntries = DEFAULT_STORED_RESPONSES, maxConversations = DEFAULT_STORED_CONVERSATIONS, database = RESPONSES_DATABASE }: IndexedDBResponseStoreOptions = {}): ResponseStore {
  // A runtime without IndexedDB (Node, the fetch shim's tests) is not a failure to report.
  if (typeof indexedDB === 'undefined') return createMemoryResponseStore({ maxEntries });
  let backend: Promise<ResponseStore> | undefined;
  // Opened on first use; opened again after the browser closed it (another context upgrading it,
  // site data cleared).
  const store = () =>
    (backend ??= openDatabase(database, () => (backend = undefined)).then(
      (db) => databaseStore(db, maxEntries, maxConversations),
      (error: unknown) => {
        // Some private modes refuse to open a database: the API still works, on this context's memory.
        console.warn(`inpage-llm: IndexedDB is unavailable (${String(error)}): stored responses are kept in this context's memory only.`);
        return createMemoryResponseStore({ maxEntries });
      },
    ));
  const conversations = async () => (await store()).conversations!;
  return {
    get: async (id) => (await store()).get(id),
    put: async (entry) => (await store()).put(entry),
    delete: async (id) => (await store()).delete(id),
    findItem: async (id) => (await store()).findItem(id),
    conversations: {
      get: async (id) => (await conversations()).get(id),
      put: async (conversation) => (await conversations()).put(conversation),
      delete: async (id) => (await conversations()).delete(id),
    },
  };
}

function openDatabase(name: string, onClosed: () => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    let open: IDBOpenDBRequest;
    try {
      open = indexedDB.open(name, VERSION);
    } catch (error) {
      return reject(error);
    }
    open.onupgradeneeded = (event) => {
      const db = open.result;
      if (event.oldVersion < 1) {
        db.createObjectStore(RESPONSES, { autoIncrement: true }).createIndex(BY_ID, 'id', { unique: true });
        db.createObjectStore(ITEMS, { keyPath: 'id' }).createIndex(BY_OWNER, 'owners', { multiEntry: true });
      }
      if (event.oldVersion < 2) db.createObjectStore(CONVERSATIONS, { autoIncrement: true }).createIndex(BY_ID, 'id', { unique: true });
    };
    open.onsuccess = () => {
      const db = open.result;
      // A later version opened elsewhere waits for every connection to close: let it, and reopen
      // on the next call.
      db.onversionchange = () => {
        db.close();
        onClosed();
      };
      db.onclose = onClosed;
      resolve(db);
    };
    // No `onblocked`: a context holding an older version closes it on `versionchange`, and the
    // open then goes on.
    open.onerror = () => reject(open.error);
  });
}

function databaseStore(db: IDBDatabase, maxEntries: number, maxConversations: number): ResponseStore {
  return {
    conversations: conversationStore(db, maxConversations),
    get: (id) => inTransaction(db, 'readonly', async (responses) => (await done<ResponseRecord | undefined>(responses.index(BY_ID).get(id)))?.entry),
    put: (entry) =>
      inTransaction(db, 'readwrite', async (responses, items) => {
        const id = entry.response.id;
        await forget(responses, items, id);
        responses.add({ id, entry } satisfies ResponseRecord);
        for (const item of [...entry.input, ...outputItems(entry)]) {
          if (item.id === undefined) continue;
          const held = await done<ItemRecord | undefined>(items.get(item.id));
          // The first holder's copy stays: a later input that names the item repeats it.
          if (!held) items.put({ id: item.id, owners: [id], item } satisfies ItemRecord);
          else if (!held.owners.includes(id)) items.put({ ...held, owners: [...held.owners, id] } satisfies ItemRecord);
        }
        const excess = (await done(responses.count())) - maxEntries;
        if (excess <= 0) return;
        // Ascending keys: the oldest insertions first.
        for (const record of await done<ResponseRecord[]>(responses.getAll(null, excess))) await forget(responses, items, record.id);
      }),
    delete: (id) => inTransaction(db, 'readwrite', (responses, items) => forget(responses, items, id)),
    findItem: (id) => inTransaction(db, 'readonly', async (_, items) => (await done<ItemRecord | undefined>(items.get(id)))?.item),
  };
}

function conversationStore(db: IDBDatabase, maxEntries: number): ConversationStore {
  const run = <T>(mode: IDBTransactionMode, work: (conversations: IDBObjectStore) => Promise<T>) => inStores(db, [CONVERSATIONS], mode, ([conversations]) => work(conversations!));
  /** Deletes one by its id; true when there was one. */
  const forgetConversation = async (conversations: IDBObjectStore, id: string) => {
    const key = await done(conversations.index(BY_ID).getKey(id));
    if (key === undefined) return false;
    conversations.delete(key);
    return true;
  };
  return {
    get: (id) => run('readonly', async (conversations) => (await done<ConversationRecord | undefined>(conversations.index(BY_ID).get(id)))?.conversation),
    put: (conversation) =>
      run('readwrite', async (conversations) => {
        const id = conversation.conversation.id;
        // Written again: a new key, so key order stays the order of the last writes.
        await forgetConversation(conversations, id);
        conversations.add({ id, conversation } satisfies ConversationRecord);
        const excess = (await done(conversations.count())) - maxEntries;
        if (excess <= 0) return;
        for (const record of await done<ConversationRecord[]>(conversations.getAll(null, excess))) await forgetConversation(conversations, record.id);
      }),
    delete: (id) => run('readwrite', (conversations) => forgetConversation(conversations, id)),
  };
}

/** Deletes a response, and each item it held that no other stored response holds; true when there was one. */
async function forget(responses: IDBObjectStore, items: IDBObjectStore, id: string): Promise<boolean> {
  const key = await done(responses.index(BY_ID).getKey(id));
  if (key === undefined) return false;
  responses.delete(key);
  for (const held of await done<ItemRecord[]>(items.index(BY_OWNER).getAll(id))) {
    const owners = held.owners.filter((owner) => owner !== id);
    if (owners.length === 0) items.delete(held.id);
    else items.put({ ...held, owners } satisfies ItemRecord);
  }
  return true;
}

/**
 * Runs `work` in one transaction over both stores and resolves once it has committed. `work`
 * awaits only this transaction's own requests: a transaction stays open across the microtasks of
 * its requests' events, and commits when one passes with none pending.
 */
function inTransaction<T>(db: IDBDatabase, mode: IDBTransactionMode, work: (responses: IDBObjectStore, items: IDBObjectStore) => Promise<T>): Promise<T> {
  return inStores(db, [RESPONSES, ITEMS], mode, ([responses, items]) => work(responses!, items!));
}

/** `inTransaction` over the named stores. */
async function inStores<T>(db: IDBDatabase, names: readonly string[], mode: IDBTransactionMode, work: (stores: IDBObjectStore[]) => Promise<T>): Promise<T> {
  const transaction = db.transaction([...names], mode);
  const committed = new Promise<void>((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = () => reject(transaction.error ?? new DOMException('The transaction was aborted.', 'AbortError'));
  });
  try {
    const result = await work(names.map((name) => transaction.objectStore(name)));
    await committed;
    return result;
  } catch (error) {
    committed.catch(() => {});
    try {
      transaction.abort();
    } catch {
      // Already finished (aborted by the failed request itself).
    }
    throw error;
  }
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
