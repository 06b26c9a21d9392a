/**
 * A thinking model's reasoning items over more than one turn of the Responses API, through the
 * clients that send them back: `@ai-sdk/openai`'s Responses model (with the default `store`, it
 * names the first turn's reasoning and message items by `item_reference`) and `openai` 7.
 *
 * The model: Qwen3's real tokenizer and chat template over seeded weights that think
 * (`QWEN3_THINKING_CHAT`, test/support/real-tokenizer-models.ts), beside the same model without
 * thinking (`QWEN3_TOKENIZER_CHAT`) for what a model that does not reason refuses. Real
 * transformers.js inference (onnxruntime-node).
 *
 * Seen to fail before the change it checks: the item_reference path with the server's 404 "Item
 * with id 'rs_…' not found." (only messages and calls were stored).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage } from 'ai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost } from '../../src/engines/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { BASE, createHarness, type Harness } from '../support/harness.ts';
import { QWEN3_THINKING_CHAT, QWEN3_TOKENIZER_CHAT, realTokenizerSpec, REPLY_TEXT, THINK_TEXT, writeModel } from '../support/real-tokenizer-models.ts';

const MODEL = QWEN3_THINKING_CHAT.id;
const PLAIN = QWEN3_TOKENIZER_CHAT.id;
const SLOW = 120_000;
const FIRST = 'Greet me in 中文.';
const SECOND = 'Again, please.';

let dir: string;
let h: Harness;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-thinking-responses-'));
  await writeModel(QWEN3_THINKING_CHAT, join(dir, MODEL));
  await writeModel(QWEN3_TOKENIZER_CHAT, join(dir, PLAIN));
  const adapter = createTransformersAdapter({ models: [realTokenizerSpec(QWEN3_THINKING_CHAT), realTokenizerSpec(QWEN3_TOKENIZER_CHAT)], localModelPath: dir, device: 'cpu', grammar: loadXGrammar });
  h = createHarness('fetch option', { engine: createModelHost({ adapters: [adapter] }) });
}, 60_000);
afterAll(async () => {
  h?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The prompt tokens of the second turn as chat completions count it: the first answer, no thinking. */
async function secondTurnPromptTokens(): Promise<number> {
  const chat = await h.openai().chat.completions.create({
    model: MODEL,
    messages: [
      { role: 'user', content: FIRST },
      { role: 'assistant', content: REPLY_TEXT },
      { role: 'user', content: SECOND },
    ],
    max_tokens: 200,
  });
  return chat.usage!.prompt_tokens;
}

type InputItem = { type?: string; id?: string; role?: string };

describe('@ai-sdk/openai responses(), two turns with the thinking model', () => {
  /** Each body the provider posted. */
  let sent: Record<string, unknown>[];
  let model: ReturnType<ReturnType<typeof createOpenAI>['responses']>;
  beforeEach(() => {
    sent = [];
    const recording: typeof fetch = (input, init) => {
      sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return h.fetch(String(input instanceof Request ? input.url : input), init);
    };
    model = createOpenAI({ baseURL: BASE, apiKey: 'sk-local', fetch: recording }).responses(MODEL);
  });
  const conversation = (first: { response: { messages: ModelMessage[] } }): ModelMessage[] => [{ role: 'user', content: FIRST }, ...first.response.messages, { role: 'user', content: SECOND }];

  it('with the default store: the second turn names the first turn’s reasoning and message items by item_reference, which resolve', { timeout: SLOW }, async () => {
    const first = await generateText({ model, prompt: FIRST, maxOutputTokens: 200, maxRetries: 0 });
    expect(first.text).toBe(REPLY_TEXT);
    const second = await generateText({ model, messages: conversation(first), maxOutputTokens: 200, maxRetries: 0 });
    const input = sent[1]!.input as InputItem[];
    expect(input.map((item) => item.type ?? item.role)).toEqual(['user', 'item_reference', 'item_reference', 'user']);
    expect(input[1]!.id).toMatch(/^rs_/);
    expect(input[2]!.id).toMatch(/^msg_/);
    expect(second.text).toBe(REPLY_TEXT);
    // The reasoning item adds nothing to the prompt: it is the chat prompt of the answer alone.
    expect(second.usage.inputTokens).toBe(await secondTurnPromptTokens());
  });
});

describe('openai 7, two turns with the thinking model', () => {
  let oa: OpenAI;
  beforeAll(() => {
    oa = h.openai();
  });

  it('resolves item_reference to the first response’s reasoning item and message, and lists them as this response’s input items', { timeout: SLOW }, async () => {
    const first = await oa.responses.create({ model: MODEL, input: FIRST, max_output_tokens: 200 });
    const [reasoning, message] = first.output;
    expect([reasoning?.type, message?.type]).toEqual(['reasoning', 'message']);
    const second = await oa.responses.create({
      model: MODEL,
      max_output_tokens: 200,
      input: [
        { role: 'user', content: FIRST },
        { type: 'item_reference', id: reasoning!.id! },
        { type: 'item_reference', id: message!.id! },
        { role: 'user', content: SECOND },
      ],
    });
    expect(second.output_text).toBe(REPLY_TEXT);
    expect(second.usage?.input_tokens).toBe(await secondTurnPromptTokens());
    const listed = await oa.responses.inputItems.list(second.id, { order: 'asc' });
    expect(listed.data.map((item) => [item.type, item.id])).toEqual([
      ['message', expect.any(String)],
      ['reasoning', reasoning!.id],
      ['message', message!.id],
      ['message', expect.any(String)],
    ]);
    expect(listed.data[1]).toMatchObject({ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: THINK_TEXT }] });
    // Deleted with its response, the reasoning item is gone too.
    await oa.responses.delete(first.id);
    await oa.responses.delete(second.id);
    const gone = await oa.responses.create({ model: MODEL, max_output_tokens: 200, input: [{ type: 'item_reference', id: reasoning!.id! }, { role: 'user', content: SECOND }] }).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, param: 'input[0]', message: expect.stringContaining(`Item with id '${reasoning!.id}' not found.`) });
  });

  it('keeps a thinking model’s reasoning item in a conversation', { timeout: SLOW }, async () => {
    const conversation = await oa.conversations.create({});
    const first = await oa.responses.create({ model: MODEL, input: FIRST, max_output_tokens: 200, conversation: conversation.id });
    const second = await oa.responses.create({ model: MODEL, input: SECOND, max_output_tokens: 200, conversation: conversation.id });
    expect(second.output_text).toBe(REPLY_TEXT);
    expect(second.usage?.input_tokens).toBe(await secondTurnPromptTokens());
    const items = await oa.conversations.items.list(conversation.id, { order: 'asc' });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'reasoning', 'message', 'message', 'reasoning', 'message']);
    expect(items.data[1]).toMatchObject({ id: first.output[0]!.id, type: 'reasoning', content: [{ type: 'reasoning_text', text: THINK_TEXT }] });
  });
});

describe('a model that does not reason', () => {
  it('refuses a reference to a reasoning item, as it refuses the item inline', { timeout: SLOW }, async () => {
    const oa = h.openai();
    const thought = await oa.responses.create({ model: MODEL, input: FIRST, max_output_tokens: 200 });
    const inline = await oa.responses.create({ model: PLAIN, max_output_tokens: 32, input: [thought.output[0] as OpenAI.Responses.ResponseInputItem, { role: 'user', content: SECOND }] }).catch((e: unknown) => e);
    expect(inline).toMatchObject({ status: 400, param: 'input[0].type', message: expect.stringContaining('does not reason') });
    const referenced = await oa.responses.create({ model: PLAIN, max_output_tokens: 32, input: [{ type: 'item_reference', id: thought.output[0]!.id! }, { role: 'user', content: SECOND }] }).catch((e: unknown) => e);
    expect(referenced).toMatchObject({ status: 400, param: 'input[0]', message: expect.stringContaining('does not reason') });
    // Continuing the thinking model's response by previous_response_id works: its thinking is history, not input.
    const continued = await oa.responses.create({ model: PLAIN, max_output_tokens: 32, previous_response_id: thought.id, input: SECOND });
    expect(continued.status).toMatch(/^(completed|incomplete)$/);
  });
});
