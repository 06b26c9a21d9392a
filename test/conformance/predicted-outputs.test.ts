/**
 * OpenAI's predicted outputs through the official client, on real trained weights (stories260K,
 * greedy): the answer is the same with any prediction, and usage's
 * `completion_tokens_details.accepted_prediction_tokens` / `rejected_prediction_tokens` are exact.
 * The figures are worked out apart from the engine: the drafting rule (drafts.ts, the same one the
 * engine uses) run over the greedy story the model is known to write, guess by guess, against the
 * tokens that follow (the engine's pass cost fixed, as the rule is given it here, instead of
 * measured). An engine that miscounted, kept a wrong guess or lost a right one disagrees.
 */
import { AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PASS_COST, Drafts, PredictionDrafter, PromptLookupDrafter } from '../../src/engines/decoding/drafts.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createHarness, type Harness, TRANSPORTS } from '../support/harness.ts';
import { greedyStoryTokens, realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID, storiesSpec, STORY_PROMPT, STORY_PROMPT_IDS } from '../support/real-weights/index.ts';

const missing = sharedModelsMissing();
const model = STORIES_ID;
const TOKENS = 40;

let dir: string;
let story: { ids: number[]; prefix(n: number): string };
let tokenizer: PreTrainedTokenizer;

beforeAll(async () => {
  if (missing) return;
  dir = await realWeightsDir();
  story = await greedyStoryTokens(dir);
  env.localModelPath = dir;
  tokenizer = await AutoTokenizer.from_pretrained(STORIES_ID);
}, 60_000);
afterAll(removeRealWeightsDir);
beforeEach((context) => context.skip(missing !== undefined, missing));

/** What came of `prediction` when the model writes the greedy story's first `TOKENS` tokens. */
function expectedCounts(prediction: string): { accepted: number; rejected: number } {
  const answer = story.ids.slice(0, TOKENS);
  const drafts = new Drafts(new PredictionDrafter(tokenizer.encode(prediction, { add_special_tokens: false })), new PromptLookupDrafter());
  const sequence: number[] = [...STORY_PROMPT_IDS, answer[0]!];
  while (sequence.length - STORY_PROMPT_IDS.length < TOKENS) {
    const generated = sequence.length - STORY_PROMPT_IDS.length;
    const draft = drafts.propose(sequence, STORY_PROMPT_IDS.length, TOKENS - generated - 1, DEFAULT_PASS_COST);
    let kept = 0;
    while (kept < draft.length && draft[kept] === answer[generated + kept]) kept++;
    if (draft.length > 0) drafts.settle(draft.length, kept);
    sequence.push(...answer.slice(generated, generated + kept + 1));
  }
  return drafts.prediction;
}

const PREDICTIONS: readonly [string, () => string][] = [
  ['the answer itself', () => story.prefix(TOKENS)],
  ['the answer with words changed', () => story.prefix(TOKENS).replace(/\bthe\b/g, 'a').replace(/\bday\b/g, 'night')],
  ['text it does not share', () => 'Quarterly revenue rose by 4.2% in the northern region.'],
  ['the answer as text parts', () => story.prefix(TOKENS)],
];

describe.each(TRANSPORTS)('predicted outputs on real weights (%s)', (transport) => {
  let h: Harness;
  beforeAll(() => {
    if (!missing) h = createHarness(transport, { engine: createModelHost({ adapters: [createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu', draftPassCost: DEFAULT_PASS_COST })] }) });
  });
  afterAll(() => h?.close());
  const messages = [{ role: 'user' as const, content: STORY_PROMPT }];

  it.each(PREDICTIONS)('%s: the same answer, and usage says exactly what was kept and thrown away', async (name, predictionOf) => {
    const text = predictionOf();
    const prediction = name.endsWith('parts')
      ? { type: 'content' as const, content: [{ type: 'text' as const, text: text.slice(0, 9) }, { type: 'text' as const, text: text.slice(9) }] }
      : { type: 'content' as const, content: text };
    const expected = expectedCounts(text);
    const plain = await h.openai().chat.completions.create({ model, messages, max_tokens: TOKENS, temperature: 0 });
    expect(plain.choices[0]!.message.content).toBe(story.prefix(TOKENS));
    // No prediction, no prediction counts.
    expect(plain.usage!.completion_tokens_details?.accepted_prediction_tokens).toBeUndefined();
    const whole = await h.openai().chat.completions.create({ model, messages, max_tokens: TOKENS, temperature: 0, prediction });
    expect(whole.choices[0]!.message.content).toBe(plain.choices[0]!.message.content);
    expect(whole.usage!.completion_tokens).toBe(TOKENS);
    expect(whole.usage!.completion_tokens_details).toEqual({ reasoning_tokens: 0, accepted_prediction_tokens: expected.accepted, rejected_prediction_tokens: expected.rejected });
    // The cases are what they say: all kept; some kept, some thrown away; none kept.
    if (name === 'the answer itself') expect(expected.rejected === 0 && expected.accepted > TOKENS * 0.8).toBe(true);
    if (name.includes('changed')) expect(expected.rejected > 0 && expected.accepted > TOKENS / 2, JSON.stringify(expected)).toBe(true);
    if (name.includes('not share')) expect(expected.accepted, JSON.stringify(expected)).toBe(0);
    let streamed = '';
    let usage;
    for await (const chunk of await h.openai().chat.completions.create({ model, messages, max_tokens: TOKENS, temperature: 0, prediction, stream: true, stream_options: { include_usage: true } })) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(streamed).toBe(plain.choices[0]!.message.content);
    expect(usage!.completion_tokens_details).toEqual(whole.usage!.completion_tokens_details);
  });

  it('refuses a prediction with tools, as OpenAI does, with a 400 naming the parameter', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const error = await h.openai().chat.completions.create({ model, messages, tools, prediction: { type: 'content', content: 'x' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param: 'tools', type: 'invalid_request_error' });
  });
});
