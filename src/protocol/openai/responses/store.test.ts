import { describe, expect, it } from 'vitest';
import type { ConversationItem } from './items.ts';
import { createMemoryResponseStore, DEFAULT_STORED_RESPONSES, outputItems, type StoredResponse } from './store.ts';

/** A stored response `n`: input item `in_n`, output message `msg_n` and call `fc_n`. */
function entry(n: number, input: readonly ConversationItem[] = [{ type: 'message', id: `in_${n}`, role: 'user', text: `question ${n}` }]): StoredResponse {
  return {
    response: {
      id: `resp_${n}`,
      object: 'response',
      created_at: 1_763_000_000 + n,
      output: [
        { id: `msg_${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: `answer ${n}`, annotations: [] }] },
        { id: `fc_${n}`, type: 'function_call', status: 'completed', call_id: `call_${n}`, name: 'f', arguments: '{}' },
      ],
    },
    context: input,
    input,
  };
}

describe('createMemoryResponseStore', () => {
  it('gives back what was put, and finds the items of its input and output by id', async () => {
    const store = createMemoryResponseStore();
    await store.put(entry(1));
    expect(await store.get('resp_1')).toEqual(entry(1));
    expect(await store.get('resp_2')).toBeUndefined();
    expect(await store.findItem('in_1')).toEqual({ type: 'message', id: 'in_1', role: 'user', text: 'question 1' });
    expect(await store.findItem('msg_1')).toEqual({ type: 'message', id: 'msg_1', role: 'assistant', text: 'answer 1' });
    expect(await store.findItem('fc_1')).toEqual({ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' });
    expect(await store.findItem('nope')).toBeUndefined();
  });

  it('evicts the oldest responses past maxEntries, and their items with them', async () => {
    const store = createMemoryResponseStore({ maxEntries: 3 });
    for (let n = 1; n <= 5; n++) await store.put(entry(n));
    expect(await store.get('resp_1')).toBeUndefined();
    expect(await store.get('resp_2')).toBeUndefined();
    for (const n of [3, 4, 5]) expect((await store.get(`resp_${n}`))?.response.id).toBe(`resp_${n}`);
    for (const id of ['in_1', 'msg_1', 'fc_1', 'in_2', 'msg_2', 'fc_2']) expect(await store.findItem(id), id).toBeUndefined();
    for (const id of ['in_3', 'msg_3', 'fc_5']) expect(await store.findItem(id), id).toBeDefined();
  });

  it('counts a response put again as new, so the next eviction takes an older one', async () => {
    const store = createMemoryResponseStore({ maxEntries: 2 });
    await store.put(entry(1));
    await store.put(entry(2));
    await store.put(entry(1));
    await store.put(entry(3));
    expect(await store.get('resp_2')).toBeUndefined();
    expect(await store.get('resp_1')).toBeDefined();
    expect(await store.findItem('msg_1')).toBeDefined();
  });

  it('deletes a response and its items, once', async () => {
    const store = createMemoryResponseStore();
    await store.put(entry(1));
    await store.put(entry(2));
    expect(await store.delete('resp_1')).toBe(true);
    expect(await store.delete('resp_1')).toBe(false);
    expect(await store.delete('resp_9')).toBe(false);
    expect(await store.get('resp_1')).toBeUndefined();
    expect(await store.findItem('msg_1')).toBeUndefined();
    expect(await store.findItem('in_1')).toBeUndefined();
    expect(await store.findItem('msg_2')).toBeDefined();
  });

  it('finds a thinking model’s reasoning item by id, and forgets it with the response that holds it', async () => {
    const store = createMemoryResponseStore({ maxEntries: 2 });
    const thinking = (n: number): StoredResponse => {
      const plain = entry(n);
      const reasoning = { id: `rs_${n}`, type: 'reasoning', status: 'completed', summary: [], content: [{ type: 'reasoning_text', text: `thought ${n}` }] };
      return { ...plain, response: { ...plain.response, output: [reasoning, ...plain.response.output] } };
    };
    await store.put(thinking(1));
    expect(await store.findItem('rs_1')).toEqual({ type: 'reasoning', id: 'rs_1', summary: [], text: 'thought 1' });
    // A later input that names it holds it too, until that response goes.
    await store.put(entry(2, [(await store.findItem('rs_1'))!]));
    expect(await store.delete('resp_1')).toBe(true);
    expect(await store.findItem('rs_1')).toBeDefined();
    expect(await store.delete('resp_2')).toBe(true);
    expect(await store.findItem('rs_1')).toBeUndefined();
    // Evicted alike.
    for (const n of [3, 4, 5]) await store.put(thinking(n));
    expect(await store.findItem('rs_3')).toBeUndefined();
    expect(await store.findItem('rs_5')).toBeDefined();
  });

  it('keeps an item while any stored response holds it: its producer, or a later one that repeated it', async () => {
    const store = createMemoryResponseStore({ maxEntries: 3 });
    await store.put(entry(1));
    // Response 2 was sent response 1's answer as an item_reference: its input holds the same item.
    const referenced = (await store.findItem('msg_1'))!;
    await store.put(entry(2, [referenced, { type: 'message', id: 'in_2', role: 'user', text: 'more' }]));
    expect(await store.delete('resp_2')).toBe(true);
    expect(await store.findItem('msg_1')).toEqual(referenced);
    expect(await store.findItem('in_2')).toBeUndefined();
    // The other way: the producer goes first (deleted here, evicted alike), the later holder keeps it.
    await store.put(entry(3, [referenced]));
    await store.delete('resp_1');
    expect(await store.findItem('msg_1')).toEqual(referenced);
    expect(await store.findItem('fc_1')).toBeUndefined();
    await store.delete('resp_3');
    expect(await store.findItem('msg_1')).toBeUndefined();
  });

  it('keeps the held item past the eviction of its producer', async () => {
    const store = createMemoryResponseStore({ maxEntries: 2 });
    await store.put(entry(1));
    await store.put(entry(2, [(await store.findItem('msg_1'))!]));
    await store.put(entry(3));
    expect(await store.get('resp_1')).toBeUndefined();
    expect(await store.findItem('msg_1')).toBeDefined();
    expect(await store.findItem('fc_1')).toBeUndefined();
  });

  it('keeps 1,000 responses by default', async () => {
    expect(DEFAULT_STORED_RESPONSES).toBe(1000);
    const store = createMemoryResponseStore();
    for (let n = 0; n <= DEFAULT_STORED_RESPONSES; n++) await store.put(entry(n));
    expect(await store.get('resp_0')).toBeUndefined();
    expect(await store.get('resp_1')).toBeDefined();
  });
});

describe('outputItems', () => {
  it('reads a response’s output as the items a follow-up is given: text parts and refusals joined', () => {
    const stored = entry(1);
    const withRefusal: StoredResponse = {
      ...stored,
      response: { ...stored.response, output: [{ id: 'msg_r', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'No: ' }, { type: 'refusal', refusal: 'I cannot.' }] }, { id: 'x', type: 'reasoning' }] },
    };
    expect(outputItems(stored)).toEqual([
      { type: 'message', id: 'msg_1', role: 'assistant', text: 'answer 1' },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{}' },
    ]);
    expect(outputItems(withRefusal)).toEqual([
      { type: 'message', id: 'msg_r', role: 'assistant', text: 'No: I cannot.' },
      { type: 'reasoning', id: 'x', summary: [] },
    ]);
  });

  it('reads a reasoning item as one, its summary and its thinking kept (a reference to it must resolve)', () => {
    const stored = entry(1);
    const thinking: StoredResponse = {
      ...stored,
      response: {
        ...stored.response,
        output: [
          { id: 'rs_t', type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Short.' }], content: [{ type: 'reasoning_text', text: 'Long ' }, { type: 'reasoning_text', text: 'thought.' }], encrypted_content: 'inpage-llm.rs.v1.x' },
          ...stored.response.output,
        ],
      },
    };
    expect(outputItems(thinking)[0]).toEqual({ type: 'reasoning', id: 'rs_t', summary: ['Short.'], text: 'Long thought.' });
  });
});
