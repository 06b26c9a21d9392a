import { describe, expect, it } from 'vitest';
import { createMemoryConversationStore, visibleItems, visibleTo, type StoredConversation } from './store.ts';

const conversation = (id: string, models: readonly string[] | null = null, items: StoredConversation['items'] = []): StoredConversation => ({
  conversation: { id, object: 'conversation', created_at: 1, metadata: {} },
  models,
  items,
});

describe('createMemoryConversationStore', () => {
  it('keeps, replaces and deletes whole conversations', async () => {
    const store = createMemoryConversationStore();
    await store.put(conversation('conv_a'));
    const grown = conversation('conv_a', null, [{ item: { type: 'message', id: 'msg_1', role: 'user', text: 'Hi.' } }]);
    await store.put(grown);
    expect(await store.get('conv_a')).toEqual(grown);
    expect(await store.delete('conv_a')).toBe(true);
    expect(await store.delete('conv_a')).toBe(false);
    expect(await store.get('conv_a')).toBeUndefined();
  });

  it('is bounded: past maxEntries the least recently written goes', async () => {
    const store = createMemoryConversationStore({ maxEntries: 2 });
    await store.put(conversation('conv_1'));
    await store.put(conversation('conv_2'));
    // Written again: now the most recent, so conv_2 is the one to go.
    await store.put(conversation('conv_1'));
    await store.put(conversation('conv_3'));
    expect([await store.get('conv_1'), await store.get('conv_2'), await store.get('conv_3')].map((c) => c?.conversation.id)).toEqual(['conv_1', undefined, 'conv_3']);
  });
});

describe('who sees a conversation, and which of its items', () => {
  const items: StoredConversation['items'] = [
    { item: { type: 'message', id: 'msg_1', role: 'user', text: 'Added by the caller.' } },
    { item: { type: 'message', id: 'msg_2', role: 'assistant', text: 'By model a.' }, model: 'a' },
    { item: { type: 'message', id: 'msg_3', role: 'assistant', text: 'By model b.' }, model: 'b' },
  ];

  it('a key that may use every model sees every conversation and item', () => {
    expect(visibleTo(conversation('c', null), undefined)).toBe(true);
    expect(visibleTo(conversation('c', ['a']), undefined)).toBe(true);
    expect(visibleItems(conversation('c', ['a'], items), undefined)).toHaveLength(3);
  });

  it('a limited key sees conversations made under keys limited to models it may use, and those models’ items', () => {
    const scope = new Set(['a']);
    expect(visibleTo(conversation('c', ['a']), scope)).toBe(true);
    expect(visibleTo(conversation('c', ['a', 'b']), scope)).toBe(false);
    expect(visibleTo(conversation('c', null), scope)).toBe(false);
    expect(visibleItems(conversation('c', ['a'], items), scope).map((entry) => entry.item.id)).toEqual(['msg_1', 'msg_2']);
  });
});
