/**
 * Forced tokens on Qwen's real vocabulary, through the schema constraints a request gets: what is
 * forced where, that a forced run never leaves what the mask allows (each forced token is in the
 * mask of the state it is appended from), that it stops where a token could run past the forced
 * bytes, and that walks taking every forced run finish as JSON the schema accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSchemaArbitrary, validatorFor } from '../../../../test/property/json-schemas.ts';
import { createSchemaConstraints } from '../schema-constraint.ts';
import { tokenBytes, type TokenConstraint } from '../vocabulary.ts';
import { nthSet, popcount, qwenVocabulary } from './test-matchers.ts';

const vocabulary = qwenVocabulary();
const constraints = createSchemaConstraints(vocabulary);
const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
const decoder = new TextDecoder();
const spelled = (ids: readonly number[]) => decoder.decode(Uint8Array.from(ids.flatMap((id) => bytesOf[id]!)));
const idOf = (text: string) => {
  const ids = vocabulary.tokens.flatMap((_, id) => (spelled([id]) === text ? [id] : []));
  expect(ids, text).not.toHaveLength(0);
  return ids.at(-1)!;
};
const allowed = (mask: Int32Array, id: number) => (mask[id >> 5]! & (1 << (id & 31))) !== 0;
const start = (schema: Record<string, unknown>, strict = true) => constraints.start({ kind: 'json', output: { kind: 'json_schema', schema, strict } })!;

/** Takes `text`'s tokens (each one id, spelled as given), then the forced run, checked against the masks. */
function forcedAfter(constraint: TokenConstraint, ...texts: string[]): string {
  for (const text of texts) expect(constraint.accept(idOf(text)), text).toBe(true);
  return spelled(takeForced(constraint));
}

/** Appends the forced run as a decoder does: each token must be one the mask allows there. */
function takeForced(constraint: TokenConstraint): number[] {
  const run = [...constraint.forced!()];
  for (const id of run) {
    expect(allowed(constraint.mask()!, id), `forced token ${JSON.stringify(spelled([id]))} outside the mask`).toBe(true);
    expect(constraint.accept(id)).toBe(true);
  }
  return run;
}

const person = {
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: 'integer' }, tags: { type: 'array', items: { enum: ['alpha', 'beta'] } } },
  required: ['name', 'age', 'tags'],
  additionalProperties: false,
};

describe('forced tokens', () => {
  it('spell the names and punctuation a schema fixes, and leave the model what it chooses', () => {
    const constraint = start(person);
    // `{"name":"` is forced, but from `":` on a token may run into the value (`":"`, `":"A`): left
    // to the model, whose mask holds only those.
    expect(forcedAfter(constraint)).toBe('{"name');
    expect(forcedAfter(constraint, '":"', 'Ann', '"')).toBe(',"age');
    // After a digit another may come, or the comma: nothing forced.
    expect(forcedAfter(constraint, '":', '4')).toBe('');
    expect(forcedAfter(constraint, ',')).toBe('"tags');
    // An enum's value is fixed once it is told apart (`"a` can only be `"alpha"`), but for its
    // closing quote, which a token may run past (`"]`, `",`).
    expect(forcedAfter(constraint, '":[', '"a')).toBe('lpha');
    expect(forcedAfter(constraint, '"]')).toBe('}');
    expect(constraint.forced!()).toEqual([]);
    expect(constraint.mask()!.some((word) => word !== 0)).toBe(true);
  });

  it('are none in free text, nor once the output may end', () => {
    const free = start({ type: 'string' });
    expect(forcedAfter(free)).toBe('');
    const constant = start({ const: { a: 1 } });
    expect(forcedAfter(constant)).toBe('{"a":1}');
    expect(constant.forced!()).toEqual([]);
  });

  it('are the same for the same state of different requests, and differ for another schema', () => {
    const one = start(person);
    const two = start(person);
    expect(one.forced!()).toEqual(two.forced!());
    const other = start({ ...person, properties: { nom: { type: 'string' }, ...person.properties }, required: ['nom', ...person.required] });
    expect(spelled(other.forced!())).toBe('{"nom');
  });

  it('random walks that take every forced run: never outside the mask, every finished one valid', () => {
    const schemas = fc.sample(jsonSchemaArbitrary, { numRuns: 40, seed: 4907 });
    let forced = 0;
    let finished = 0;
    for (const [i, schema] of schemas.entries()) {
      const validate = validatorFor(schema);
      for (let w = 0; w < 3; w++) {
        const constraint = start(schema);
        let random = i * 7 + w;
        const next = () => ((random = (Math.imul(random, 1103515245) + 12345) >>> 0) / 2 ** 32);
        const out: number[] = [];
        for (let step = 0; step < 300 && !constraint.terminated; step++) {
          const run = takeForced(constraint);
          forced += run.length;
          out.push(...run);
          const mask = constraint.mask()!;
          let count = 0;
          for (const word of mask) count += popcount(word);
          expect(count, spelled(out)).toBeGreaterThan(0);
          const stop = vocabulary.stopTokenIds.find((id) => allowed(mask, id));
          const token = stop !== undefined && next() < 0.5 ? stop : nthSet(mask, Math.floor(next() * count));
          expect(constraint.accept(token)).toBe(true);
          if (!constraint.terminated) out.push(token);
        }
        if (!constraint.terminated) continue;
        finished++;
        const text = spelled(out);
        const { valid, errors } = validate(JSON.parse(text));
        expect(valid, `${text}\n${errors}\n${JSON.stringify(schema)}`).toBe(true);
      }
    }
    expect(finished).toBeGreaterThan(20);
    expect(forced).toBeGreaterThan(100);
  }, 180_000);
});
