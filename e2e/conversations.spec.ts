/**
 * OpenAI's Conversations API and input-token counting with the official `openai` client in the
 * browser, through the service worker and through the page's fetch shim, on the tiny model:
 * conversations and their items created, listed, retrieved, updated and deleted; three turns of
 * `responses.create({ conversation })`, the last streamed; `responses.inputTokens.count` equal to
 * the usage the same request then reports. Conversations live in IndexedDB beside the stored
 * responses: one made through the page is read through the service worker. The store itself is
 * checked in the page too (bounded, and a database from before conversations keeps its responses).
 */
import { expect, startRuntime, test } from './fixtures.ts';

const API_KEY = 'sk-conversations';

for (const { path, inPage } of [
  { path: 'service worker', inPage: false },
  { path: 'page', inPage: true },
]) {
  test(`openai conversations (${path}): the conversation and its items, three turns on it, input tokens counted`, async ({ page }) => {
    await startRuntime(page, { inPage, apiKeys: [API_KEY] });
    const fromServiceWorker: boolean[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/')) fromServiceWorker.push(response.fromServiceWorker());
    });
    const result = await page.evaluate(
      async ({ apiKey, inPage }) => {
        const { OpenAI, networkFetch } = window.harness;
        const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
        const model = 'tiny-chat';
        const text = (item: { type: string; content?: { text?: string }[] }) => (item.content ?? []).map((part) => part.text ?? '').join('');

        const made = await client.conversations.create({ metadata: { topic: 'e2e' }, items: [{ type: 'message', role: 'user', content: 'Hello.' }] });
        const retrieved = await client.conversations.retrieve(made.id);
        const updated = await client.conversations.update(made.id, { metadata: { topic: 'updated' } });
        const added = await client.conversations.items.create(made.id, { items: [{ type: 'message', role: 'assistant', content: 'Hi.' }] });
        const item = await client.conversations.items.retrieve(added.data[0]!.id!, { conversation_id: made.id });
        await client.conversations.items.delete(added.data[0]!.id!, { conversation_id: made.id });

        const { id } = await client.conversations.create();
        const turns = ['Tell me about the river.', 'And the sea?', 'And the hills?'];
        const answers = [];
        for (const [i, input] of turns.entries()) {
          if (i === 2) answers.push(await client.responses.stream({ model, input, conversation: id, max_output_tokens: 16 }).finalResponse());
          else answers.push(await client.responses.create({ model, input, conversation: { id }, max_output_tokens: 16 }));
        }
        const ask = { model, instructions: 'Be brief.', input: 'One more.', conversation: id };
        const counted = await client.responses.inputTokens.count(ask);
        const answered = await client.responses.create({ ...ask, max_output_tokens: 16 });
        const items = (await client.conversations.items.list(id, { order: 'asc', limit: 100 })).data;
        // Kept through the page's runtime, read through the service worker: one IndexedDB.
        const throughWorker = inPage ? await (await networkFetch(`/v1/conversations/${id}/items?order=asc&limit=100`, { headers: { authorization: `Bearer ${apiKey}` } })).json() : null;
        const deleted = await client.conversations.delete(made.id);
        const gone = await client.conversations.retrieve(made.id).then(
          () => null,
          (error: { status?: number }) => error.status,
        );
        return {
          made,
          retrieved,
          updated,
          item,
          conversations: answers.map((a) => a.conversation),
          outputs: answers.map((a) => a.output_text).concat(answered.output_text),
          inputTokens: answers.map((a) => a.usage!.input_tokens),
          counted,
          answeredInputTokens: answered.usage!.input_tokens,
          items: items.map((i) => ({ type: i.type, role: 'role' in i ? i.role : null, text: text(i as never) })),
          throughWorker: throughWorker && (throughWorker as { data: { id: string }[] }).data.map((i) => i.id),
          itemIds: items.map((i) => i.id),
          deleted,
          gone,
          id,
        };
      },
      { apiKey: API_KEY, inPage },
    );

    expect(result.made).toMatchObject({ object: 'conversation', metadata: { topic: 'e2e' } });
    expect(result.retrieved).toEqual(result.made);
    expect(result.updated).toEqual({ ...result.made, metadata: { topic: 'updated' } });
    expect(result.item).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] });
    expect(result.conversations).toEqual([{ id: result.id }, { id: result.id }, { id: result.id }]);
    expect(result.inputTokens[1]).toBeGreaterThan(result.inputTokens[0]!);
    expect(result.inputTokens[2]).toBeGreaterThan(result.inputTokens[1]!);
    expect(result.counted).toEqual({ object: 'response.input_tokens', input_tokens: result.answeredInputTokens });
    // Each turn's input and output, in order, the fourth (after the count, which adds nothing) too.
    expect(result.items.map((i) => i.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(result.items.filter((_, i) => i % 2 === 0).map((i) => i.text)).toEqual(['Tell me about the river.', 'And the sea?', 'And the hills?', 'One more.']);
    expect(result.items.filter((_, i) => i % 2 === 1).map((i) => i.text)).toEqual(result.outputs);
    if (inPage) {
      expect(result.throughWorker).toEqual(result.itemIds);
      // Only the one read through the worker left the page.
      expect(fromServiceWorker).toEqual([true]);
    } else {
      expect(fromServiceWorker.length).toBeGreaterThan(10);
      expect(fromServiceWorker.every(Boolean)).toBe(true);
    }
    expect(result.deleted).toEqual({ id: result.made.id, object: 'conversation.deleted', deleted: true });
    expect(result.gone).toBe(404);
  });
}

test('the IndexedDB conversation store: bounded, least recently written out first; a database from before conversations keeps its responses', async ({ page }) => {
  await startRuntime(page, { inPage: true });
  const result = await page.evaluate(async () => {
    const { createIndexedDBResponseStore } = window.harness;
    const conversation = (id: string) => ({ conversation: { id, object: 'conversation' as const, created_at: 1, metadata: {} }, models: null, items: [] });
    const bounded = createIndexedDBResponseStore({ database: `conversations-bounded-${Date.now()}`, maxConversations: 2 }).conversations!;
    await bounded.put(conversation('conv_1'));
    await bounded.put(conversation('conv_2'));
    await bounded.put(conversation('conv_1'));
    await bounded.put(conversation('conv_3'));
    const kept = await Promise.all(['conv_1', 'conv_2', 'conv_3'].map(async (id) => (await bounded.get(id))?.conversation.id ?? null));
    const deleted = [await bounded.delete('conv_3'), await bounded.delete('conv_3')];

    // A database of the first version (responses and items only), with one response in it.
    const name = `responses-v1-${Date.now()}`;
    await new Promise<void>((resolve, reject) => {
      const open = indexedDB.open(name, 1);
      open.onupgradeneeded = () => {
        const db = open.result;
        db.createObjectStore('responses', { autoIncrement: true }).createIndex('by-id', 'id', { unique: true });
        db.createObjectStore('items', { keyPath: 'id' }).createIndex('by-owner', 'owners', { multiEntry: true });
      };
      open.onsuccess = () => {
        const db = open.result;
        const transaction = db.transaction(['responses'], 'readwrite');
        transaction.objectStore('responses').add({ id: 'resp_old', entry: { response: { id: 'resp_old', created_at: 1, output: [] }, context: [], input: [] } });
        transaction.oncomplete = () => {
          db.close();
          resolve();
        };
        transaction.onerror = () => reject(transaction.error);
      };
      open.onerror = () => reject(open.error);
    });
    const upgraded = createIndexedDBResponseStore({ database: name });
    const old = await upgraded.get('resp_old');
    await upgraded.conversations!.put(conversation('conv_new'));
    return { kept, deleted, old: old?.response.id ?? null, added: (await upgraded.conversations!.get('conv_new'))?.conversation.id ?? null };
  });
  expect(result).toEqual({ kept: ['conv_1', null, 'conv_3'], deleted: [true, false], old: 'resp_old', added: 'conv_new' });
});
