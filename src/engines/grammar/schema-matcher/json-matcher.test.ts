/**
 * The matcher on cases chosen by hand: each where an engine might slip (decimal bounds, lengths
 * of characters of several bytes, escapes, member order, undeclared members, a oneOf's branches).
 */
import { describe, expect, it } from 'vitest';
import { readSchema, type ReadOptions } from '../../../core/json-schema/schema-node.ts';
import { acceptsText } from '../byte-matcher.ts';
import { jsonMatcher } from './json-matcher.ts';

const takes = (schema: unknown, text: string, options?: ReadOptions) => acceptsText(jsonMatcher(readSchema(schema, options)), text);

describe('jsonMatcher', () => {
  it('keeps number bounds in decimal, not doubles', () => {
    const schema = { type: 'number', maximum: 0.3 };
    expect(takes(schema, '0.3')).toBe(true);
    expect(takes(schema, '0.30000000000000004')).toBe(false);
    expect(takes({ type: 'number', exclusiveMinimum: 1.5, maximum: 2.5 }, '1.5')).toBe(false);
    expect(takes({ type: 'number', exclusiveMinimum: 1.5, maximum: 2.5 }, '1.51')).toBe(true);
    expect(takes({ type: 'integer', minimum: 100001, maximum: 100100 }, '162710')).toBe(false);
    expect(takes({ type: 'number', multipleOf: 0.01 }, '1.23')).toBe(true);
    expect(takes({ type: 'number', multipleOf: 0.01 }, '1.234')).toBe(false);
    expect(takes({ type: 'integer', maximum: 9007199254740991 }, '9007199254740992')).toBe(false);
  });

  it('never takes a byte no finished value can follow: no dead ends inside bounded numbers', () => {
    const steps = (schema: unknown, text: string) => {
      const matcher = jsonMatcher(readSchema(schema));
      let state: ReturnType<typeof matcher.step> = matcher.start;
      for (const char of text) state = state && matcher.step(state, char.charCodeAt(0));
      return state !== undefined;
    };
    expect(steps({ type: 'integer', maximum: 5 }, '9')).toBe(false);
    expect(steps({ type: 'integer', minimum: 10, maximum: 20 }, '3')).toBe(false);
    expect(steps({ type: 'integer', minimum: 10, maximum: 20 }, '1')).toBe(true);
    expect(steps({ type: 'integer', minimum: 10, maximum: 20 }, '-')).toBe(false);
    expect(steps({ type: 'number', minimum: 1.25, maximum: 1.5 }, '1.6')).toBe(false);
    expect(steps({ type: 'number', minimum: 1.25, maximum: 1.5 }, '1.2')).toBe(true);
    expect(steps({ type: 'number', multipleOf: 0.5, minimum: 0, maximum: 1 }, '0.7')).toBe(false);
  });

  it('counts characters, not bytes or escapes, against length bounds; escapes only as JSON.stringify writes them', () => {
    const schema = { type: 'string', maxLength: 2 };
    expect(takes(schema, '"żé"')).toBe(true);
    expect(takes(schema, '"\\n\\u0001"')).toBe(true);
    expect(takes(schema, '"abc"')).toBe(false);
    expect(takes({ type: 'string' }, '"\\u000a"')).toBe(false); // JSON.stringify writes \n
    expect(takes({ type: 'string' }, '"\\u0041"')).toBe(false); // and A as itself
    expect(takes({ type: 'string' }, '"\\/"')).toBe(false);
    expect(takes({ type: 'string' }, JSON.stringify('a/b\u0007"\\'))).toBe(true);
  });

  it('writes members in the schema\'s order unless told any order will do', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
    expect(takes(schema, '{"a":1,"b":2}')).toBe(true);
    expect(takes(schema, '{"b":2,"a":1}')).toBe(false);
    expect(takes(schema, '{"b":2,"a":1}', { anyOrder: true })).toBe(true);
    expect(takes(schema, '{"a":1}')).toBe(false);
  });

  it('takes undeclared members where the schema allows them, as JSON Schema says (strict or not)', () => {
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] };
    expect(takes(schema, '{"a":1,"b":[true]}')).toBe(true);
    expect(takes({ ...schema, additionalProperties: false }, '{"a":1,"b":[true]}')).toBe(false);
    expect(takes({ ...schema, additionalProperties: { type: 'string' } }, '{"a":1,"b":2}')).toBe(false);
    // A declared name is never taken as an undeclared one, whatever its value.
    expect(takes(schema, '{"a":1,"a":"x"}')).toBe(false);
    // A const or enum object keeps its members.
    expect(takes({ const: { a: 1 } }, '{"a":1}')).toBe(true);
    expect(takes({ enum: [{ b: [1] }, 2] }, '{"b":[1]}')).toBe(true);
    expect(takes({ type: 'object', const: { a: 1 } }, '{"a":1}')).toBe(true);
    // Tool arguments: an object schema without additionalProperties takes no other members.
    expect(takes(schema, '{"a":1,"b":[true]}', { closedObjects: true })).toBe(false);
    expect(takes(schema, '{"a":1}', { closedObjects: true })).toBe(true);
    expect(takes({ const: { a: 1 } }, '{"a":1}', { closedObjects: true })).toBe(true);
  });

  it('matches a oneOf whose branches are apart as any of them, and refuses one whose branches overlap', () => {
    const schema = { oneOf: [{ type: 'object', properties: { kind: { const: 'a' }, n: { type: 'integer' } }, required: ['kind'] }, { type: 'object', properties: { kind: { const: 'b' } }, required: ['kind'] }] };
    expect(takes(schema, '{"kind":"b"}')).toBe(true);
    expect(takes(schema, '{"kind":"c"}')).toBe(false);
    expect(() => readSchema({ oneOf: [{ type: 'string' }, { type: 'string', maxLength: 3 }] })).toThrow(/oneOf branches 0 and 1 may both match/);
  });
});
