/**
 * The schema matcher and the token masks together, on Qwen's real vocabulary: random walks that
 * take any token the mask allows never reach a state with no token allowed (no dead end, where a
 * model would be stuck), every token the mask allows is accepted, and every finished walk is JSON
 * that ajv validates. Over generated schemas and, where present, real-world ones (MaskBench).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSchemaArbitrary, validatorFor } from '../../../test/property/json-schemas.ts';
import { createSchemaConstraints } from './schema-constraint.ts';
import { nthSet, popcount, qwenVocabulary } from './token-masks/test-matchers.ts';
import { tokenBytes, type TokenConstraint } from './vocabulary.ts';
import { MASKBENCH_DIR, maskbenchMissing } from '../../../test/support/maskbench.ts';
import { skippedTitle } from '../../../test/support/skipped-title.ts';

const vocabulary = qwenVocabulary();
const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
const stops = new Set(vocabulary.stopTokenIds);
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A seeded walk: each step takes one allowed token at random; the text, or why it failed. */
function walk(constraint: TokenConstraint, seed: number, steps: number): { text?: string; stuck?: string } {
  let random = seed;
  const next = () => ((random = (Math.imul(random, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const out: number[] = [];
  for (let step = 0; step < steps; step++) {
    const mask = constraint.mask()!;
    let count = 0;
    for (const word of mask) count += popcount(word);
    if (count === 0) return { stuck: `no token allowed after ${JSON.stringify(String.fromCharCode(...out))}` };
    // Stop as soon as it may, half the time, so that walks finish as well as wander.
    const stop = [...stops].find((id) => (mask[id >> 5]! & (1 << (id & 31))) !== 0);
    const token = stop !== undefined && next() < 0.5 ? stop : nthSet(mask, Math.floor(next() * count));
    if (!constraint.accept(token)) return { stuck: `token ${token} allowed but refused` };
    if (constraint.terminated) return { text: decoder.decode(Uint8Array.from(out)) };
    out.push(...bytesOf[token]!);
  }
  return {};
}

describe('schema constraints on the Qwen vocabulary', () => {
  const constraints = createSchemaConstraints(vocabulary);

  it('random walks on generated schemas: never stuck, every finished one valid', () => {
    const schemas = fc.sample(jsonSchemaArbitrary, { numRuns: 40, seed: 4901 });
    let finished = 0;
    for (const [i, schema] of schemas.entries()) {
      const validate = validatorFor(schema);
      for (let w = 0; w < 3; w++) {
        const constraint = constraints.start({ kind: 'json', output: { kind: 'json_schema', schema, strict: true } })!;
        const { text, stuck } = walk(constraint, i * 7 + w, 300);
        expect(stuck, JSON.stringify(schema)).toBeUndefined();
        if (text === undefined) continue;
        finished++;
        const { valid, errors } = validate(JSON.parse(text));
        expect(valid, `${text}\n${errors}\n${JSON.stringify(schema)}`).toBe(true);
      }
    }
    expect(finished).toBeGreaterThan(20);
  }, 120_000);

  it.each([
    { type: 'object', patternProperties: { '^[a-z]{1,3}$': { type: 'integer' } }, additionalProperties: false, minProperties: 1 },
    { type: 'object', properties: { id: { type: 'string', pattern: '^[A-Z]{2}-\\d{3}$' }, at: { type: 'string', format: 'date-time' } }, required: ['id', 'at'], additionalProperties: false },
    { type: 'object', properties: { v: { oneOf: [{ type: 'string', maxLength: 5 }, { type: 'number', minimum: 0.5, exclusiveMaximum: 2 }] } }, required: ['v'] },
    { type: 'object', properties: { mail: { type: 'string', format: 'email' }, ip: { type: 'string', format: 'ipv4' } }, required: ['mail', 'ip'], additionalProperties: false },
    { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', minLength: 2 }, maxItems: 2 } },
  ])('random walks under %j: never stuck, every finished one valid', (schema) => {
    const validate = validatorFor(schema as never, { formats: 'full' });
    for (let w = 0; w < 6; w++) {
      const { text, stuck } = walk(constraints.start({ kind: 'json', output: { kind: 'json_schema', schema, strict: false } })!, 91 + w, 200);
      expect(stuck).toBeUndefined();
      if (text !== undefined) expect(validate(JSON.parse(text)).valid, text).toBe(true);
    }
  });

  const DIR = MASKBENCH_DIR;
  const missing = maskbenchMissing();
  it.skipIf(missing !== undefined)(skippedTitle('random walks on real-world schemas (MaskBench, a sample): never stuck', missing), () => {
    const files = readdirSync(DIR).sort().filter((_, i) => i % 97 === 0);
    let started = 0;
    for (const [i, name] of files.entries()) {
      const { schema } = JSON.parse(readFileSync(join(DIR, name), 'utf8')) as { schema: Record<string, unknown> };
      const constraint = constraints.start({ kind: 'json', output: { kind: 'json_schema', schema, strict: false } });
      if (!constraint) continue;
      started++;
      expect(walk(constraint, i, 120).stuck, name).toBeUndefined();
    }
    expect(started).toBeGreaterThan(60);
  }, 120_000);
});
