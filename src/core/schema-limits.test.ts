/**
 * The schema limits, through `checkEnforceable` (what chat, messages, responses and tool specs
 * call): each refusal a 400 that names the limit and where it was passed; schemas nested far past
 * any JS stack refused by a loop; `$ref`s resolved, followed and checked for a way out.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from './errors.ts';
import { checkEnforceable, MAX_LISTED_INTEGERS } from './json-schema-support.ts';
import { SCHEMA_LIMITS } from './schema-limits.ts';

/** `levels` objects, each holding the next as its required property `a`. */
function nested(levels: number, leaf: unknown = { type: 'integer' }): Record<string, unknown> {
  let schema = leaf;
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'], additionalProperties: false };
  return schema as Record<string, unknown>;
}

/** The same nesting as a client sends it, parsed from text: no object graph is built to write it. */
function nestedFromText(levels: number): Record<string, unknown> {
  const open = '{"type":"object","required":["a"],"properties":{"a":';
  return JSON.parse(open.repeat(levels) + '{"type":"integer"}' + '}}'.repeat(levels)) as Record<string, unknown>;
}

function refusal(schema: unknown, param?: string): GatewayError {
  try {
    if (param) checkEnforceable(schema, '#', param);
    else checkEnforceable(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
}

const at = (path: string) => `at ${path}:`;
const A = (levels: number) => '#' + '/properties/a'.repeat(levels);

describe('depth', () => {
  it('takes 32 levels and refuses the 33rd, naming the limit and the path', () => {
    expect(() => checkEnforceable(nested(31))).not.toThrow();
    const error = refusal(nested(32));
    expect(error.status).toBe(400);
    expect(error.param).toBe('response_format.json_schema.schema');
    expect(error.message).toBe(`Invalid schema for response_format ${at(A(32))} schemas nest to level 33 here, over the limit of 32 levels.`);
  });

  it('refuses the 60-level schema that broke xgrammar', () => {
    expect(refusal(nested(60)).message).toContain(`${at(A(32))} schemas nest to level 33 here, over the limit of ${SCHEMA_LIMITS.depth} levels`);
  });

  it.each([1_000, 100_000])('refuses a schema nested %i deep with a loop, not the JS stack', (levels) => {
    const schema = nestedFromText(levels);
    const started = performance.now();
    expect(refusal(schema).message).toContain('over the limit of 32 levels');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('counts a type list of several types as one more level (xgrammar makes it an anyOf)', () => {
    const nullable = nested(15, { type: ['object', 'null'], properties: { b: { type: 'string' } } });
    expect(() => checkEnforceable(nullable)).not.toThrow();
    let deep: unknown = { type: 'integer' };
    for (let i = 0; i < 16; i++) deep = { type: ['object', 'null'], properties: { a: deep } };
    expect(refusal(deep).message).toContain('over the limit of 32 levels');
  });

  it('counts arrays and objects inside values (const, enum, default)', () => {
    let value: unknown = 1;
    for (let i = 0; i < 40; i++) value = [value];
    expect(refusal({ type: 'object', properties: { c: { const: value } } }).message).toContain(`${at('#/properties/c/const')} a value nests to level 33`);
    expect(refusal({ type: 'object', default: JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) }).message).toContain(`${at('#/default')}`);
  });

  it('names the tool parameter a tool schema is refused in', () => {
    const error = refusal(nested(40), 'tools[0].function.parameters');
    expect(error.param).toBe('tools[0].function.parameters');
    expect(error.message).toContain(`Invalid schema for tools[0].function.parameters ${at(A(32))}`);
  });
});

describe('sizes', () => {
  const objectOf = (count: number, schema: (i: number) => unknown, name = (i: number) => `p${i}`) => ({
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [name(i), schema(i)])),
  });

  it('takes 5,000 object properties in all and refuses the next', () => {
    expect(() => checkEnforceable(objectOf(5_000, () => ({ type: 'boolean' })))).not.toThrow();
    const split = { type: 'object', properties: { a: objectOf(2_500, () => true), b: objectOf(2_500, () => true) } };
    expect(refusal(split).message).toContain(`${at('#/properties/b/properties/p2498')} this is object property 5001, over the limit of 5000 in one schema`);
  });

  it('takes 1,000 enum values in all and refuses more, counted across enums', () => {
    const values = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    expect(() => checkEnforceable(objectOf(2, (i) => ({ enum: values(500, `v${i}`) })))).not.toThrow();
    expect(refusal(objectOf(3, (i) => ({ enum: values(400, `v${i}`) }))).message).toContain(`${at('#/properties/p2/enum')} the enums come to 1200 values here, over the limit of 1000`);
  });

  it('lists integer ranges apart from enums: 10,001 values each, 40,004 in all', () => {
    const ranges = (n: number) => objectOf(n, () => ({ type: 'integer', minimum: 0, maximum: 10_000 }));
    expect(() => checkEnforceable(ranges(4))).not.toThrow();
    expect(refusal(ranges(5)).message).toContain(`${at('#/properties/p4')} the integer ranges, enforced as lists of their values, come to 50005 values here, over the limit of ${MAX_LISTED_INTEGERS}`);
  });

  it('takes 120,000 characters of names and enum and const strings, and refuses more', () => {
    const long = (n: number) => 'x'.repeat(n);
    expect(() => checkEnforceable({ type: 'object', properties: { a: { const: long(60_000) }, b: { enum: [long(59_998)] } } })).not.toThrow();
    expect(refusal({ type: 'object', properties: { a: { const: long(60_000) }, b: { enum: [long(60_000)] } } }).message).toContain(
      `${at('#/properties/b/enum')} property names, definition names and enum and const strings come to 120002 characters here, over the limit of 120000`,
    );
    expect(refusal(objectOf(2, () => true, (i) => `${i}${long(70_000)}`)).message).toContain('over the limit of 120000');
  });

  it('refuses a pattern over 1,000 characters, or nesting groups over 32 deep', () => {
    const pattern = (p: string) => ({ type: 'object', properties: { s: { type: 'string', pattern: p } } });
    expect(() => checkEnforceable(pattern(`^${'(a'.repeat(32)}${')'.repeat(32)}$`))).not.toThrow();
    expect(refusal(pattern(`^${'a'.repeat(1_001)}$`)).message).toContain(`${at('#/properties/s/pattern')} the pattern is 1003 characters, over the limit of 1000`);
    expect(refusal(pattern(`^${'('.repeat(33)}a${')'.repeat(33)}$`)).message).toContain('the pattern nests groups 33 deep, over the limit of 32');
    // Brackets inside a class and escaped ones open no group.
    expect(() => checkEnforceable(pattern(`^[(]{1,3}${'\\('.repeat(40)}$`))).not.toThrow();
  });

  it('refuses a schema over 512 KiB of JSON, annotations included', () => {
    expect(refusal({ type: 'object', description: 'é'.repeat(300_000) }).message).toContain(`${at('#')} the schema is 600034 bytes of JSON, over the limit of ${512 * 1024}`);
  });
});

describe('references', () => {
  it('refuses a reference that only leads back to itself (the issue’s schema)', () => {
    const error = refusal({ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' });
    expect(error.status).toBe(400);
    expect(error.message).toContain(`${at('#/$ref')} this reference leads into a cycle of references with no way out`);
  });

  it('refuses a cycle through required properties and one behind an optional one', () => {
    const required = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } }, $ref: '#/$defs/node' };
    expect(refusal(required).message).toContain('cycle of references with no way out');
    const optional = { type: 'object', properties: { x: { $ref: '#/$defs/a' }, y: { type: 'integer' } }, required: ['y'], $defs: { a: { $ref: '#/$defs/a' } } };
    expect(refusal(optional).message).toContain(`${at('#/properties/x/$ref')}`);
  });

  it('takes recursion with a way out: an optional property, an empty list, an anyOf branch', () => {
    const tree = { type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['value', 'children'] };
    const list = { $defs: { cell: { type: 'object', properties: { head: { type: 'integer' }, tail: { anyOf: [{ $ref: '#/$defs/cell' }, { type: 'null' }] } }, required: ['head', 'tail'] } }, $ref: '#/$defs/cell' };
    for (const schema of [tree, list]) expect(() => checkEnforceable(schema)).not.toThrow();
    const mustHaveChildren = { ...tree, properties: { ...tree.properties, children: { type: 'array', items: { $ref: '#' }, minItems: 1 } } };
    expect(refusal(mustHaveChildren).message).toContain('no way out');
  });

  it('refuses a reference that points at nothing, and resolves escaped names', () => {
    expect(refusal({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }).message).toContain(`${at('#/properties/a/$ref')} the reference "#/$defs/missing" points at no schema`);
    expect(() => checkEnforceable({ $defs: { 'a/b~c d': { type: 'integer' } }, type: 'object', properties: { x: { $ref: '#/$defs/a~1b~0c%20d' } } })).not.toThrow();
  });

  it('counts the levels a chain of references adds, and refuses past 32', () => {
    const chain = (n: number) => ({
      $defs: Object.fromEntries(Array.from({ length: n }, (_, i) => [`d${i}`, i === n - 1 ? { type: 'integer' } : { type: 'object', properties: { next: { $ref: `#/$defs/d${i + 1}` } }, required: ['next'] }])),
      $ref: '#/$defs/d0',
    });
    // The root is level 1, each reference and each property one more: d15 is at level 32.
    expect(() => checkEnforceable(chain(16))).not.toThrow();
    expect(refusal(chain(17)).message).toContain(`${at('#/$defs/d15/properties/next')} following references, schemas nest to level 33 here, over the limit of 32 levels`);
  });

  it('counts a cycle of references at its full length (xgrammar may follow it around once)', () => {
    const ring = (n: number) => ({
      $defs: Object.fromEntries(Array.from({ length: n }, (_, i) => [`d${i}`, { type: 'object', properties: { v: { type: 'integer' }, next: { $ref: `#/$defs/d${(i + 1) % n}` } }, required: ['v'] }])),
      $ref: '#/$defs/d0',
    });
    expect(() => checkEnforceable(ring(10))).not.toThrow();
    expect(refusal(ring(100)).message).toMatch(/following references, schemas nest to level \d+ here, over the limit of 32 levels \(the references here form a cycle\)/);
  });
});
