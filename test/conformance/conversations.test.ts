/**
 * OpenAI's Conversations API and input-token counting through the official `openai` client:
 * `conversations.create/retrieve/update/delete`, `conversations.items.create/list/retrieve/delete`
 * (list order, `after`/`limit` paging as the client's auto-pagination follows it, `include`),
 * `responses.create({ conversation })` across turns, whose history the model reads exactly as a
 * `previous_response_id` chain gives it, and `responses.inputTokens.count` equal to the
 * `input_tokens` the same request then reports. On the scripted test double and on real
 * transformers.js inference (the tiny model), through the SDK's fetch option and msw/node.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptedFixture, transformersFixture } from '../support/engines.ts';
import { createHarness, TRANSPORTS, type Harness } from '../support/harness.ts';

type Item = OpenAI.Conversations.ConversationItem;
const textOf = (item: Item) => (item.type === 'message' ? item.content.map((part) => ('text' in part ? part.text : '')).join('') : '');
const roles = (items: readonly Item[]) => items.map((item) => (item.type === 'message' ? item.role : item.type));

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
  );
}

describe.each(TRANSPORTS)('conversations through %s', (transport) => {
  describe.each([scriptedFixture, transformersFixture])('on $name', (fixture) => {
    let harness: Harness;
    let client: OpenAI;
    const model = fixture.chatModel;
    beforeEach(async () => {
      harness = createHarness(transport, { engine: (await fixture.create()).engine });
      client = harness.openai();
    });
    afterEach(() => harness.close());

    it('creates, retrieves, updates and deletes a conversation', async () => {
      const made = await client.conversations.create({ metadata: { topic: 'rivers' }, items: [{ type: 'message', role: 'user', content: 'Hello.' }] });
      expect(made).toEqual({ id: expect.stringMatching(/^conv_/), object: 'conversation', created_at: expect.any(Number), metadata: { topic: 'rivers' } });
      expect(await client.conversations.retrieve(made.id)).toEqual(made);
      const updated = await client.conversations.update(made.id, { metadata: { topic: 'seas' } });
      expect(updated).toEqual({ ...made, metadata: { topic: 'seas' } });
      expect(await client.conversations.retrieve(made.id)).toEqual(updated);
      expect(await client.conversations.delete(made.id)).toEqual({ id: made.id, object: 'conversation.deleted', deleted: true });
      const gone = await rejection(client.conversations.retrieve(made.id));
      expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
      expect(gone.message).toContain(`Conversation with id '${made.id}' not found.`);
      expect(await client.conversations.create()).toMatchObject({ object: 'conversation', metadata: {} });
    });

    it('adds, lists (newest first, or oldest; paged by after and limit), retrieves and deletes items', async () => {
      const { id } = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'One.' }] });
      const added = await client.conversations.items.create(id, {
        items: [
          { type: 'message', role: 'assistant', content: 'Two.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Three.' }] },
        ],
      });
      expect(added).toMatchObject({ object: 'list', has_more: false, data: [{ type: 'message', role: 'assistant', status: 'completed' }, { type: 'message', role: 'user' }] });
      expect(added.first_id).toBe(added.data[0]!.id);
      expect(added.last_id).toBe(added.data[1]!.id);

      const newest = await client.conversations.items.list(id);
      expect(newest.data.map(textOf)).toEqual(['Three.', 'Two.', 'One.']);
      const oldest = await client.conversations.items.list(id, { order: 'asc' });
      expect(oldest.data.map(textOf)).toEqual(['One.', 'Two.', 'Three.']);
      // One item a page: the client follows `after` to the end.
      const walked: string[] = [];
      for await (const item of client.conversations.items.list(id, { order: 'asc', limit: 1 })) walked.push(textOf(item));
      expect(walked).toEqual(['One.', 'Two.', 'Three.']);
      const first = await client.conversations.items.list(id, { order: 'asc', limit: 2 });
      expect(first.has_more).toBe(true);
      expect((await client.conversations.items.list(id, { order: 'asc', after: first.last_id })).data.map(textOf)).toEqual(['Three.']);

      const two = oldest.data[1]!;
      expect(await client.conversations.items.retrieve(two.id!, { conversation_id: id })).toEqual(two);
      // Asked for, an output text's logprobs (none are kept); an unknown include is a 400.
      const withLogprobs = await client.conversations.items.retrieve(two.id!, { conversation_id: id, include: ['message.output_text.logprobs'] });
      expect(withLogprobs).toMatchObject({ content: [{ type: 'output_text', text: 'Two.', logprobs: [] }] });
      expect(await rejection(client.conversations.items.list(id, { include: ['no.such.thing' as never] }))).toBeInstanceOf(OpenAI.BadRequestError);

      const after = await client.conversations.items.delete(two.id!, { conversation_id: id });
      expect(after).toMatchObject({ id, object: 'conversation' });
      expect((await client.conversations.items.list(id, { order: 'asc' })).data.map(textOf)).toEqual(['One.', 'Three.']);
      expect(await rejection(client.conversations.items.retrieve(two.id!, { conversation_id: id }))).toBeInstanceOf(OpenAI.NotFoundError);
    });

    it('answers responses.create({ conversation }) over three turns with the conversation as history, and adds each turn to it', async () => {
      const { id } = await client.conversations.create();
      const turns = ['Tell me about the river.', 'And the sea?', 'And the hills?'];
      const answers: OpenAI.Responses.Response[] = [];
      for (const [i, input] of turns.entries()) {
        // The last turn streamed: its input and output are added once the stream completes.
        const response =
          i === 2
            ? await client.responses.stream({ model, input, conversation: id, max_output_tokens: 16, temperature: 0 }).finalResponse()
            : await client.responses.create({ model, input, conversation: { id }, max_output_tokens: 16, temperature: 0 });
        expect(response.conversation).toEqual({ id });
        expect(response.previous_response_id).toBeNull();
        answers.push(response);
      }
      const items = (await client.conversations.items.list(id, { order: 'asc', limit: 100 })).data;
      expect(roles(items)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      expect(items.filter((_, i) => i % 2 === 0).map(textOf)).toEqual(turns);
      expect(items.filter((_, i) => i % 2 === 1).map(textOf)).toEqual(answers.map((a) => a.output_text));

      // The third turn read exactly the history a previous_response_id chain of the same turns gives.
      const first = await client.responses.create({ model, input: turns[0]!, max_output_tokens: 16, temperature: 0 });
      const chained = await client.responses.create({ model, input: turns[1]!, previous_response_id: first.id, max_output_tokens: 16, temperature: 0 });
      expect([first.output_text, chained.output_text]).toEqual([answers[0]!.output_text, answers[1]!.output_text]);
      const third = await client.responses.create({ model, input: turns[2]!, previous_response_id: chained.id, max_output_tokens: 16, temperature: 0 });
      expect(third.usage!.input_tokens).toBe(answers[2]!.usage!.input_tokens);
      expect(third.output_text).toBe(answers[2]!.output_text);
      expect(answers[2]!.usage!.input_tokens).toBeGreaterThan(answers[1]!.usage!.input_tokens);
      expect(answers[1]!.usage!.input_tokens).toBeGreaterThan(answers[0]!.usage!.input_tokens);
    });

    it('refuses a conversation with previous_response_id, as the real API does, and an unknown one', async () => {
      const { id } = await client.conversations.create();
      const first = await client.responses.create({ model, input: 'Hi.', max_output_tokens: 16 });
      const both = await rejection(client.responses.create({ model, input: 'Again.', conversation: id, previous_response_id: first.id }));
      expect(both).toBeInstanceOf(OpenAI.BadRequestError);
      expect(both.message).toContain("Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.");
      const unknown = await rejection(client.responses.create({ model, input: 'Hi.', conversation: 'conv_nope' }));
      expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
      expect(unknown).toMatchObject({ param: 'conversation' });
      expect((await client.conversations.items.list(id)).data).toEqual([]);
    });

    it('counts input tokens exactly as the same request then reports them', async () => {
      const { id } = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Tell me about the river.' }, { type: 'message', role: 'assistant', content: 'It runs.' }] });
      const ask = { model, instructions: 'Be brief.', input: 'And the sea?', conversation: id };
      const counted = await client.responses.inputTokens.count(ask);
      expect(counted).toEqual({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
      expect(counted.input_tokens).toBeGreaterThan(0);
      // Counting adds nothing to the conversation.
      expect((await client.conversations.items.list(id)).data).toHaveLength(2);
      const answered = await client.responses.create({ ...ask, max_output_tokens: 16 });
      expect(answered.usage!.input_tokens).toBe(counted.input_tokens);
      // Without a conversation too.
      const plain = { model, input: [{ role: 'user' as const, content: 'Count me.' }] };
      expect((await client.responses.inputTokens.count(plain)).input_tokens).toBe((await client.responses.create({ ...plain, max_output_tokens: 16 })).usage!.input_tokens);
    });
  });
});

describe('conversations and keys', () => {
  it('a key sees only conversations made under keys limited to models it may use', async () => {
    const harness = createHarness('fetch option', { engine: (await scriptedFixture.create()).engine, apiKeys: ['sk-all-key-0001', { key: 'sk-chat-key-0002', models: ['scripted-chat'] }, { key: 'sk-embed-key-0003', models: ['scripted-embed'] }] });
    const all = harness.openai({ apiKey: 'sk-all-key-0001' });
    const chat = harness.openai({ apiKey: 'sk-chat-key-0002' });
    const embed = harness.openai({ apiKey: 'sk-embed-key-0003' });
    try {
      const mine = await chat.conversations.create();
      await chat.responses.create({ model: 'scripted-chat', input: 'Hi.', conversation: mine.id, max_output_tokens: 16 });
      expect(await chat.conversations.retrieve(mine.id)).toMatchObject({ id: mine.id });
      expect((await all.conversations.items.list(mine.id)).data).toHaveLength(2);
      // Another team's key: as if there were no such conversation.
      expect(await rejection(embed.conversations.retrieve(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
      expect(await rejection(embed.conversations.items.list(mine.id))).toBeInstanceOf(OpenAI.NotFoundError);
      // One made under the key that may use every model is not the limited keys' to read.
      const theirs = await all.conversations.create({ items: [{ type: 'message', role: 'user', content: 'Secret.' }] });
      expect(await rejection(chat.conversations.retrieve(theirs.id))).toBeInstanceOf(OpenAI.NotFoundError);
      expect(await rejection(chat.responses.create({ model: 'scripted-chat', input: 'Hi.', conversation: theirs.id }))).toBeInstanceOf(OpenAI.NotFoundError);
    } finally {
      harness.close();
    }
  });
});
