/**
 * Checks the JSON Schema arbitrary of json-schemas.ts itself, before a decoding test relies on it:
 * every schema has the promised shape and bounds, ajv compiles it, `maxInstanceChars` stays within
 * budget and really bounds the instances, the instance arbitrary makes valid values, and ajv turns
 * down deliberately wrong ones.
 *
 * Deterministic: every property has a fixed seed (override all with FC_SEED=<n>).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_DEPTH,
  MAX_INSTANCE_CHARS,
  MAX_INTEGER_RANGE,
  MAX_ITEMS,
  MAX_PROPERTIES,
  MAX_STRING_LENGTH,
  STRING_FORMATS,
  instanceArbitrary,
  jsonSchemaArbitrary,
  maxInstanceChars,
  validatorFor,
  type JsonSchema,
  type JsonValue,
} from './json-schemas.ts';

const seedFor = (fallback: number) => (process.env.FC_SEED ? Number(process.env.FC_SEED) : fallback);
const RUNS = 300;

const isRecord = (value: unknown): value is Record<string, JsonValue> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
const utf8Length = (text: string) => new TextEncoder().encode(text).length;

// ---- what the generator promises, checked on the plain JSON

/** Kinds seen, with the depth of containers, for the coverage check. */
type Seen = Map<string, number>;

function keysAre(schema: JsonSchema, allowed: readonly string[], path: string, problems: string[]) {
  for (const key of Object.keys(schema)) if (!allowed.includes(key)) problems.push(`${path}: unexpected keyword ${key}`);
}

/** Problems with `schema` at `path`, as readable lines; records what it saw in `seen`. */
function shapeProblems(schema: JsonSchema, depth: number, path: string, seen: Seen, problems: string[] = []): string[] {
  const note = (kind: string) => seen.set(kind, (seen.get(kind) ?? 0) + 1);
  if (schema.enum !== undefined) {
    note('enum');
    keysAre(schema, ['enum'], path, problems);
    const values = Array.isArray(schema.enum) ? schema.enum : [];
    if (values.length === 0) problems.push(`${path}: empty enum`);
    if (values.some((v) => typeof v !== 'string' && typeof v !== 'number')) problems.push(`${path}: enum of other than strings and numbers`);
    if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) problems.push(`${path}: repeated enum values`);
    return problems;
  }
  switch (schema.type) {
    case 'object': {
      note('object');
      note(`object@${depth}`);
      if (depth > MAX_DEPTH) problems.push(`${path}: object deeper than ${MAX_DEPTH}`);
      keysAre(schema, ['type', 'properties', 'required', 'additionalProperties'], path, problems);
      if (schema.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const names = Object.keys(properties);
      if (names.length > MAX_PROPERTIES) problems.push(`${path}: ${names.length} properties`);
      const required = Array.isArray(schema.required) ? schema.required : [];
      if (!Array.isArray(schema.required)) problems.push(`${path}: no required list`);
      if (required.length > 0) note('required');
      if (required.length < names.length) note('optional');
      if (new Set(required).size !== required.length) problems.push(`${path}: repeated required names`);
      for (const name of required) if (typeof name !== 'string' || !names.includes(name)) problems.push(`${path}: required ${JSON.stringify(name)} is not a property`);
      for (const name of names) {
        if (!/^[a-z]{1,8}$/.test(name)) problems.push(`${path}: property name ${JSON.stringify(name)}`);
        const property = properties[name];
        if (isRecord(property)) shapeProblems(property, depth + 1, `${path}.${name}`, seen, problems);
        else problems.push(`${path}.${name}: not a schema`);
      }
      return problems;
    }
    case 'array': {
      note('array');
      note(`array@${depth}`);
      if (depth > MAX_DEPTH) problems.push(`${path}: array deeper than ${MAX_DEPTH}`);
      keysAre(schema, ['type', 'items', 'minItems', 'maxItems'], path, problems);
      if (!isInteger(schema.maxItems) || schema.maxItems < 1 || schema.maxItems > MAX_ITEMS) problems.push(`${path}: maxItems ${schema.maxItems}`);
      if (schema.minItems !== undefined) {
        note('minItems');
        if (!isInteger(schema.minItems) || schema.minItems < 0 || !isInteger(schema.maxItems) || schema.minItems > schema.maxItems) problems.push(`${path}: minItems ${schema.minItems}`);
      }
      if (isRecord(schema.items)) shapeProblems(schema.items, depth + 1, `${path}[]`, seen, problems);
      else problems.push(`${path}: items is not a schema`);
      return problems;
    }
    case 'string': {
      if (schema.format !== undefined) {
        note(`format:${String(schema.format)}`);
        keysAre(schema, ['type', 'format'], path, problems);
        if (!(STRING_FORMATS as readonly JsonValue[]).includes(schema.format)) problems.push(`${path}: format ${JSON.stringify(schema.format)}`);
        return problems;
      }
      note('string');
      keysAre(schema, ['type', 'minLength', 'maxLength'], path, problems);
      const { minLength, maxLength } = schema;
      if (!isInteger(maxLength) || maxLength < 1 || maxLength > MAX_STRING_LENGTH) problems.push(`${path}: maxLength ${maxLength}`);
      if (minLength !== undefined) {
        note('minLength');
        if (!isInteger(minLength) || minLength < 0 || !isInteger(maxLength) || minLength > maxLength) problems.push(`${path}: minLength ${minLength}`);
      }
      return problems;
    }
    case 'integer':
    case 'number': {
      note(schema.type);
      keysAre(schema, ['type', 'minimum', 'maximum'], path, problems);
      const { minimum, maximum } = schema;
      const isBound = schema.type === 'integer' ? isInteger : (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
      if (!isBound(minimum) || !isBound(maximum) || minimum > maximum) problems.push(`${path}: bounds ${minimum}..${maximum}`);
      else if (schema.type === 'integer' && maximum - minimum > MAX_INTEGER_RANGE) problems.push(`${path}: integer range ${maximum - minimum} wide`);
      return problems;
    }
    case 'boolean':
    case 'null':
      note(schema.type);
      keysAre(schema, ['type'], path, problems);
      return problems;
    default:
      problems.push(`${path}: unexpected schema ${JSON.stringify(schema)}`);
      return problems;
  }
}

/** A schema with valid instances of it. */
const schemaWithInstances = jsonSchemaArbitrary.chain((schema) =>
  fc.record({ schema: fc.constant(schema), instances: fc.array(instanceArbitrary(schema), { minLength: 1, maxLength: 5 }) }),
);

/** A value of the wrong JSON type for `schema`. */
const wrongTypeFor = (schema: JsonValue | undefined): JsonValue => (isRecord(schema) && schema.type === 'object' ? [] : {});

describe('jsonSchemaArbitrary', () => {
  it('makes top-level objects of the promised shape and bounds', () => {
    fc.assert(
      fc.property(jsonSchemaArbitrary, (schema) => {
        expect(schema.type).toBe('object');
        expect(Object.keys(isRecord(schema.properties) ? schema.properties : {}).length).toBeGreaterThanOrEqual(1);
        expect(shapeProblems(schema, 1, '$', new Map())).toEqual([]);
      }),
      { seed: seedFor(0x5c4e3a), numRuns: RUNS },
    );
  });

  it('makes schemas that ajv compiles (strict mode, with formats)', () => {
    fc.assert(
      fc.property(jsonSchemaArbitrary, (schema) => {
        expect(() => validatorFor(schema)).not.toThrow();
        expect(() => validatorFor(schema, { formats: 'fast' })).not.toThrow();
      }),
      { seed: seedFor(0xa1f0), numRuns: RUNS },
    );
  });

  it(`keeps every instance within ${MAX_INSTANCE_CHARS} characters`, () => {
    fc.assert(
      fc.property(jsonSchemaArbitrary, (schema) => {
        expect(maxInstanceChars(schema)).toBeLessThanOrEqual(MAX_INSTANCE_CHARS);
      }),
      { seed: seedFor(0xb0b), numRuns: RUNS },
    );
  });

  it('covers every kind, nesting to the full depth', () => {
    const seen: Seen = new Map();
    for (const schema of fc.sample(jsonSchemaArbitrary, { seed: seedFor(0xc0de), numRuns: RUNS })) shapeProblems(schema, 1, '$', seen);
    // Bounded numbers are not generated (see GENERATE_NUMBERS in json-schemas.ts).
    const kinds = ['object', 'array', 'enum', 'string', 'integer', 'boolean', 'null', 'required', 'optional', 'minItems', 'minLength'];
    for (const kind of [...kinds, ...STRING_FORMATS.map((f) => `format:${f}`), `object@${MAX_DEPTH}`, `array@${MAX_DEPTH}`]) {
      expect(seen.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
    expect(seen.has(`object@${MAX_DEPTH + 1}`) || seen.has(`array@${MAX_DEPTH + 1}`)).toBe(false);
  });
});

describe('instanceArbitrary and validatorFor', () => {
  it('makes instances that ajv accepts and that maxInstanceChars bounds', () => {
    fc.assert(
      fc.property(schemaWithInstances, ({ schema, instances }) => {
        const validate = validatorFor(schema);
        const bound = maxInstanceChars(schema);
        for (const instance of instances) {
          expect(validate(instance), JSON.stringify(instance)).toEqual({ valid: true, errors: '' });
          const text = JSON.stringify(instance);
          expect(Math.max(text.length, utf8Length(text))).toBeLessThanOrEqual(bound);
        }
      }),
      { seed: seedFor(0x1d57), numRuns: RUNS },
    );
  });

  it('rejects a missing required property, an extra property and wrong types', () => {
    let missing = 0;
    fc.assert(
      fc.property(schemaWithInstances, ({ schema, instances: [instance] }) => {
        if (!isRecord(instance) || !isRecord(schema.properties) || !Array.isArray(schema.required)) throw new Error('not an object schema');
        const validate = validatorFor(schema);
        const rejected = (value: JsonValue) => {
          const result = validate(value);
          expect(result.valid, JSON.stringify(value)).toBe(false);
          expect(result.errors).not.toBe('');
        };
        const [firstRequired] = schema.required;
        if (typeof firstRequired === 'string') {
          missing++;
          const { [firstRequired]: _, ...rest } = instance;
          rejected(rest);
        }
        rejected({ ...instance, Extra: 1 });
        for (const [name, property] of Object.entries(schema.properties)) rejected({ ...instance, [name]: wrongTypeFor(property) });
        rejected([]);
        rejected(null);
      }),
      { seed: seedFor(0xbad), numRuns: RUNS },
    );
    expect(missing).toBeGreaterThan(RUNS / 4);
  });

  it('rejects over-long strings, out-of-range numbers and long arrays', () => {
    const validate = validatorFor({
      type: 'object',
      properties: { s: { type: 'string', maxLength: 3 }, i: { type: 'integer', minimum: 0, maximum: 9 }, a: { type: 'array', items: { type: 'null' }, maxItems: 1 } },
      required: [],
      additionalProperties: false,
    });
    expect(validate({ s: 'abc', i: 9, a: [null] }).valid).toBe(true);
    expect(validate({ s: 'abcd' }).valid).toBe(false);
    expect(validate({ i: 10 }).valid).toBe(false);
    expect(validate({ i: 1.5 }).valid).toBe(false);
    expect(validate({ a: [null, null] }).valid).toBe(false);
  });

  it('checks calendar dates in full mode and only their shape in fast mode', () => {
    const schema: JsonSchema = { type: 'object', properties: { d: { type: 'string', format: 'date' } }, required: ['d'], additionalProperties: false };
    expect(validatorFor(schema)({ d: '2024-02-29' }).valid).toBe(true);
    expect(validatorFor(schema)({ d: '2023-02-30' }).valid).toBe(false);
    expect(validatorFor(schema, { formats: 'fast' })({ d: '2023-02-30' }).valid).toBe(true);
    expect(validatorFor(schema, { formats: 'fast' })({ d: '2023-2-3' }).valid).toBe(false);
  });
});

describe('maxInstanceChars', () => {
  it('is exact where the longest instance is plain', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { a: { enum: ['xy', 7] }, b: { type: 'integer', minimum: -5, maximum: 100 }, c: { type: 'array', items: { type: 'boolean' }, maxItems: 2 } },
      required: ['a'],
      additionalProperties: false,
    };
    expect(maxInstanceChars(schema)).toBe(JSON.stringify({ a: 'xy', b: 100, c: [false, false] }).length);
  });

  it('counts strings as fully escaped, formats by their length', () => {
    expect(maxInstanceChars({ type: 'string', maxLength: 2 })).toBe(JSON.stringify('\u0000\u0001').length);
    expect(maxInstanceChars({ type: 'string', format: 'date' })).toBe(JSON.stringify('2024-01-01').length);
    expect(maxInstanceChars({ type: 'string', format: 'uuid' })).toBe(JSON.stringify('urn:uuid:00000000-0000-0000-0000-000000000000').length);
    expect(maxInstanceChars({ type: 'number', minimum: -1, maximum: 1 })).toBeGreaterThanOrEqual(JSON.stringify(-0.0000012345678901234567).length);
  });

  it('is infinite for what is unbounded', () => {
    const unbounded: JsonSchema[] = [
      { type: 'string' },
      { type: 'string', format: 'email' },
      { type: 'integer', minimum: 0 },
      { type: 'number', maximum: 1 },
      { type: 'array', items: { type: 'null' } },
      { type: 'object', properties: {} },
      { anyOf: [{ type: 'null' }] },
    ];
    for (const schema of unbounded) {
      expect(maxInstanceChars(schema), JSON.stringify(schema)).toBe(Infinity);
    }
  });
});
