/**
 * Arbitrary JSON Schemas for fast-check, for the grammar-constrained decoding property test: a
 * random-weight model decodes under each schema and its output must validate. Every schema is an
 * object at the top (as OpenAI's structured outputs require) and is bounded everywhere (strings,
 * numbers, arrays, nesting), so that any valid instance is short enough (`maxInstanceChars` ≤
 * `MAX_INSTANCE_CHARS`) for the output to finish within a small token budget.
 *
 * Also here: `maxInstanceChars` (an upper bound on any instance's compact JSON length),
 * `instanceArbitrary` (valid instances of a schema) and `validatorFor` (an ajv validator).
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

// ---- types

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON Schema as plain JSON data (what goes into `response_format.json_schema.schema`). */
export type JsonSchema = { [key: string]: JsonValue };

/** The formats generated. Each has a fixed length, so no `minLength`/`maxLength` goes with it. */
export const STRING_FORMATS = ['date', 'uuid'] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];

/** The bound `maxInstanceChars` keeps to for every generated schema. */
export const MAX_INSTANCE_CHARS = 600;
/** Objects and arrays nest at most this deep; the top-level object is depth 1. */
export const MAX_DEPTH = 3;
export const MAX_PROPERTIES = 5;
export const MAX_ITEMS = 4;
export const MAX_STRING_LENGTH = 12;
/** Integer ranges span at most 10,001 values, the widest the gateway enforces (src/core/json-schema-support.ts). */
export const MAX_INTEGER_RANGE = 10_000;

// ---- the upper bound on an instance's size

/** Characters a JSON string of code points may take at most: every code point escaped as `\uXXXX`. */
const ESCAPED_CODE_POINT = 6;
/** The longest compact JSON of a finite double (`-0.0000012345678901234567`, `-2.2250738585072014e-308`). */
const LONGEST_DOUBLE = 25;
/** `YYYY-MM-DD`, quoted. */
const DATE_CHARS = 12;
/** A uuid, quoted; ajv-formats also accepts a `urn:uuid:` prefix. */
const UUID_CHARS = 2 + 'urn:uuid:'.length + 36;

const isRecord = (value: unknown): value is Record<string, JsonValue> => typeof value === 'object' && value !== null && !Array.isArray(value);
const finite = (value: JsonValue | undefined): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const utf8 = new TextEncoder();
/** Length of the compact JSON of a value, the larger of UTF-16 code units and UTF-8 bytes. */
const jsonChars = (value: JsonValue): number => {
  const text = JSON.stringify(value);
  return Math.max(text.length, utf8.encode(text).length);
};

function integerChars(min: number, max: number): number {
  const low = Math.ceil(min);
  const high = Math.floor(max);
  if (low > high) return 0;
  // Beyond 2^53 the shortest form of an integral double can need more digits than either bound shows.
  if (Math.abs(low) > Number.MAX_SAFE_INTEGER || Math.abs(high) > Number.MAX_SAFE_INTEGER) return LONGEST_DOUBLE;
  // The longest integer in a range is at one of its ends (the most negative, or the largest).
  return Math.max(String(low).length, String(high).length);
}

/**
 * A conservative upper bound on the length of the most compact JSON serialization (`JSON.stringify`)
 * of any instance valid under `schema`, counted both in UTF-16 code units and in UTF-8 bytes (the
 * larger). `Infinity` when some part is unbounded (a string without `maxLength` or a bounded
 * format, an array without `maxItems`, a number without both bounds, an object that allows other
 * properties) or uses a keyword this does not know (`anyOf`, `$ref`, ...).
 *
 * Strings count 6 characters per code point (each could be a `\u0000` escape); numbers count the
 * longest shortest-form double in their range, bounded by 25.
 */
export function maxInstanceChars(schema: JsonSchema): number {
  if (Array.isArray(schema.enum)) return schema.enum.length === 0 ? 0 : Math.max(...schema.enum.map(jsonChars));
  if (schema.const !== undefined) return jsonChars(schema.const);
  switch (schema.type) {
    case 'null':
      return 4;
    case 'boolean':
      return 5;
    case 'integer': {
      const min = finite(schema.minimum);
      const max = finite(schema.maximum);
      return min === undefined || max === undefined ? Infinity : integerChars(min, max);
    }
    case 'number': {
      const min = finite(schema.minimum);
      const max = finite(schema.maximum);
      if (min === undefined || max === undefined) return Infinity;
      // Non-integers inside (-1, 1) need "0.00000" before 17 digits; above 1e21 come exponents.
      const sign = min < 0 ? 1 : 0;
      if (min < 1 && max > -1) return sign + 24;
      return sign + (Math.max(Math.abs(min), Math.abs(max)) < 1e21 ? 21 : 23);
    }
    case 'string': {
      const maxLength = finite(schema.maxLength);
      const byLength = maxLength === undefined ? Infinity : 2 + ESCAPED_CODE_POINT * Math.max(0, Math.floor(maxLength));
      const byFormat = schema.format === 'date' ? DATE_CHARS : schema.format === 'uuid' ? UUID_CHARS : Infinity;
      return Math.min(byLength, byFormat);
    }
    case 'array': {
      const maxItems = finite(schema.maxItems);
      if (maxItems === undefined) return Infinity;
      const count = Math.max(0, Math.floor(maxItems));
      if (count === 0) return 2;
      if (!isRecord(schema.items)) return Infinity;
      return 2 + count * maxInstanceChars(schema.items) + (count - 1);
    }
    case 'object': {
      if (schema.additionalProperties !== false) return Infinity;
      const properties = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
      if (schema.properties !== undefined && !isRecord(schema.properties)) return Infinity;
      let total = 2 + Math.max(0, properties.length - 1);
      for (const [name, property] of properties) {
        if (!isRecord(property)) return Infinity;
        total += jsonChars(name) + 1 + maxInstanceChars(property);
      }
      return total;
    }
    default:
      return Infinity;
  }
}

// ---- generation: a typed tree first, then fitted into the size budget, then plain JSON

type Node =
  | { readonly kind: 'object'; readonly properties: readonly Property[] }
  | { readonly kind: 'array'; readonly items: Node; readonly maxItems: number; readonly minItems?: number }
  | { readonly kind: 'enum'; readonly values: readonly (string | number)[] }
  | { readonly kind: 'string'; readonly maxLength: number; readonly minLength?: number }
  | { readonly kind: 'format'; readonly format: StringFormat }
  | { readonly kind: 'integer'; readonly minimum: number; readonly maximum: number }
  | { readonly kind: 'number'; readonly minimum: number; readonly maximum: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'null' };

interface Property {
  readonly name: string;
  readonly schema: Node;
  readonly required: boolean;
}

function toSchema(node: Node): JsonSchema {
  switch (node.kind) {
    case 'object':
      return {
        type: 'object',
        properties: Object.fromEntries(node.properties.map((p) => [p.name, toSchema(p.schema)])),
        required: node.properties.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      };
    case 'array':
      return { type: 'array', items: toSchema(node.items), ...(node.minItems === undefined ? {} : { minItems: node.minItems }), maxItems: node.maxItems };
    case 'enum':
      return { enum: [...node.values] };
    case 'string':
      return { type: 'string', ...(node.minLength === undefined ? {} : { minLength: node.minLength }), maxLength: node.maxLength };
    case 'format':
      return { type: 'string', format: node.format };
    case 'integer':
    case 'number':
      return { type: node.kind, minimum: node.minimum, maximum: node.maximum };
    case 'boolean':
    case 'null':
      return { type: node.kind };
  }
}

const nodeChars = (node: Node): number => maxInstanceChars(toSchema(node));

/**
 * The node made to fit `budget` characters (`maxInstanceChars`), or undefined where it cannot:
 * strings get a smaller `maxLength`, arrays fewer items or smaller ones, objects share their budget
 * among their properties (the small ones first, so only the big ones shrink) and drop those that
 * do not fit at all.
 */
function fit(node: Node, budget: number): Node | undefined {
  switch (node.kind) {
    case 'string': {
      const maxLength = Math.min(node.maxLength, Math.floor((budget - 2) / ESCAPED_CODE_POINT));
      if (maxLength < 1) return undefined;
      return node.minLength === undefined ? { ...node, maxLength } : { ...node, maxLength, minLength: Math.min(node.minLength, maxLength) };
    }
    case 'array': {
      for (let count = node.maxItems; count >= 1; count--) {
        const items = fit(node.items, Math.floor((budget - 2 - (count - 1)) / count));
        if (items === undefined) continue;
        return node.minItems === undefined ? { ...node, items, maxItems: count } : { ...node, items, maxItems: count, minItems: Math.min(node.minItems, count) };
      }
      return undefined;
    }
    case 'object': {
      let properties = node.properties;
      const keysAndCommas = (list: readonly Property[]) => list.reduce((sum, p) => sum + jsonChars(p.name) + 1, Math.max(0, list.length - 1));
      while (properties.length > 0 && 2 + keysAndCommas(properties) > budget) properties = properties.slice(0, -1);
      if (2 + keysAndCommas(properties) > budget) return undefined;
      let remaining = budget - 2 - keysAndCommas(properties);
      const fitted = new Map<Property, Node>();
      const smallestFirst = [...properties].sort((a, b) => nodeChars(a.schema) - nodeChars(b.schema));
      smallestFirst.forEach((property, index) => {
        const share = Math.floor(remaining / (smallestFirst.length - index));
        const schema = fit(property.schema, share);
        if (schema === undefined) return;
        fitted.set(property, schema);
        remaining -= nodeChars(schema);
      });
      return {
        kind: 'object',
        properties: properties.flatMap((p) => {
          const schema = fitted.get(p);
          return schema === undefined ? [] : [{ ...p, schema }];
        }),
      };
    }
    default:
      return nodeChars(node) <= budget ? node : undefined;
  }
}

// ---- arbitraries

/** Short lowercase ascii words, some of them JSON Schema keywords (a trap for naive grammars). */
const propertyName = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom('id', 'name', 'age', 'email', 'date', 'tags', 'items', 'count', 'score', 'city', 'valid', 'type', 'enum', 'required', 'null') },
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z]{1,8}$/) },
);

const enumString = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z]{1,8}$/) },
  { weight: 1, arbitrary: fc.constantFrom('', 'two words', 'a"quote', 'back\\slash', 'café', 'Yes', '42') },
);
const enumNumber = fc.oneof(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -400, max: 400 }).map((n) => n / 4));
const enumNode = fc
  .uniqueArray(fc.oneof({ weight: 3, arbitrary: enumString }, { weight: 1, arbitrary: enumNumber }), { minLength: 1, maxLength: 5, selector: (v) => JSON.stringify(v) })
  .map((values): Node => ({ kind: 'enum', values }));

const stringNode = fc
  .integer({ min: 1, max: MAX_STRING_LENGTH })
  .chain((maxLength) => fc.option(fc.integer({ min: 0, max: maxLength }), { nil: undefined }).map((minLength): Node => (minLength === undefined ? { kind: 'string', maxLength } : { kind: 'string', maxLength, minLength })));
const formatNode = fc.constantFrom(...STRING_FORMATS).map((format): Node => ({ kind: 'format', format }));

const integerNode = fc
  .tuple(fc.oneof(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -1_000_000, max: 1_000_000 })), fc.oneof(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: MAX_INTEGER_RANGE })))
  .map(([minimum, width]): Node => ({ kind: 'integer', minimum, maximum: minimum + width }));
/** Bounds on a quarter grid, so some are fractional; ranges from a point to 1000 wide. */
const numberNode = fc
  .tuple(fc.integer({ min: -4000, max: 4000 }), fc.integer({ min: 0, max: 4000 }))
  .map(([low, width]): Node => ({ kind: 'number', minimum: low / 4, maximum: (low + width) / 4 }));

const GENERATE_NUMBERS = false;

const leafNode: fc.Arbitrary<Node> = fc.oneof(
  { weight: 4, arbitrary: stringNode },
  { weight: 2, arbitrary: formatNode },
  { weight: 3, arbitrary: integerNode },
  // Bounded `number`s are left out: the gateway refuses them (src/core/json-schema-support.ts),
  // since the grammar engine's number ranges are not exact. `numberNode` stays for when they are.
  ...(GENERATE_NUMBERS ? [{ weight: 2, arbitrary: numberNode }] : []),
  { weight: 2, arbitrary: fc.constant<Node>({ kind: 'boolean' }) },
  { weight: 1, arbitrary: fc.constant<Node>({ kind: 'null' }) },
  { weight: 3, arbitrary: enumNode },
);

function objectNode(depth: number, minProperties: number): fc.Arbitrary<Node> {
  return fc
    .uniqueArray(fc.record({ name: propertyName, schema: nodeAt(depth + 1), required: fc.boolean() }), { minLength: minProperties, maxLength: MAX_PROPERTIES, selector: (p) => p.name })
    .map((properties): Node => ({ kind: 'object', properties }));
}

function arrayNode(depth: number): fc.Arbitrary<Node> {
  return fc
    .tuple(nodeAt(depth + 1), fc.integer({ min: 1, max: MAX_ITEMS }), fc.option(fc.nat(MAX_ITEMS), { nil: undefined }))
    .map(([items, maxItems, minItems]): Node => (minItems === undefined ? { kind: 'array', items, maxItems } : { kind: 'array', items, maxItems, minItems: Math.min(minItems, maxItems) }));
}

const nodesByDepth = new Map<number, fc.Arbitrary<Node>>();
/** A schema node at `depth` (the top-level object is 1): containers only down to `MAX_DEPTH`. */
function nodeAt(depth: number): fc.Arbitrary<Node> {
  if (depth > MAX_DEPTH) return leafNode;
  let arbitrary = nodesByDepth.get(depth);
  if (arbitrary === undefined) {
    arbitrary = fc.oneof({ weight: 6, arbitrary: leafNode }, { weight: 1, arbitrary: objectNode(depth, 0) }, { weight: 1, arbitrary: arrayNode(depth) });
    nodesByDepth.set(depth, arbitrary);
  }
  return arbitrary;
}

/**
 * JSON Schemas for structured outputs: an object at the top (1–5 properties), every part bounded,
 * `maxInstanceChars(schema) <= MAX_INSTANCE_CHARS`. Plain data, so fast-check prints and shrinks it.
 */
export const jsonSchemaArbitrary: fc.Arbitrary<JsonSchema> = objectNode(1, 1).map((raw) => {
  const fitted = fit(raw, MAX_INSTANCE_CHARS);
  if (fitted === undefined) throw new Error('json-schemas: a top-level object always fits its budget');
  return toSchema(fitted);
});

// ---- instances

const DATE_MIN = Date.UTC(1, 0, 1);
const DATE_MAX = Date.UTC(9999, 11, 31);

/** Plain-ascii strings of a length, now and then any code points (counted as ajv counts: by code point). */
const anyString = (minLength: number, maxLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength, maxLength }) },
  );

/**
 * Values valid under `schema`: the kinds `jsonSchemaArbitrary` makes (plus `const` and length-
 * bounded `email`). Throws for a schema it does not know how to satisfy.
 */
export function instanceArbitrary(schema: JsonSchema): fc.Arbitrary<JsonValue> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: Math.ceil(finite(schema.minimum) ?? -1e9), max: Math.floor(finite(schema.maximum) ?? 1e9) });
    case 'number':
      return fc.double({ min: finite(schema.minimum) ?? -1e9, max: finite(schema.maximum) ?? 1e9, noNaN: true });
    case 'string': {
      const minLength = finite(schema.minLength) ?? 0;
      const maxLength = finite(schema.maxLength);
      if (schema.format === 'date') return fc.integer({ min: DATE_MIN, max: DATE_MAX }).map((ms) => new Date(ms).toISOString().slice(0, 10));
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'email' && maxLength !== undefined && maxLength >= 6) {
        // `local@domain.io`: two parts of at most `room` letters each, 4 characters around them.
        const room = Math.floor((Math.min(maxLength, 40) - 4) / 2);
        const part = fc.stringMatching(new RegExp(`^[a-z0-9]{1,${room}}$`));
        return fc.tuple(part, part).map(([local, domain]) => `${local}@${domain}.io`);
      }
      if (schema.format !== undefined) throw new Error(`instanceArbitrary: unsupported string format ${JSON.stringify(schema.format)}`);
      return anyString(minLength, maxLength ?? minLength + 20);
    }
    case 'array': {
      if (!isRecord(schema.items)) throw new Error('instanceArbitrary: an array schema needs `items`');
      const minLength = finite(schema.minItems) ?? 0;
      return fc.array(instanceArbitrary(schema.items), { minLength, maxLength: finite(schema.maxItems) ?? minLength + 4 });
    }
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
      const values: Record<string, fc.Arbitrary<JsonValue>> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!isRecord(property)) throw new Error(`instanceArbitrary: property ${JSON.stringify(name)} is not a schema`);
        values[name] = instanceArbitrary(property);
      }
      return fc.record(values, { requiredKeys: required });
    }
    default:
      throw new Error(`instanceArbitrary: unsupported schema ${JSON.stringify(schema)}`);
  }
}

// ---- validation

export interface ValidatorOptions {
  /**
   * ajv-formats' mode. `full` (the default) checks calendar dates (no 2023-02-30); `fast` checks
   * only their shape, as a grammar's regex for `date` typically does (xgrammar's does).
   */
  readonly formats?: 'full' | 'fast';
}

const ajvs = new Map<'full' | 'fast', Ajv>();
function ajvFor(mode: 'full' | 'fast'): Ajv {
  let ajv = ajvs.get(mode);
  if (ajv === undefined) {
    ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv, { mode });
    ajvs.set(mode, ajv);
  }
  return ajv;
}

/**
 * An ajv (strict, draft-07, with ajv-formats) validator for `schema`; compiling throws for a schema
 * ajv refuses. `errors` is ajv's text for the failures, empty when valid.
 */
export function validatorFor(schema: JsonSchema, options: ValidatorOptions = {}): (value: unknown) => { valid: boolean; errors: string } {
  const ajv = ajvFor(options.formats ?? 'full');
  const validate = ajv.compile(schema);
  return (value) => {
    const valid = validate(value);
    return { valid, errors: valid ? '' : ajv.errorsText(validate.errors) };
  };
}
