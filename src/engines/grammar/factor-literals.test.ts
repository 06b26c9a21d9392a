/** The trie rewrite, checked against xgrammar itself (the real wasm, in Node). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { factorLiteralAlternatives } from './factor-literals.ts';
import { loadXGrammar } from './load-xgrammar.node.ts';

interface Checker {
  Grammar: { fromEBNF(ebnf: string): Promise<unknown> };
  Testings: { isGrammarAcceptString(grammar: unknown, text: string): Promise<boolean>; _jsonSchemaToEBNF(schema: string, anyWhitespace?: boolean, indent?: number, separators?: [string, string], strict?: boolean): Promise<string> };
}

const word = fc.string({ unit: fc.constantFrom('a', 'r', '9', 'é', '"', '\\'), minLength: 0, maxLength: 4 });

describe('factorLiteralAlternatives', () => {
  it('writes an alternation of literals as a trie, leaving other rules alone', () => {
    const ebnf = 'root_prop_0 ::= ("\\"a\\"") | ("\\"r\\"") | ("\\"ra\\"")\nroot ::= "{" root_prop_0 "}"';
    expect(factorLiteralAlternatives(ebnf)).toBe('root_prop_0 ::= "\\"" ("a" "\\"" | "r" ("\\"" | "a" "\\""))\nroot ::= "{" root_prop_0 "}"');
  });

  it('makes an enum match exactly its values, where xgrammar alone lets others through', async () => {
    const xgrammar = (await loadXGrammar()) as unknown as Checker;
    // The bug this works around: xgrammar's own grammar for ["a","r","ra"] accepts "aaaaa".
    const raw = await xgrammar.Testings._jsonSchemaToEBNF(JSON.stringify({ enum: ['a', 'r', 'ra'] }), false, -1, [',', ':'], true);
    expect(await xgrammar.Testings.isGrammarAcceptString(await xgrammar.Grammar.fromEBNF(raw), '"aaaaa"')).toBe(true);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.oneof(word, fc.integer({ min: -20, max: 2000 })), { minLength: 1, maxLength: 6 }), fc.array(fc.oneof(word, fc.integer({ min: -30, max: 3000 })), { maxLength: 12 }), async (values, probes) => {
        const ebnf = await xgrammar.Testings._jsonSchemaToEBNF(JSON.stringify({ enum: values }), false, -1, [',', ':'], true);
        const grammar = await xgrammar.Grammar.fromEBNF(factorLiteralAlternatives(ebnf));
        for (const value of [...values, ...probes]) {
          expect(await xgrammar.Testings.isGrammarAcceptString(grammar, JSON.stringify(value)), JSON.stringify(value)).toBe(values.includes(value));
        }
      }),
      { numRuns: 150, seed: 20261123 },
    );
  });

  it('nests groups at most 16 deep, however the values branch, and takes a literal of any length', async () => {
    const xgrammar = (await loadXGrammar()) as unknown as Checker;
    // Each value branches off the one before at its last character: a trie 300 groups deep, which
    // in one rule ran xgrammar's parser over its stack at about 150.
    const values = Array.from({ length: 300 }, (_, i) => `${'a'.repeat(i)}b`);
    const ebnf = factorLiteralAlternatives(await xgrammar.Testings._jsonSchemaToEBNF(JSON.stringify({ enum: values }), false, -1, [',', ':'], true));
    const deepest = Math.max(...ebnf.split('\n').map((line) => [...line.replace(/"(?:[^"\\]|\\.)*"/g, '')].reduce((acc, char) => ({ open: acc.open + (char === '(' ? 1 : char === ')' ? -1 : 0), max: Math.max(acc.max, acc.open + (char === '(' ? 1 : 0)) }), { open: 0, max: 0 }).max));
    expect(deepest).toBeLessThanOrEqual(16);
    const grammar = await xgrammar.Grammar.fromEBNF(ebnf);
    for (const value of [values[0]!, values[150]!, values[299]!]) expect(await xgrammar.Testings.isGrammarAcceptString(grammar, JSON.stringify(value))).toBe(true);
    for (const probe of ['a', `${'a'.repeat(300)}b`, `${'a'.repeat(20)}bb`]) expect(await xgrammar.Testings.isGrammarAcceptString(grammar, JSON.stringify(probe))).toBe(false);
    const long = 'x'.repeat(100_000);
    expect(factorLiteralAlternatives(`r ::= ("${long}") | ("${long}y")`)).toBe(`r ::= ${[...long].map((c) => `"${c}"`).join(' ')} ("y" | "")`);
  });
});
