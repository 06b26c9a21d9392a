/**
 * The masks of the composed matchers (tool calls, a thinking block before an answer) against the
 * brute force (every token's bytes stepped), on Qwen's real vocabulary, through one set of token
 * masks shared by matchers of different answers: where a state is split into its choices, and
 * where a part's mask is shared across matchers (free text), the mask must still be the state's
 * own. A mask kept for one answer and served for another fails here.
 */
import { describe, expect, it } from 'vitest';
import { readSchema } from '../../../core/json-schema/schema-node.ts';
import type { ByteMatcher, MatchState } from '../byte-matcher.ts';
import { bruteMask, differences, qwenVocabulary } from '../token-masks/test-matchers.ts';
import { createTokenMasks } from '../token-masks/token-masks.ts';
import { tokenBytes } from '../vocabulary.ts';
import { jsonMatcher } from './json-matcher.ts';
import { thinkingFirst } from './thinking-first.ts';
import { toolCallsMatcher } from './tool-calls-matcher.ts';

const vocabulary = qwenVocabulary();
const masks = createTokenMasks(vocabulary);
const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
const special = new Set([...(vocabulary.specialTokenIds ?? []), ...vocabulary.stopTokenIds]);

const CITY = readSchema(
  { type: 'object', properties: { city: { type: 'string', maxLength: 6 }, code: { type: 'string', pattern: '^[A-Z]{2}-[0-9]+$' } }, required: ['city', 'code'], additionalProperties: false },
);
const tools = (name: string) => toolCallsMatcher({ tools: [{ name, parameters: CITY }], mode: 'either', parallel: true });
const THINKS = { open: '<think>', close: '</think>' };

/** The token of each single byte (a byte-level vocabulary has all 256). */
const byteToken = new Map<number, number>();
for (let id = 0; id < bytesOf.length; id++) if (bytesOf[id]!.length === 1 && !special.has(id) && !byteToken.has(bytesOf[id]![0]!)) byteToken.set(bytesOf[id]![0]!, id);

function acceptsPrefix(matcher: ByteMatcher, prefix: string): boolean {
  let state: MatchState | undefined = matcher.start;
  for (const byte of new TextEncoder().encode(prefix)) state = state && matcher.step(state, byte);
  return state !== undefined;
}

/** The mask a request gets after `prefix` (a byte a token, through the kept masks), against every token stepped. */
function expectBruteForce(matcher: ByteMatcher, prefix: string): void {
  const constraint = masks.constraint(matcher);
  let state: MatchState | undefined = matcher.start;
  for (const byte of new TextEncoder().encode(prefix)) {
    state = state && matcher.step(state, byte);
    expect(constraint.accept(byteToken.get(byte)!), prefix).toBe(true);
  }
  expect(state, prefix).toBeDefined();
  const fast = constraint.mask()!;
  const differ = differences(fast, bruteMask(vocabulary, bytesOf, matcher, state!))
    .slice(0, 5)
    .map((id) => `${JSON.stringify(vocabulary.tokens[id])} ${(fast[id >> 5]! >>> (id & 31)) & 1 ? 'let through' : 'kept out'}`);
  expect(differ, `after ${JSON.stringify(prefix)}`).toEqual([]);
}

describe('composed matcher masks on the Qwen vocabulary, one mask store for all', () => {
  it('tool calls or a reply: the choice at the start, inside the opening, in text, in a call', () => {
    for (const matcher of [tools('get_city'), tools('set_city')]) {
      for (const prefix of ['', '<', '<tool_call', 'Hi', 'Hi <tool_call>\n', '<tool_call>\n{"name": "', '<tool_call>\n{"name": "get_city", "arguments": {"city": "Pa', '<tool_call>\n{"name": "get_city", "arguments": {"city": "Paris", "code": "', '<tool_call>\n{"name": "get_city", "arguments": {"city": "Paris", "code": "FR-1']) {
        // The call to get_city is not set_city's.
        if (prefix.includes('get_city') && !acceptsPrefix(matcher, prefix)) continue;
        expectBruteForce(matcher, prefix);
      }
    }
  }, 180_000);

  it('a thinking block before different answers: its text, its closing marker half written, the gap', () => {
    const answers = [thinkingFirst(jsonMatcher(CITY), THINKS), thinkingFirst(tools('get_city'), THINKS), thinkingFirst(jsonMatcher(readSchema({ type: 'array', items: { type: 'integer' } })), { ...THINKS, startsInside: true })];
    for (const matcher of answers) {
      for (const prefix of ['', '<think>', '<think>so', '<think>so</', '<think>so</think', '<think>so</think>', '<think>so</think>\n', '<think>so</think>{"city":"Oslo","code":"N']) {
        if (!acceptsPrefix(matcher, prefix)) continue;
        expectBruteForce(matcher, prefix);
      }
    }
  }, 180_000);
});
