/**
 * Usage says exactly what the prefix cache saved, in every flavour, through the official clients:
 * OpenAI chat `prompt_tokens_details.cached_tokens` (whole and streamed), Responses
 * `input_tokens_details.cached_tokens` (a new input, and `previous_response_id`), Anthropic
 * `cache_read_input_tokens` (with `input_tokens` the rest of the prompt, as Anthropic counts it).
 * On real trained weights (stories260K): a cold engine reports 0; a conversation's next turn
 * reports the tokens its prompt shares with what the model read last time, which the test works
 * out apart from the engine: the first prompt's tokens and the greedy story's tokens the model fed
 * back (all but the last it sampled), against the new prompt as the tokenizer writes it.
 */
import { AutoTokenizer, env } from '@huggingface/transformers';
import type Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createHarness, type Harness, TRANSPORTS } from '../support/harness.ts';
import { greedyStoryTokens, realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID, storiesSpec, STORY_PROMPT, STORY_PROMPT_IDS } from '../support/real-weights/index.ts';

const missing = sharedModelsMissing();
const model = STORIES_ID;
/** The first turn's reply: this many tokens of the greedy story. */
const FIRST = 20;
const NEXT = ' Lily was very happy';

let dir: string;
/** The reply to the first turn, and the cached tokens the second turn must report. */
let reply: string;
let expectedCached: number;
let secondPromptTokens: number;

beforeAll(async () => {
  if (missing) return;
  dir = await realWeightsDir();
  const story = await greedyStoryTokens(dir);
  reply = story.prefix(FIRST);
  env.localModelPath = dir;
  const tokenizer = await AutoTokenizer.from_pretrained(STORIES_ID);
  // What the model read: the prompt, then every token it sampled but the last (never fed back).
  const read = [...STORY_PROMPT_IDS, ...story.ids.slice(0, FIRST - 1)];
  const next = tokenizer.encode(`${STORY_PROMPT}${reply}${NEXT}`);
  secondPromptTokens = next.length;
  let shared = 0;
  while (shared < read.length && shared < next.length - 1 && read[shared] === next[shared]) shared++;
  expectedCached = shared;
}, 60_000);
afterAll(removeRealWeightsDir);
beforeEach((context) => context.skip(missing !== undefined, missing));

/** A harness over a fresh engine: nothing cached yet. */
const coldHarness = (transport: (typeof TRANSPORTS)[number]): Harness =>
  createHarness(transport, { engine: createModelHost({ adapters: [createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu' })] }) });

describe.each(TRANSPORTS)('cached tokens in usage on real weights (%s)', (transport) => {
  let h: Harness;
  afterAll(() => h?.close());

  it('the worked-out figure is a real saving', () => {
    // More than the first prompt: the reply's tokens count too; less than the whole new prompt.
    expect(expectedCached).toBeGreaterThan(STORY_PROMPT_IDS.length);
    expect(expectedCached).toBeLessThan(secondPromptTokens);
  });

  it('OpenAI chat: 0 when cold, then the shared prefix, whole and streamed', async () => {
    h = coldHarness(transport);
    const first = await h.openai().chat.completions.create({ model, messages: [{ role: 'user', content: STORY_PROMPT }], max_tokens: FIRST, temperature: 0 });
    expect(first.choices[0]!.message.content).toBe(reply);
    expect(first.usage!.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    const messages = [{ role: 'user' as const, content: STORY_PROMPT }, { role: 'assistant' as const, content: reply }, { role: 'user' as const, content: NEXT }];
    const second = await h.openai().chat.completions.create({ model, messages, max_tokens: 8, temperature: 0 });
    expect(second.usage).toMatchObject({ prompt_tokens: secondPromptTokens, prompt_tokens_details: { cached_tokens: expectedCached } });
    // Streamed, the same request again: all but its last token are cached now.
    let usage;
    for await (const chunk of await h.openai().chat.completions.create({ model, messages, max_tokens: 8, temperature: 0, stream: true, stream_options: { include_usage: true } })) usage = chunk.usage ?? usage;
    expect(usage).toMatchObject({ prompt_tokens: secondPromptTokens, prompt_tokens_details: { cached_tokens: secondPromptTokens - 1 } });
  });

  it('Responses: 0 when cold, then the shared prefix, by input and by previous_response_id', async () => {
    h = coldHarness(transport);
    const first = await h.openai().responses.create({ model, input: STORY_PROMPT, max_output_tokens: FIRST, temperature: 0 });
    expect(first.output_text).toBe(reply);
    expect(first.usage!.input_tokens_details).toEqual({ cached_tokens: 0 });
    const byId = await h.openai().responses.create({ model, previous_response_id: first.id, input: NEXT, max_output_tokens: 16, temperature: 0 });
    expect(byId.usage).toMatchObject({ input_tokens: secondPromptTokens, input_tokens_details: { cached_tokens: expectedCached } });
  });

  it('Anthropic: 0 read from the cache when cold, then the shared prefix apart from input_tokens, whole and streamed', async () => {
    h = coldHarness(transport);
    const first = await h.anthropic().messages.create({ model, max_tokens: FIRST, messages: [{ role: 'user', content: STORY_PROMPT }] });
    expect(first.content[0]).toMatchObject({ type: 'text', text: reply });
    expect(first.usage).toMatchObject({ input_tokens: STORY_PROMPT_IDS.length, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: STORY_PROMPT }, { role: 'assistant', content: reply }, { role: 'user', content: NEXT }];
    const second = await h.anthropic().messages.create({ model, max_tokens: 8, messages });
    expect(second.usage).toMatchObject({ input_tokens: secondPromptTokens - expectedCached, cache_read_input_tokens: expectedCached, cache_creation_input_tokens: 0 });
    const stream = h.anthropic().messages.stream({ model, max_tokens: 8, messages });
    let started: Anthropic.Usage | undefined;
    stream.on('streamEvent', (event) => void (event.type === 'message_start' && (started = event.message.usage)));
    const final = await stream.finalMessage();
    // message_start already says it; the final counts agree.
    expect(started).toMatchObject({ input_tokens: 1, cache_read_input_tokens: secondPromptTokens - 1 });
    expect(final.usage).toMatchObject({ input_tokens: 1, cache_read_input_tokens: secondPromptTokens - 1 });
  });
});
