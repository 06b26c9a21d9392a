/**
 * A thinking budget is kept, in every flavour, through the official SDKs: Anthropic's
 * `thinking.budget_tokens`, chat completions' `reasoning_effort` and the Responses API's
 * `reasoning.effort` (through the model's `reasoning.budgets`) each end the thinking within the
 * budget plus the closing marker, and the answer follows it; usage counts no more thinking than
 * that. A budget not below `max_tokens` is the real API's 400.
 *
 * The model: Qwen3's real tokenizer and template over seeded weights whose thought runs some 1,400
 * tokens (`QWEN3_LONG_THINKING_CHAT`, test/support/real-tokenizer-models.ts), longer than the
 * `max_tokens` asked here: without a budget kept, the thinking runs to the cap and no answer comes.
 * Its entry sets small budgets (low 48, medium 160) so the OpenAI flavours cut it quickly;
 * Anthropic's smallest budget, 1024, is taken as it is. Real transformers.js inference.
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { LONG_THINK_TEXT, QWEN3_LONG_THINKING_CHAT, QWEN3_THINKING, realTokenizerSpec, REPLY_TEXT, writeModel } from '../support/real-tokenizer-models.ts';

const MODEL = QWEN3_LONG_THINKING_CHAT.id;
const SLOW = 180_000;
const MESSAGES = [{ role: 'user' as const, content: 'Greet me in 中文.' }];
const BUDGETS = { low: 48, medium: 160 };
/** `</think>` is one token of Qwen3's: the most a kept budget of N lets the thinking take is N + 1. */
const MARKER = 1;

let dir: string;
let h: Harness;
let adapter: ReturnType<typeof createTransformersAdapter>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-thinking-budget-'));
  await writeModel(QWEN3_LONG_THINKING_CHAT, join(dir, MODEL));
  const spec = realTokenizerSpec(QWEN3_LONG_THINKING_CHAT);
  adapter = createTransformersAdapter({ models: [{ ...spec, info: { ...spec.info, reasoning: { ...QWEN3_THINKING, budgets: BUDGETS } } }], localModelPath: dir, device: 'cpu', grammar: loadXGrammar });
  h = createHarness('fetch option', { engine: createModelHost({ adapters: [adapter] }) });
}, 60_000);
afterAll(async () => {
  h?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The thought cut short: a beginning of the model's whole thought, and more than a few words of it. */
function expectCutThought(text: string | null | undefined): void {
  expect(text).toBeTruthy();
  expect(LONG_THINK_TEXT.startsWith(text!)).toBe(true);
  expect(text!.length).toBeLessThan(LONG_THINK_TEXT.length);
}

type WithReasoning = { reasoning_content?: string | null };
type ReasoningUsage = { completion_tokens_details?: { reasoning_tokens?: number } };

it('says the model keeps thinking budgets (its engine does)', () => {
  expect(adapter.models.find((model) => model.id === MODEL)?.keepsThinkingBudget).toBe(true);
});

describe('Anthropic messages', () => {
  it('ends the thinking within budget_tokens (plus the marker), the answer after it, whole and streamed', { timeout: SLOW }, async () => {
    const an = h.anthropic();
    const request = { model: MODEL, messages: MESSAGES, max_tokens: 1200, thinking: { type: 'enabled' as const, budget_tokens: 1024 } };
    const whole = await an.messages.create(request);
    expect(whole.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    const thought = whole.content[0]!;
    expectCutThought(thought.type === 'thinking' ? thought.thinking : null);
    expect(whole.content[1]).toEqual({ type: 'text', text: REPLY_TEXT });
    expect(whole.stop_reason).toBe('end_turn');
    const thinkingTokens = whole.usage.output_tokens_details?.thinking_tokens;
    expect(thinkingTokens).toBeLessThanOrEqual(1024 + MARKER);
    // Forced at the budget, not before it.
    expect(thinkingTokens).toBe(1024 + MARKER);

    const streamed = await an.messages.stream(request).finalMessage();
    expect(streamed.content).toEqual(whole.content);
    expect(streamed.usage.output_tokens_details?.thinking_tokens).toBe(thinkingTokens);
  });

  it('refuses a budget_tokens not below max_tokens with the real API\'s 400', { timeout: SLOW }, async () => {
    const an = h.anthropic();
    for (const [maxTokens, budget] of [[1024, 1024], [1200, 1500]]) {
      const error = await an.messages.create({ model: MODEL, messages: MESSAGES, max_tokens: maxTokens!, thinking: { type: 'enabled', budget_tokens: budget! } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { type: string; message: string } };
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toBe('`max_tokens` must be greater than `thinking.budget_tokens`');
    }
  });
});

describe('chat completions', () => {
  it('ends the thinking at the budget of reasoning_effort low and medium, whole and streamed', { timeout: SLOW }, async () => {
    const oa = h.openai();
    for (const effort of ['low', 'medium'] as const) {
      const budget = BUDGETS[effort];
      const reply = await oa.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400, reasoning_effort: effort });
      const message = reply.choices[0]!.message as typeof reply.choices[0]['message'] & WithReasoning;
      expectCutThought(message.reasoning_content);
      expect(message.content).toBe(REPLY_TEXT);
      expect(reply.choices[0]!.finish_reason).toBe('stop');
      expect((reply.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(budget + MARKER);

      const stream = await oa.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400, reasoning_effort: effort, stream: true, stream_options: { include_usage: true } });
      let reasoning = '';
      let content = '';
      let usage: ReasoningUsage | undefined;
      for await (const chunk of stream) {
        const delta = (chunk.choices[0]?.delta ?? {}) as { content?: string | null } & WithReasoning;
        reasoning += delta.reasoning_content ?? '';
        content += delta.content ?? '';
        if (chunk.usage) usage = chunk.usage as ReasoningUsage;
      }
      expect(reasoning).toBe(message.reasoning_content);
      expect(content).toBe(REPLY_TEXT);
      expect(usage?.completion_tokens_details?.reasoning_tokens).toBe(budget + MARKER);
    }
  });

  it('keeps the budget while sampling and under a JSON grammar, which lets the forced marker through', { timeout: SLOW }, async () => {
    const oa = h.openai();
    const sampled = await oa.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400, reasoning_effort: 'low', temperature: 1, seed: 3 });
    expect((sampled.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(BUDGETS.low + MARKER);
    expect(sampled.choices[0]!.message.content).toBe(REPLY_TEXT);

    const json = await oa.chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 400, reasoning_effort: 'low', response_format: { type: 'json_object' } });
    const message = json.choices[0]!.message as typeof json.choices[0]['message'] & WithReasoning;
    expectCutThought(message.reasoning_content);
    expect(typeof JSON.parse(message.content!)).toBe('object');
    expect((json.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(BUDGETS.low + MARKER);
  });

  it('sets no budget for reasoning_effort high (the model thinks on, to max_tokens here)', { timeout: SLOW }, async () => {
    const reply = await h.openai().chat.completions.create({ model: MODEL, messages: MESSAGES, max_tokens: 300, reasoning_effort: 'high' });
    expect(reply.choices[0]!.finish_reason).toBe('length');
    expect(reply.choices[0]!.message.content).toBeFalsy();
    expect((reply.usage as ReasoningUsage).completion_tokens_details?.reasoning_tokens).toBe(300);
  });
});

describe('the Responses API', () => {
  it('ends the thinking at the budget of reasoning.effort low, the message after the reasoning item', { timeout: SLOW }, async () => {
    const response = await h.openai().responses.create({ model: MODEL, input: MESSAGES[0]!.content, max_output_tokens: 400, reasoning: { effort: 'low' } });
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    const reasoning = response.output[0]!;
    if (reasoning.type !== 'reasoning') throw new Error('not a reasoning item');
    expectCutThought(reasoning.content?.[0]?.text);
    expect(response.output_text).toBe(REPLY_TEXT);
    expect(response.status).toBe('completed');
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(BUDGETS.low + MARKER);
  });
});
