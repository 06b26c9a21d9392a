/**
 * The Node loader against the real wasm: one instance until a failure discards it, then a fresh
 * one, which works where the failed one no longer does.
 */
import { describe, expect, it } from 'vitest';
import { loadXGrammar } from './load-xgrammar.node.ts';
import { onInstance } from './xgrammar-instances.ts';

const SIMPLE = JSON.stringify({ type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] });

/** 60 objects deep: past what xgrammar's 64 KiB stack holds (the schema limits keep it from the engines). */
function overrun(): string {
  let schema: unknown = { type: 'integer' };
  for (let i = 0; i < 60; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'] };
  return JSON.stringify(schema);
}

describe('loadXGrammar (Node)', () => {
  it('replaces an instance whose stack was overrun: the old one is broken, the fresh one is not', async () => {
    const first = await loadXGrammar();
    expect(await loadXGrammar()).toBe(first);
    const convert = (xgrammar: typeof first, schema: string) => xgrammar.Testings._jsonSchemaToEBNF(schema, false, -1, [',', ':'], true);
    expect(await convert(first, SIMPLE)).toContain('root ::=');
    await expect(onInstance(first, () => convert(first, overrun()))).rejects.toThrow('memory access out of bounds');
    // What every later request met before instances were replaced.
    await expect(convert(first, SIMPLE)).rejects.toThrow();
    const fresh = await loadXGrammar();
    expect(fresh).not.toBe(first);
    expect(await convert(fresh, SIMPLE)).toContain('root ::=');
  });
});
