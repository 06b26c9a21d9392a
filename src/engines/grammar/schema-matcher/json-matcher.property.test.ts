/**
 * The matcher against ajv, on random schemas: every valid instance (as compact JSON) is accepted,
 * and any value, valid or not, is accepted exactly when ajv says it is valid.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instanceArbitrary, jsonSchemaArbitrary, validatorFor, type JsonSchema, type JsonValue } from '../../../../test/property/json-schemas.ts';
import { acceptsText } from '../byte-matcher.ts';
import { jsonMatcher } from './json-matcher.ts';
import { readSchema } from '../../../core/json-schema/schema-node.ts';

const LONE_SURROGATE = /\\ud[89a-f]/i;
const RUNS = Number(process.env.SCHEMA_MATCHER_RUNS ?? 300);

/** A value near a valid one: a member dropped or changed, a string or number nudged. */
function mutate(value: JsonValue, pick: number): JsonValue {
  if (Array.isArray(value)) return pick % 3 === 0 ? value.slice(1) : pick % 3 === 1 ? [...value, value[0] ?? null] : value.map((item, i) => (i === 0 ? mutate(item, pick >> 2) : item));
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return { extra: pick };
    const key = keys[pick % keys.length]!;
    const copy = { ...value };
    if (pick % 4 === 0) delete copy[key];
    else if (pick % 4 === 1) copy[`${key}_x`] = 1;
    else copy[key] = mutate(value[key]!, pick >> 2);
    return copy;
  }
  if (typeof value === 'string') return pick % 3 === 0 ? `${value}x` : pick % 3 === 1 ? value.slice(1) : pick;
  if (typeof value === 'number') return pick % 3 === 0 ? value + 1 : pick % 3 === 1 ? -value - 0.5 : String(value);
  if (typeof value === 'boolean') return pick % 2 === 0 ? !value : null;
  return pick % 2 === 0 ? 0 : 'null';
}

describe('jsonMatcher on random schemas', () => {
  it('accepts every valid instance and any other value exactly when ajv does', () => {
    fc.assert(
      fc.property(
        jsonSchemaArbitrary.chain((schema: JsonSchema) => fc.tuple(fc.constant(schema), fc.array(instanceArbitrary(schema), { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { minLength: 4, maxLength: 4 }))),
        ([schema, instances, picks]) => {
          const matcher = jsonMatcher(readSchema(schema));
          const validate = validatorFor(schema);
          for (const instance of instances) {
            // A lone surrogate is not text: the matcher never writes one (see byte-matcher.ts).
            if (LONE_SURROGATE.test(JSON.stringify(instance))) continue;
            expect(acceptsText(matcher, JSON.stringify(instance)), `valid ${JSON.stringify(instance)} of ${JSON.stringify(schema)}`).toBe(true);
            for (const pick of picks) {
              const other = mutate(instance, pick);
              if (LONE_SURROGATE.test(JSON.stringify(other))) continue;
              expect(acceptsText(matcher, JSON.stringify(other)), `${JSON.stringify(other)} of ${JSON.stringify(schema)}`).toBe(validate(other).valid);
            }
          }
        },
      ),
      { numRuns: RUNS, seed: 49 },
    );
  });
});
