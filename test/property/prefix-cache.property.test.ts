/**
 * The prefix cache changes speed, never answers: on real trained weights (stories260K, whose
 * greedy text depends on every token before it) random conversation trees are walked in random
 * order — turns that continue a conversation, two conversations interleaved, regenerations, edited
 * histories, replies cut by `max_tokens` or left midway (as at a stop string) — and every answer
 * at temperature 0 is the same from an engine with the cache, one without, and one whose cache is
 * so small that it evicts at almost every request (and one such that reads the rest of each prompt
 * five tokens a pass: chunked-prefill.ts). Real transformers.js inference (onnxruntime-node).
 * A reused prefix one token longer than the one shared (the planted defect: `length + 1` in
 * kv-prefix-cache.ts's slice) fails it within a few cases. `PREFIX_CASES` sets how many trees
 * (default 40), `FC_SEED` the seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatEvent, ChatMessage, ChatRequest } from '../../src/core/engine.ts';
import type { EngineAdapter } from '../../src/engines/hosting/adapter.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID, storiesSpec } from '../support/real-weights/index.ts';

const CASES = Number(process.env.PREFIX_CASES ?? 40);
const SEED = Number(process.env.FC_SEED ?? 20261127);
const missing = sharedModelsMissing();

/** stories260K's cache: 5 layers × keys and values × 4 heads × 8 floats = 1,280 bytes a token. */
const BYTES_PER_TOKEN = 5 * 2 * 4 * 8 * 4;

let engines: { on: EngineAdapter; off: EngineAdapter; tight: EngineAdapter; pieces: EngineAdapter };
beforeAll(async () => {
  if (missing) return;
  const dir = await realWeightsDir();
  const adapter = (prefixCacheBytes?: number, prefillChunkTokens?: number) =>
    createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu', ...(prefixCacheBytes !== undefined ? { prefixCacheBytes } : {}), ...(prefillChunkTokens ? { prefillChunkTokens } : {}) });
  // About 40 tokens: most entries are evicted before they could be reused. `pieces` reads what the
  // cache does not hold 5 tokens a pass (chunked-prefill.ts), and evicts as often.
  engines = { on: adapter(), off: adapter(0), tight: adapter(40 * BYTES_PER_TOKEN), pieces: adapter(40 * BYTES_PER_TOKEN, 5) };
}, 60_000);
afterAll(removeRealWeightsDir);
beforeEach((context) => context.skip(missing !== undefined, missing));

interface Answer {
  readonly text: string;
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

async function ask(engine: EngineAdapter, messages: readonly ChatMessage[], maxTokens: number, leaveAfter?: number): Promise<Answer> {
  const request: ChatRequest = { model: STORIES_ID, messages, maxTokens, stop: [] };
  let text = '';
  let start: Extract<ChatEvent, { type: 'start' }> | undefined;
  let tokens = 0;
  for await (const event of engine.chat(request, { signal: new AbortController().signal })) {
    if (event.type === 'start') start = event;
    if (event.type === 'token') {
      text += event.text;
      if (++tokens === leaveAfter) break;
    }
  }
  return { text, promptTokens: start!.promptTokens, cachedTokens: start!.cachedTokens ?? 0 };
}

const WORDS = ['Once', 'upon', 'a', 'time', 'Lily', 'Tom', 'dog', 'ball', 'park', 'happy', 'sad', 'big', 'red', 'tree', 'mom', 'said', 'play', 'saw'];

/** One step of a walk over conversation trees; conversations are indices into the walk's list. */
type Step =
  | { readonly kind: 'continue'; readonly conversation: number; readonly words: readonly string[] }
  | { readonly kind: 'regenerate'; readonly conversation: number }
  | { readonly kind: 'edit'; readonly conversation: number; readonly message: number; readonly words: readonly string[] }
  | { readonly kind: 'branch'; readonly conversation: number; readonly words: readonly string[] };

const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('continue' as const), conversation: fc.nat(3), words }),
  fc.record({ kind: fc.constant('regenerate' as const), conversation: fc.nat(3) }),
  fc.record({ kind: fc.constant('edit' as const), conversation: fc.nat(3), message: fc.nat(8), words }),
  fc.record({ kind: fc.constant('branch' as const), conversation: fc.nat(3), words }),
);
/** How each request ends: a short reply, one cut by the cap, or one the consumer leaves midway. */
const ending = fc.record({ maxTokens: fc.integer({ min: 1, max: 16 }), leaveAfter: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }) });

describe('the prefix cache on real weights (stories260K)', () => {
  it('gives every answer of random conversation trees, walked in random order, as without the cache, and as with one that evicts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(step, ending), { minLength: 2, maxLength: 9 }), async (walk) => {
        const conversations: ChatMessage[][] = [[{ role: 'user', content: 'Once upon a time' }]];
        for (const [next, { maxTokens, leaveAfter }] of walk) {
          const at = next.conversation % conversations.length;
          let messages = conversations[at]!;
          if (next.kind === 'continue') messages = [...messages, { role: 'user', content: ` ${next.words.join(' ')}` }];
          if (next.kind === 'edit') {
            const i = next.message % messages.length;
            messages = messages.map((m, j) => (j === i ? { ...m, content: ` ${next.words.join(' ')}` } : m));
          }
          if (next.kind === 'branch') messages = [...messages.slice(0, -1), { role: 'user', content: ` ${next.words.join(' ')}` }];
          // Conversations stay well inside the 512-token window.
          if (messages.reduce((n, m) => n + m.content.length, 0) > 900) messages = messages.slice(-2);
          const [on, off, tight, pieces] = (await Promise.all([engines.on, engines.off, engines.tight, engines.pieces].map((engine) => ask(engine, messages, maxTokens, leaveAfter)))) as [Answer, Answer, Answer, Answer];
          const where = `${next.kind} of conversation ${at}: ${JSON.stringify(messages)}`;
          expect(on.text, where).toBe(off.text);
          expect(tight.text, where).toBe(off.text);
          expect(pieces.text, where).toBe(off.text);
          expect(on.promptTokens).toBe(off.promptTokens);
          expect(off.cachedTokens).toBe(0);
          for (const cached of [on.cachedTokens, tight.cachedTokens, pieces.cachedTokens]) expect(cached).toBeLessThan(on.promptTokens);
          // The reply joins the conversation as a client would send it back.
          const answered = [...messages, { role: 'assistant' as const, content: on.text }];
          if (next.kind === 'branch' || next.kind === 'edit') conversations.push(answered);
          else conversations[at] = answered;
        }
      }),
      { numRuns: CASES, seed: SEED },
    );
    // The cache was used at all: a regeneration of the last request reads one token.
    const last: ChatMessage[] = [{ role: 'user', content: 'Once upon a time Lily saw a big red ball' }];
    await ask(engines.on, last, 4);
    const again = await ask(engines.on, last, 4);
    expect(again.cachedTokens).toBe(again.promptTokens - 1);
  }, 300_000);
});
