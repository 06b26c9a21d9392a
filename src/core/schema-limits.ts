/**
 * Limits on a JSON schema that a local model's output is to follow, checked before anything
 * compiles it. xgrammar (ours, and the copy inside web-llm) converts a schema by recursion on a
 * 64 KiB wasm stack with no guard: about 1.2 KiB a level, so past some 50 levels it writes outside
 * its stack, and the instance is broken for every later request. Its compile time and memory grow
 * with the schema. So the schema is walked here first, with a loop (a schema nested 100,000 deep
 * costs a loop, not the JS stack), and one past a limit is a 400 naming the limit and where.
 * Remote models get the schema as sent. Why each number: docs/decisions/schema-limits.md.
 * @module
 */
import { DEFINITIONS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUES } from './schema-keywords.ts';
import { isRecord, levelsOf, pathOf, type Refuse, type SchemaNode } from './schema-nodes.ts';
import { checkReferences } from './schema-refs.ts';

export interface SchemaLimits {
  /**
   * Levels of nesting: the schema itself is level 1, each schema inside another (a property, the
   * items, an `anyOf` branch) one more, and so is following a `$ref`, a `type` listing several
   * types (xgrammar makes it an `anyOf`) and each array or object inside a value (`enum`, `const`,
   * `default`). xgrammar fails at 54 levels; 32 use at most 62% of its stack.
   */
  readonly depth: number;
  /** Object properties, in all the schema's `properties` (OpenAI's strict mode: 5,000). */
  readonly properties: number;
  /** `enum` values, in all the schema's enums (OpenAI's strict mode: 1,000). Integer ranges are counted apart (json-schema-support.ts). */
  readonly enumValues: number;
  /** Characters of property names, definition names and `enum` and `const` strings, in all (OpenAI's strict mode: 120,000). */
  readonly stringLength: number;
  /** Characters of one `pattern`. */
  readonly patternLength: number;
  /** Groups nested in one `pattern`: each is a level of xgrammar's recursion when it compiles the pattern. */
  readonly patternNesting: number;
  /** Bytes of the schema as compact JSON (UTF-8), annotations included. */
  readonly schemaBytes: number;
}

export const SCHEMA_LIMITS: SchemaLimits = {
  depth: 32,
  properties: 5_000,
  enumValues: 1_000,
  stringLength: 120_000,
  patternLength: 1_000,
  patternNesting: 32,
  schemaBytes: 512 * 1024,
};

/**
 * The limits that keep xgrammar's recursion within its stack, which the engines check again on
 * the schema they get (engines/grammar/ebnf.ts): an engine can be asked without a gateway in
 * front. The others bound cost, which the engines bound by the grammar's size instead (a schema
 * in its grammar form lists its integer ranges, past the enum count).
 */
export const STACK_LIMITS: SchemaLimits = { ...SCHEMA_LIMITS, properties: Infinity, enumValues: Infinity, stringLength: Infinity, schemaBytes: Infinity };

type Frame =
  | { readonly kind: 'schema'; readonly value: unknown; readonly parent: number; readonly keyword: string; readonly name: string; readonly level: number }
  /** A value that is not a schema (inside `enum`, `const`, `default`, ...), held by schema `owner` under `keyword`. */
  | { readonly kind: 'value'; readonly value: unknown; readonly owner: number; readonly keyword: string; readonly level: number; readonly counted: boolean };

/** Keywords whose list holds values, each counted on its own (the list is no level). */
const VALUE_LISTS = new Set(['enum', 'examples', 'required', 'type']);

/** Throws `refuse(...)` for the first of `limits` that `schema` passes. */
export function checkSchemaLimits(schema: unknown, refuse: Refuse, limits: SchemaLimits = SCHEMA_LIMITS): void {
  const { depth, properties: maxProperties, enumValues: maxEnumValues, stringLength: maxStrings } = limits;
  const nodes: SchemaNode[] = [];
  let properties = 0;
  let enumValues = 0;
  let strings = 0;
  const countString = (length: number, at: () => string) => {
    strings += length;
    if (strings > maxStrings) throw refuse(at(), `property names, definition names and enum and const strings come to ${strings} characters here, over the limit of ${maxStrings} in one schema`);
  };
  const stack: Frame[] = [{ kind: 'schema', value: schema, parent: -1, keyword: '', name: '', level: levelsOf(schema) }];
  // Children are pushed last first, so that the walk (and the first limit it reports) follows the document's order.
  const pushAll = (frames: Frame[]) => {
    for (let i = frames.length - 1; i >= 0; i--) stack.push(frames[i]!);
  };

  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (frame.kind === 'value') {
      const owner = nodes[frame.owner]!;
      const at = () => `${pathOf(nodes, frame.owner)}/${frame.keyword}`;
      if (frame.level > depth) throw refuse(at(), `a value nests to level ${frame.level} here, over the limit of ${depth} levels`);
      owner.deepest = Math.max(owner.deepest, frame.level);
      const entries = Array.isArray(frame.value) ? frame.value.map((item) => ['', item] as const) : Object.entries(frame.value as object);
      const next: Frame[] = [];
      for (const [key, item] of entries) {
        if (frame.counted) countString(key.length + (typeof item === 'string' ? item.length : 0), at);
        if (typeof item === 'object' && item !== null) next.push({ ...frame, value: item, level: frame.level + 1 });
      }
      pushAll(next);
      continue;
    }

    const index = nodes.length;
    const value = frame.value;
    nodes.push({ value, parent: frame.parent, keyword: frame.keyword, name: frame.name, level: frame.level, children: [], deepest: frame.level });
    if (frame.parent >= 0) nodes[frame.parent]!.children.push(index);
    const at = (...segments: string[]) => [pathOf(nodes, index), ...segments].join('/');
    if (frame.level > depth) throw refuse(at(), `schemas nest to level ${frame.level} here, over the limit of ${depth} levels`);
    if (!isRecord(value)) continue;

    const next: Frame[] = [];
    const child = (keyword: string, name: string, sub: unknown) => next.push({ kind: 'schema', value: sub, parent: index, keyword, name, level: frame.level + levelsOf(sub) });
    const inner = (keyword: string, item: unknown, counted: boolean) => {
      if (counted && typeof item === 'string') countString(item.length, () => at(keyword));
      if (typeof item === 'object' && item !== null) next.push({ kind: 'value', value: item, owner: index, keyword, level: frame.level + 1, counted });
    };
    for (const [keyword, held] of Object.entries(value)) {
      if (SCHEMA_MAPS.has(keyword) && isRecord(held)) {
        for (const [name, sub] of Object.entries(held)) {
          if (keyword === 'properties' && ++properties > maxProperties) throw refuse(at(keyword, name), `this is object property ${properties}, over the limit of ${maxProperties} in one schema`);
          if (keyword === 'properties' || DEFINITIONS.has(keyword)) countString(name.length, () => at(keyword, name));
          child(keyword, name, sub);
        }
      } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(held)) {
        held.forEach((sub, i) => child(keyword, String(i), sub));
      } else if (SCHEMA_VALUES.has(keyword)) {
        child(keyword, '', held);
      } else if (VALUE_LISTS.has(keyword) && Array.isArray(held)) {
        if (keyword === 'enum' && (enumValues += held.length) > maxEnumValues) {
          throw refuse(at(keyword), `the enums come to ${enumValues} values here, over the limit of ${maxEnumValues} in one schema (integer ranges are not counted here)`);
        }
        for (const item of held) inner(keyword, item, keyword === 'enum');
      } else if (keyword === 'pattern' && typeof held === 'string') {
        checkPattern(held, () => at(keyword), refuse, limits);
      } else {
        inner(keyword, held, keyword === 'const');
      }
    }
    pushAll(next);
  }

  // Now that no part nests deep, the whole can be serialised.
  if (Number.isFinite(limits.schemaBytes)) {
    const bytes = utf8Length(JSON.stringify(schema) ?? '');
    if (bytes > limits.schemaBytes) throw refuse('#', `the schema is ${bytes} bytes of JSON, over the limit of ${limits.schemaBytes}`);
  }
  checkReferences(nodes, depth, refuse);
}

function checkPattern(pattern: string, at: () => string, refuse: Refuse, limits: SchemaLimits): void {
  const { patternLength, patternNesting } = limits;
  if (pattern.length > patternLength) throw refuse(at(), `the pattern is ${pattern.length} characters, over the limit of ${patternLength}`);
  let open = 0;
  let deepest = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') i++;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') deepest = Math.max(deepest, ++open);
    else if (char === ')') open--;
  }
  if (deepest > patternNesting) throw refuse(at(), `the pattern nests groups ${deepest} deep, over the limit of ${patternNesting}`);
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair is one 4-byte character.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
