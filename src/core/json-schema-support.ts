/**
 * Which JSON Schema a grammar can enforce. xgrammar compiles the keywords it knows and silently
 * ignores the rest, which would let output through that the schema forbids; so every keyword is
 * checked here first, and anything outside the enforced set is a 400 naming it and where it is.
 * @module
 */
import { GatewayError } from './errors.ts';

/** Keywords that only describe, and constrain nothing. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$schema', '$id', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
/** Keywords the grammar enforces, each with the types it applies to (checked by the compiler). */
const ENFORCED = new Set([
  'type', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions',
  'properties', 'required', 'additionalProperties',
  'items', 'prefixItems', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
]);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean', 'null']);
const FORMATS = new Set(['date', 'time', 'date-time', 'duration', 'email', 'uuid', 'ipv4', 'ipv6', 'hostname', 'uri']);
/** Sub-schema positions: keyword → how its value holds schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);
const SCHEMA_LISTS = new Set(['anyOf', 'prefixItems']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties']);

const PARAM = 'response_format.json_schema.schema';

/**
 * Integer ranges are enforced as the list of their values: xgrammar's own range rules (0.1.27, in
 * web-llm too) admit values outside some ranges (100001..100100 lets 162710 through), while a list,
 * compiled as a trie (src/engines/grammar/factor-literals.ts), is exact. So an integer needs both
 * bounds, at most this many values apart; an `enum` holds at most as many values.
 */
const MAX_LISTED_VALUES = 10_001;

/**
 * The schema as the grammar should get it: integer ranges as lists of values (see above). Call it
 * on a schema that passed `checkEnforceable`.
 */
export function toGrammarSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const record = schema as Record<string, unknown>;
  if (record.type === 'integer' && typeof record.minimum === 'number' && typeof record.maximum === 'number') {
    const { minimum, maximum, exclusiveMinimum: _min, exclusiveMaximum: _max, type: _type, ...rest } = record;
    const low = Math.ceil(minimum);
    const values = Array.from({ length: Math.max(0, Math.floor(maximum) - low + 1) }, (_, i) => low + i);
    return { ...rest, enum: values };
  }
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => {
      if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) return [key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toGrammarSchema(sub)]))];
      if (SCHEMA_LISTS.has(key) && Array.isArray(value)) return [key, value.map(toGrammarSchema)];
      if (SCHEMA_VALUES.has(key)) return [key, toGrammarSchema(value)];
      return [key, value];
    }),
  );
}

/** Throws a 400 for the first part of `schema` the grammar could not enforce. */
export function checkEnforceable(schema: unknown, path = '#'): void {
  if (typeof schema === 'boolean') return;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw refuse(path, 'a schema must be an object or a boolean');
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}/${keyword}`;
    if (ANNOTATIONS.has(keyword)) continue;
    if (!ENFORCED.has(keyword)) throw refuse(at, `'${keyword}' cannot be enforced while decoding`);
    if (keyword === 'type') {
      for (const type of Array.isArray(value) ? value : [value]) if (!TYPES.has(type as string)) throw refuse(at, `unknown type ${JSON.stringify(type)}`);
    } else if (keyword === 'enum' && (!Array.isArray(value) || value.length === 0 || value.length > MAX_LISTED_VALUES)) {
      throw refuse(at, `an enum is enforced with 1 to ${MAX_LISTED_VALUES} values`);
    } else if (NUMERIC_BOUNDS.has(keyword)) {
      checkBounds(schema as Record<string, unknown>, path);
    } else if (keyword === 'format' && !FORMATS.has(value as string)) {
      throw refuse(at, `format ${JSON.stringify(value)} cannot be enforced (supported: ${[...FORMATS].join(', ')})`);
    } else if (keyword === 'pattern') {
      try {
        new RegExp(value as string, 'u');
      } catch {
        throw refuse(at, `pattern ${JSON.stringify(value)} is not a valid regular expression`);
      }
    } else if (keyword === '$ref' && (typeof value !== 'string' || !(value === '#' || value.startsWith('#/')))) {
      throw refuse(at, `only references within the schema ('#/...') can be followed, not ${JSON.stringify(value)}`);
    } else if (SCHEMA_MAPS.has(keyword)) {
      if (typeof value !== 'object' || value === null) throw refuse(at, 'expected an object of schemas');
      for (const [name, sub] of Object.entries(value)) checkEnforceable(sub, `${at}/${name}`);
    } else if (SCHEMA_LISTS.has(keyword)) {
      if (!Array.isArray(value)) throw refuse(at, 'expected a list of schemas');
      value.forEach((sub, i) => checkEnforceable(sub, `${at}/${i}`));
    } else if (SCHEMA_VALUES.has(keyword)) {
      checkEnforceable(value, at);
    }
  }
}

const NUMERIC_BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/**
 * Bounds are exact only on integers given both `minimum` and `maximum`, at most MAX_INTEGER_VALUES
 * values apart (xgrammar's range rules are not exact; see toGrammarSchema).
 */
function checkBounds(schema: Record<string, unknown>, path: string): void {
  const { type, minimum, maximum } = schema;
  const why = `bounds are enforced only on integers with both minimum and maximum, at most ${MAX_LISTED_VALUES} values apart`;
  if (type !== 'integer') throw refuse(path, `${why} (this is ${JSON.stringify(type ?? 'untyped')})`);
  if ('exclusiveMinimum' in schema || 'exclusiveMaximum' in schema) throw refuse(path, `${why}: use minimum and maximum`);
  if (typeof minimum !== 'number' || typeof maximum !== 'number' || !Number.isFinite(minimum) || !Number.isFinite(maximum)) throw refuse(path, why);
  if (Math.floor(maximum) - Math.ceil(minimum) + 1 > MAX_LISTED_VALUES) throw refuse(path, `${why} (this range has ${Math.floor(maximum) - Math.ceil(minimum) + 1})`);
  if (Math.ceil(minimum) > Math.floor(maximum)) throw refuse(path, 'no integer lies between minimum and maximum');
}

function refuse(path: string, reason: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid schema for response_format at ${path}: ${reason}.`, { param: PARAM });
}
