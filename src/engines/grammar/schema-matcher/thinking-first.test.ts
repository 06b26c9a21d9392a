// A constraint after a thinking block, by the schema matcher: the same texts taken and refused as
// by the xgrammar grammar it replaces (ebnf.ts `afterThinking`, matched by xgrammar itself), for a
// JSON answer and for tool calls, with the block opened by the model or by the template.
import { describe, expect, it } from 'vitest';
import { readSchema } from '../../../core/json-schema/schema-node.ts';
import { writeToolCall } from '../../../core/tool-syntax.ts';
import { acceptsText } from '../byte-matcher.ts';
import { toEbnf, type GrammarSpec } from '../ebnf.ts';
import { loadXGrammar } from '../load-xgrammar.node.ts';
import { jsonMatcher } from './json-matcher.ts';
import { thinkingFirst } from './thinking-first.ts';
import { toolCallsMatcher } from './tool-calls-matcher.ts';

const N = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
const JSON_SPEC: GrammarSpec = { kind: 'json', output: { kind: 'json_schema', schema: N, strict: true } };
const THINKS = { open: '<think>', close: '</think>' };
const ADD = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false };

async function grammarTakes(spec: GrammarSpec, text: string): Promise<boolean> {
  const xg = await loadXGrammar();
  const { ebnf, root } = await toEbnf(xg, spec);
  const grammar = await (xg as unknown as { Grammar: { fromEBNF(e: string, r: string): Promise<unknown> } }).Grammar.fromEBNF(ebnf, root);
  return (xg as unknown as { Testings: { isGrammarAcceptString(g: unknown, s: string): Promise<boolean> } }).Testings.isGrammarAcceptString(grammar, text);
}

const TEXTS = [
  '<think>\nLet me see: <b> </th </thinking? no.\n</think>\n\n{"n":4}',
  '{"n":4}',
  '<think></think>{"n":4}',
  '<think>\n</think>\n\nno json',
  '<think>a</think>b</think>{"n":4}',
  '<think>never closed {"n":4}',
  '{"n":4}<think>',
  '<think>é ✓</think>    {"n":4}',
  '<think>x</think>     {"n":4}',
  '<think>x</think>\t{"n":4}',
  '<think><think></think>{"n":-2}',
  '<thinx>{"n":4}',
  'so 4.\n</think>\n\n{"n":4}',
];

describe('a constraint after thinking, by the schema matcher', () => {
  it.each([false, true])('takes and refuses what the grammar does, for a JSON answer (template opened the block: %s)', async (startsInside) => {
    const thinking = { ...THINKS, ...(startsInside ? { startsInside } : {}) };
    const matcher = thinkingFirst(jsonMatcher(readSchema(N)), thinking);
    let taken = 0;
    for (const text of TEXTS) {
      const expected = await grammarTakes({ ...JSON_SPEC, thinking }, text);
      expect(acceptsText(matcher, text), text).toBe(expected);
      if (expected) taken++;
    }
    expect(taken).toBeGreaterThan(3);
  });

  it('takes and refuses what the grammar does, for tool calls', async () => {
    const spec: GrammarSpec = { kind: 'tools', tools: [{ name: 'add', parameters: ADD }], mode: 'either', parallel: false, thinking: THINKS };
    const matcher = thinkingFirst(toolCallsMatcher({ tools: [{ name: 'add', parameters: readSchema(ADD) }], mode: 'either', parallel: false }), THINKS);
    const call = writeToolCall('add', { a: 1 });
    for (const text of [`<think>add it</think>\n${call}`, '<think>add it</think>\nsure', call, 'sure', `<think>add it</think>\n${call}\n${call}`, '<think>add</think>']) {
      expect(acceptsText(matcher, text), text).toBe(await grammarTakes(spec, text));
    }
  });

  it('refuses a closing marker whose first character comes again in it, as the grammar does', () => {
    expect(() => thinkingFirst(jsonMatcher(readSchema(N)), { open: '<x>', close: '<</x>' })).toThrow(/comes again/);
  });
});
