/**
 * The Node loader against the real wasm: one instance until a failure discards it, then a fresh
 * one, which works. The failure is a clean abort (a lookahead in a pattern, which xgrammar aborts
 * on): a stack overrun would test the same path, but what a corrupted instance does next is
 * undefined (it may spin), so no test drives one.
 */
import { describe, expect, it } from 'vitest';
import { loadXGrammar } from './load-xgrammar.node.ts';
import { onInstance } from './xgrammar-instances.ts';

const SIMPLE = JSON.stringify({ type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] });
/** The schema limits refuse it before any engine sees it; here it goes to xgrammar directly. */
const ABORTS = JSON.stringify({ type: 'string', pattern: '(?=a)b' });

describe('loadXGrammar (Node)', () => {
  it('replaces an instance that failed: a fresh one answers', async () => {
    const first = await loadXGrammar();
    expect(await loadXGrammar()).toBe(first);
    const convert = (xgrammar: typeof first, schema: string) => xgrammar.Testings._jsonSchemaToEBNF(schema, false, -1, [',', ':'], true);
    expect(await convert(first, SIMPLE)).toContain('root ::=');
    await expect(onInstance(first, () => convert(first, ABORTS))).rejects.toThrow('Aborted()');
    const fresh = await loadXGrammar();
    expect(fresh).not.toBe(first);
    expect(await convert(fresh, SIMPLE)).toContain('root ::=');
  });
});
