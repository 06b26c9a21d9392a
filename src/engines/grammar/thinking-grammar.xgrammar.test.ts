// The answer's grammar after a thinking block (ebnf.ts `afterThinking`), compiled and matched by
// xgrammar itself: the thinking is free text up to its closing marker, and the grammar holds after.
import { describe, expect, it } from 'vitest';
import { toEbnf, type GrammarSpec } from './ebnf.ts';
import { loadXGrammar } from './load-xgrammar.node.ts';

const JSON_SPEC: GrammarSpec = { kind: 'json', output: { kind: 'json_schema', schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, strict: true } };
const THINKS = { open: '<think>', close: '</think>' };

async function accepts(spec: GrammarSpec, text: string): Promise<boolean> {
  const xg = await loadXGrammar();
  const { ebnf, root } = await toEbnf(xg, spec);
  const grammar = await (xg as unknown as { Grammar: { fromEBNF(e: string, r: string): Promise<unknown> } }).Grammar.fromEBNF(ebnf, root);
  return (xg as unknown as { Testings: { isGrammarAcceptString(g: unknown, s: string): Promise<boolean> } }).Testings.isGrammarAcceptString(grammar, text);
}

describe('a grammar after thinking', () => {
  it.each([
    ['<think>\nLet me see: <b> </th </thinking? no.\n</think>\n\n{"n":4}', true],
    ['{"n":4}', true],
    ['<think></think>{"n":4}', true],
    ['<think>\n</think>\n\nno json', false],
    ['<think>a</think>b</think>{"n":4}', false],
    ['<think>never closed {"n":4}', false],
    ['{"n":4}<think>', false],
  ])('%j: %s', async (text, expected) => {
    expect(await accepts({ ...JSON_SPEC, thinking: THINKS }, text)).toBe(expected);
  });

  it('opens inside the thinking for a template that opened it', async () => {
    expect(await accepts({ ...JSON_SPEC, thinking: { ...THINKS, startsInside: true } }, 'so 4.\n</think>\n\n{"n":4}')).toBe(true);
    expect(await accepts({ ...JSON_SPEC, thinking: { ...THINKS, startsInside: true } }, '<think>so</think>{"n":4}')).toBe(true);
  });

  it('holds tool calls after the thinking too', async () => {
    const spec: GrammarSpec = { kind: 'tools', tools: [{ name: 'add', parameters: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false } }], mode: 'calls', parallel: false, thinking: THINKS };
    expect(await accepts(spec, '<think>add it</think>\n<tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call>')).toBe(true);
    expect(await accepts(spec, '<think>add it</think>\nsure')).toBe(false);
  });

  it('without thinking, is the grammar it was', async () => {
    expect(await accepts(JSON_SPEC, '<think></think>{"n":4}')).toBe(false);
    expect(await accepts(JSON_SPEC, '{"n":4}')).toBe(true);
  });
});
