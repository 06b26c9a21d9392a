/**
 * A thinking model's reasoning items over more than one turn of the Responses API, through the
 * clients that send them back: `@ai-sdk/openai`'s Responses model (with the default `store`, it
 * names the first turn's reasoning and message items by `item_reference`; with `store: false`, it
 * sends them inline with the `encrypted_content` it asked for by `include`), and `openai` 7 both
 * ways; and a summary that streams as the thinking does, as both clients read it.
 *
 * The model: Qwen3's real tokenizer and chat template over seeded weights that think
 * (`QWEN3_THINKING_CHAT`, test/support/real-tokenizer-models.ts), beside the same model without
 * thinking (`QWEN3_TOKENIZER_CHAT`) for what a model that does not reason refuses. Real
 * transformers.js inference (onnxruntime-node).
 *
 * Each was seen to fail before the change it checks: the item_reference path with the server's
 * 404 "Item with id 'rs_…' not found." (only messages and calls were stored), the stateless path
 * with the 400 on `include[0]`, the streamed summary with one summary delta after the thinking.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, type ModelMessage } from 'ai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
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

type InputItem = { type?: string; id?: string; role?: string; encrypted_content?: unknown; summary?: unknown };

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

  it("with store: false and include ['reasoning.encrypted_content']: the reasoning item goes back inline with its encrypted_content, whole and streamed", { timeout: SLOW }, async () => {
    const providerOptions = { openai: { store: false, include: ['reasoning.encrypted_content'] } };
    const first = await generateText({ model, prompt: FIRST, maxOutputTokens: 200, maxRetries: 0, providerOptions });
    expect(sent[0]).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    const encrypted = first.reasoning.map((part) => (part.providerMetadata?.openai as { reasoningEncryptedContent?: unknown } | undefined)?.reasoningEncryptedContent);
    expect(encrypted).toEqual([expect.stringMatching(/^inpage-llm\.rs\.v1\./)]);
    const second = await generateText({ model, messages: conversation(first), maxOutputTokens: 200, maxRetries: 0, providerOptions });
    const input = sent[1]!.input as InputItem[];
    expect(input.map((item) => item.type ?? item.role)).toEqual(['user', 'reasoning', 'assistant', 'user']);
    expect(input[1]).toMatchObject({ id: expect.stringMatching(/^rs_/), encrypted_content: encrypted[0] });
    expect(second.text).toBe(REPLY_TEXT);
    expect(second.usage.inputTokens).toBe(await secondTurnPromptTokens());

    // The same first turn streamed: the item's encrypted_content comes with its events.
    const streamed = streamText({ model, prompt: FIRST, maxOutputTokens: 200, maxRetries: 0, providerOptions });
    const reasoning = await streamed.reasoning;
    expect(reasoning.map((part) => (part.providerMetadata?.openai as { reasoningEncryptedContent?: unknown } | undefined)?.reasoningEncryptedContent)).toEqual([expect.stringMatching(/^inpage-llm\.rs\.v1\./)]);
    const after = await generateText({ model, messages: [{ role: 'user', content: FIRST }, ...(await streamed.response).messages, { role: 'user', content: SECOND }], maxOutputTokens: 200, maxRetries: 0, providerOptions });
    expect(after.text).toBe(REPLY_TEXT);
  });

  it('streams a reasoning summary as the thinking streams, once, before the answer', { timeout: SLOW }, async () => {
    // The provider asks reasoning models for a summary; this model's id is not one it knows.
    const streamed = streamText({ model, prompt: FIRST, maxOutputTokens: 200, maxRetries: 0, providerOptions: { openai: { forceReasoning: true, reasoningSummary: 'auto' } } });
    const parts: { type: string; text?: string }[] = [];
    for await (const part of streamed.fullStream) parts.push(part as { type: string; text?: string });
    expect(sent[0]).toMatchObject({ reasoning: { summary: 'auto' } });
    const deltas = parts.filter((part) => part.type === 'reasoning-delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((part) => part.text).join('')).toBe(THINK_TEXT);
    expect(await streamed.reasoningText).toBe(THINK_TEXT);
    expect(parts.findIndex((part) => part.type === 'text-delta')).toBeGreaterThan(parts.findLastIndex((part) => part.type === 'reasoning-delta'));
    expect(await streamed.text).toBe(REPLY_TEXT);
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

  it('with store: false, includes encrypted_content on the reasoning item (whole and streamed) and takes the output back inline', { timeout: SLOW }, async () => {
    const request = { model: MODEL, input: FIRST, max_output_tokens: 200, store: false, include: ['reasoning.encrypted_content' as const] };
    const whole = await oa.responses.create(request);
    const streamed = oa.responses.stream(request);
    const added: unknown[] = [];
    streamed.on('response.output_item.added', (event) => void (event.item.type === 'reasoning' && added.push(event.item.encrypted_content)));
    const final = await streamed.finalResponse();
    for (const response of [whole, final]) {
      const reasoning = response.output[0]!;
      if (reasoning.type !== 'reasoning') throw new Error('not a reasoning item');
      expect(reasoning.encrypted_content).toMatch(/^inpage-llm\.rs\.v1\.[A-Za-z0-9_-]+$/);
      expect(response.output[1]).not.toHaveProperty('encrypted_content');
    }
    expect(added).toEqual([(final.output[0] as { encrypted_content: string }).encrypted_content]);

    const second = await oa.responses.create({ ...request, input: [{ role: 'user', content: FIRST }, ...(whole.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: SECOND }] });
    expect(second.output_text).toBe(REPLY_TEXT);
    expect(second.usage?.input_tokens).toBe(await secondTurnPromptTokens());
    // Any string is taken back (it is never read); anything else is a 400 naming it.
    const made = await oa.responses.create({ ...request, input: [{ type: 'reasoning', id: 'rs_elsewhere', summary: [], encrypted_content: 'gAAAAA-not-ours' }, { role: 'user', content: SECOND }] });
    expect(made.output_text).toBe(REPLY_TEXT);
    const wrong = await oa.responses
      .create({ ...request, input: [{ type: 'reasoning', id: 'rs_x', summary: [], encrypted_content: 7 as unknown as string }, { role: 'user', content: SECOND }] })
      .catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 400, param: 'input[0].encrypted_content' });
  });

  it('streams the summary as the thinking streams: several summary deltas before the first output_text delta', { timeout: SLOW }, async () => {
    const stream = oa.responses.stream({ model: MODEL, input: FIRST, max_output_tokens: 200, reasoning: { summary: 'auto' } });
    const types: string[] = [];
    const summary: string[] = [];
    stream.on('event', (event) => void types.push(event.type));
    stream.on('response.reasoning_summary_text.delta', (event) => void summary.push(event.delta));
    const final = await stream.finalResponse();
    const firstText = types.indexOf('response.output_text.delta');
    const summaryDeltas = types.flatMap((type, i) => (type === 'response.reasoning_summary_text.delta' ? [i] : []));
    expect(summaryDeltas.length).toBeGreaterThan(3);
    expect(summaryDeltas.at(-1)!).toBeLessThan(firstText);
    expect(summary.join('')).toBe(THINK_TEXT);
    expect(types.indexOf('response.reasoning_summary_part.added')).toBeLessThan(types.indexOf('response.reasoning_text.delta'));
    expect(final.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: THINK_TEXT }] });
    expect(final.output_text).toBe(REPLY_TEXT);
  });

  it('keeps a thinking model’s reasoning item in a conversation, listed with its encrypted_content where asked', { timeout: SLOW }, async () => {
    const conversation = await oa.conversations.create({});
    const first = await oa.responses.create({ model: MODEL, input: FIRST, max_output_tokens: 200, conversation: conversation.id });
    const second = await oa.responses.create({ model: MODEL, input: SECOND, max_output_tokens: 200, conversation: conversation.id });
    expect(second.output_text).toBe(REPLY_TEXT);
    expect(second.usage?.input_tokens).toBe(await secondTurnPromptTokens());
    const items = await oa.conversations.items.list(conversation.id, { order: 'asc', include: ['reasoning.encrypted_content'] });
    expect(items.data.map((item) => item.type)).toEqual(['message', 'reasoning', 'message', 'message', 'reasoning', 'message']);
    expect(items.data[1]).toMatchObject({ id: first.output[0]!.id, type: 'reasoning', encrypted_content: expect.stringMatching(/^inpage-llm\.rs\.v1\./) });
  });
});

describe('a model that does not reason', () => {
  it("refuses include ['reasoning.encrypted_content'], and a reference to a reasoning item, as it refuses the item inline", { timeout: SLOW }, async () => {
    const oa = h.openai();
    const include = await oa.responses.create({ model: PLAIN, input: FIRST, max_output_tokens: 32, include: ['reasoning.encrypted_content'] }).catch((e: unknown) => e);
    expect(include).toMatchObject({ status: 400, param: 'include[0]', message: expect.stringContaining(`model '${PLAIN}' does not`) });
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
