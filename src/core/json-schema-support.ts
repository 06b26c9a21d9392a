/**
 * Which JSON Schema a grammar can enforce. xgrammar compiles the keywords it knows and silently
 * ignores the rest, which would let output through that the schema forbids; so every keyword is
 * checked here first, and anything outside the enforced set is a 400 naming it and where it is.
 * Before that, the schema's size and shape are held to limits (schema-limits.ts).
 * @module
 */
import { GatewayError } from './errors.ts';
import { safePattern } from './json-pattern.ts';
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES } from './schema-keywords.ts';
import { readSchema, UnenforceableSchema } from './json-schema/schema-node.ts';
import { checkSchemaLimits } from './schema-limits.ts';

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

const PARAM = 'response_format.json_schema.schema';

/**
 * Integer ranges are enforced as the list of their values: xgrammar's own range rules (0.1.27, in
 * web-llm too) admit values outside some ranges (100001..100100 lets 162710 through), while a list,
 * compiled as a trie (src/engines/grammar/factor-literals.ts), is exact. So an integer needs both
 * bounds, at most this many values apart.
 */
const MAX_LISTED_VALUES = 10_001;
/**
 * The values of all the integer ranges of one schema, listed: each range of 10,001 values is a
 * grammar of some 65 KB, so four of them come to the grammar size limit (engines/grammar/ebnf.ts).
 */
export const MAX_LISTED_INTEGERS = 4 * MAX_LISTED_VALUES;

/** 10^15 - 1: the widest all-nines bound below 2^53 (every integer of up to 15 digits is safe). */
const SAFE_NINES = 999_999_999_999_999;

/**
 * An integer's bounds as the grammar can enforce them: exclusive bounds become inclusive ones, and
 * a bound at or past ±2^53 (zod writes `z.number().int()` as ±9007199254740991) becomes ±(10^15-1),
 * a slightly narrower range the grammar enforces exactly.
 */
function integerBounds(schema: Record<string, unknown>): { min?: number; max?: number } {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const lows = [num(schema.minimum), num(schema.exclusiveMinimum) === undefined ? undefined : Math.floor(num(schema.exclusiveMinimum)!) + 1].filter((v) => v !== undefined).map((v) => Math.ceil(v));
  const highs = [num(schema.maximum), num(schema.exclusiveMaximum) === undefined ? undefined : Math.ceil(num(schema.exclusiveMaximum)!) - 1].filter((v) => v !== undefined).map((v) => Math.floor(v));
  const min = lows.length ? Math.max(...lows) : undefined;
  const max = highs.length ? Math.min(...highs) : undefined;
  return {
    ...(min !== undefined ? { min: min <= -Number.MAX_SAFE_INTEGER ? -SAFE_NINES : min } : {}),
    ...(max !== undefined ? { max: max >= Number.MAX_SAFE_INTEGER ? SAFE_NINES : max } : {}),
  };
}

/** 9, 99, 999, ...: bounds xgrammar's range rules get right (digit counts), as 0 and 1 are. */
const allNines = (v: number) => v > 0 && /^9+$/.test(String(v));

/** How the grammar can enforce an integer's bounds, or why it cannot. */
function integerForm(schema: Record<string, unknown>): { list?: readonly [number, number]; bounds?: { min?: number; max?: number }; refused?: string } {
  const { min, max } = integerBounds(schema);
  const why = `bounds are enforced on integers at most ${MAX_LISTED_VALUES} values apart, or whose bounds are 0, 1 or all nines (-99..999, zod's int(), nonnegative(), positive())`;
  if (min !== undefined && max !== undefined && min > max) return { refused: 'no integer lies between its bounds' };
  if (min !== undefined && max !== undefined && max - min + 1 <= MAX_LISTED_VALUES) return { list: [min, max] };
  const lowOk = min === undefined ? max === undefined : min === 0 || min === 1 || (min < 0 && allNines(-min));
  const highOk = max === undefined || allNines(max);
  if (lowOk && highOk) return { bounds: { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) } };
  return { refused: min !== undefined && max !== undefined ? `${why} (this range has ${max - min + 1} values)` : why };
}

/**
 * The schema as the grammar should get it: integer ranges as lists of values (see above), other
 * integer bounds in the forms the grammar gets right. Call it on a schema that passed
 * `checkEnforceable`.
 */
export function toGrammarSchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const record = schema as Record<string, unknown>;
  if (record.type === 'integer') {
    const form = integerForm(record);
    const { minimum: _a, maximum: _b, exclusiveMinimum: _c, exclusiveMaximum: _d, ...rest } = record;
    if (form.list) {
      const [min, max] = form.list;
      const inRange = (v: number) => v >= min && v <= max;
      // An enum already narrows it: keep the listed values that lie in the range.
      const values = Array.isArray(record.enum) ? (record.enum as unknown[]).filter((v): v is number => typeof v === 'number' && Number.isInteger(v) && inRange(v)) : Array.from({ length: max - min + 1 }, (_, i) => min + i);
      const { type: _type, ...untyped } = rest;
      return { ...untyped, enum: values };
    }
    const { min, max } = form.bounds ?? {};
    return { ...rest, ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) };
  }
  if (record.type === 'number') {
    // Only bounds that are no bounds pass the check (see checkBounds): drop them.
    const { minimum: _a, maximum: _b, exclusiveMinimum: _c, exclusiveMaximum: _d, ...rest } = record;
    return rest;
  }
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => {
      if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null) return [key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toGrammarSchema(sub)]))];
      if (SCHEMA_LISTS.has(key) && Array.isArray(value)) return [key, value.map(toGrammarSchema)];
      if (SCHEMA_VALUES.has(key)) return [key, toGrammarSchema(value)];
      if (key === 'pattern' && typeof value === 'string') {
        const safe = safePattern(value);
        return [key, 'pattern' in safe ? safe.pattern : value];
      }
      return [key, value];
    }),
  );
}

/**
 * Throws a 400 for the first part of `schema` the grammar could not enforce, or the first of
 * its limits (schema-limits.ts) it passes; `param` names where the schema is, `where` what the
 * message calls it (`response_format` for chat completions' own schema, else `param`).
 */
export function checkEnforceable(schema: unknown, path = '#', param = PARAM, where = param === PARAM ? 'response_format' : param): void {
  checkSchemaLimits(schema, (at, reason) => refusal(at, reason, param, where));
  // Within the limits, no schema nests deep enough for this recursion to matter.
  checkKeywords(schema, path, param, where, { listed: 0 });
}

function checkKeywords(schema: unknown, path: string, param: string, where: string, totals: { listed: number }): void {
  const refuse = (at: string, reason: string) => refusal(at, reason, param, where);
  if (typeof schema === 'boolean') return;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw refuse(path, 'a schema must be an object or a boolean');
  let bounded = false;
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}/${keyword}`;
    if (ANNOTATIONS.has(keyword)) continue;
    if (!ENFORCED.has(keyword)) throw refuse(at, `'${keyword}' cannot be enforced while decoding`);
    if (keyword === 'type') {
      for (const type of Array.isArray(value) ? value : [value]) if (!TYPES.has(type as string)) throw refuse(at, `unknown type ${JSON.stringify(type)}`);
    } else if (keyword === 'enum' && (!Array.isArray(value) || value.length === 0)) {
      // How many values at most: SCHEMA_LIMITS.enumValues.
      throw refuse(at, 'an enum is enforced with at least one value');
    } else if (NUMERIC_BOUNDS.has(keyword)) {
      if (!bounded) checkBounds(schema as Record<string, unknown>, path, param, where, totals);
      bounded = true;
    } else if (keyword === 'format' && !FORMATS.has(value as string)) {
      throw refuse(at, `format ${JSON.stringify(value)} cannot be enforced (supported: ${[...FORMATS].join(', ')})`);
    } else if (keyword === 'pattern') {
      try {
        new RegExp(value as string, 'u');
      } catch {
        throw refuse(at, `pattern ${JSON.stringify(value)} is not a valid regular expression`);
      }
      const safe = safePattern(value as string);
      if ('refused' in safe) throw refuse(at, `pattern ${JSON.stringify(value)} cannot be enforced: ${safe.refused}`);
    } else if (keyword === '$ref' && (typeof value !== 'string' || !(value === '#' || value.startsWith('#/')))) {
      throw refuse(at, `only references within the schema ('#/...') can be followed, not ${JSON.stringify(value)}`);
    } else if (SCHEMA_MAPS.has(keyword)) {
      if (typeof value !== 'object' || value === null) throw refuse(at, 'expected an object of schemas');
      for (const [name, sub] of Object.entries(value)) checkKeywords(sub, `${at}/${name}`, param, where, totals);
    } else if (SCHEMA_LISTS.has(keyword)) {
      if (!Array.isArray(value)) throw refuse(at, 'expected a list of schemas');
      value.forEach((sub, i) => checkKeywords(sub, `${at}/${i}`, param, where, totals));
    } else if (SCHEMA_VALUES.has(keyword)) {
      checkKeywords(value, at, param, where, totals);
    }
  }
}

const NUMERIC_BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/** Bounds the grammar enforces exactly (see integerForm); on numbers, only ±2^53, which are none. Called once per schema. */
function checkBounds(schema: Record<string, unknown>, path: string, param: string, where: string, totals: { listed: number }): void {
  const refuse = (at: string, reason: string) => refusal(at, reason, param, where);
  if (schema.type === 'integer') {
    const { refused, list } = integerForm(schema);
    if (refused) throw refuse(path, refused);
    // With an enum, what is listed is that enum's values (counted with the enums).
    if (list && !Array.isArray(schema.enum) && (totals.listed += list[1] - list[0] + 1) > MAX_LISTED_INTEGERS) {
      throw refuse(path, `the integer ranges, enforced as lists of their values, come to ${totals.listed} values here, over the limit of ${MAX_LISTED_INTEGERS} in one schema`);
    }
    return;
  }
  const bounded = [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum].some((v) => typeof v === 'number' && Math.abs(v) < Number.MAX_SAFE_INTEGER);
  if (bounded || typeof schema.type !== 'string') throw refuse(path, `bounds are enforced on integers only (this is ${JSON.stringify(schema.type ?? 'untyped')})`);
}

/**
 * Throws a 400 for the first part of `schema` the schema matcher cannot enforce (the keyword and
 * its place, as it reads them), or the first of its limits it passes; as `checkEnforceable`, for
 * the engines that match schemas rather than compile grammars (ModelInfo.schemaMatcher).
 */
export function checkMatchable(schema: unknown, param = PARAM, where = param === PARAM ? 'response_format' : param): void {
  checkSchemaLimits(schema, (at, reason) => refusal(at, reason, param, where));
  let node;
  try {
    node = readSchema(schema);
  } catch (error) {
    if (error instanceof UnenforceableSchema) throw refusal(error.path, error.reason, param, where);
    throw error;
  }
  // Nothing could be written: decoding would have no token to take.
  if (node.kind === 'never') throw refusal('#', NO_VALUE, param, where);
}

/** Why a schema no value meets is refused. */
export const NO_VALUE = 'no JSON value is valid under this schema';

function refusal(path: string, reason: string, param: string, where: string): GatewayError {
  return new GatewayError('invalid_request', `Invalid schema for ${where} at ${path}: ${reason}.`, { param });
}
