// Narrowed patterns (core/json-pattern.ts) compiled by xgrammar itself: the grammar refuses raw
// quotes, backslashes and control characters in a patterned string, and keeps what is allowed.
import { describe, expect, it } from 'vitest';
import { toGrammarSchema } from '../../core/json-schema-support.ts';
import { loadXGrammar } from './load-xgrammar.node.ts';

async function accepts(pattern: string, value: string): Promise<boolean> {
  const xg = await loadXGrammar();
  const schema = toGrammarSchema({ type: 'object', properties: { s: { type: 'string', pattern } }, required: ['s'], additionalProperties: false });
  const ebnf = await xg.Testings._jsonSchemaToEBNF(JSON.stringify(schema), false, -1, [',', ':'], true);
  const grammar = await (xg as unknown as { Grammar: { fromEBNF(e: string, r: string): Promise<unknown> } }).Grammar.fromEBNF(ebnf, 'root');
  return (xg as unknown as { Testings: { isGrammarAcceptString(g: unknown, s: string): Promise<boolean> } }).Testings.isGrammarAcceptString(grammar, `{"s":"${value}"}`);
}

describe('patterns under xgrammar', () => {
  it.each([
    ['^a.*b$', 'axb', true],
    ['^a.*b$', 'a"b', false],
    ['^a.*b$', 'a\\b', false],
    ['^a.*b$', 'a\tb', false],
    ['^[ -~]{1,5}$', 'ab!', true],
    ['^[ -~]{1,5}$', 'a"', false],
    [String.raw`^\S+$`, 'a b', false],
    [String.raw`^\S+$`, 'a"', false],
    ['^[^x]+$', 'a b', true],
    ['^[^x]+$', 'a"', false],
  ])('%s on %j: %s', async (pattern, value, expected) => {
    expect(await accepts(pattern, value)).toBe(expected);
  });
});
