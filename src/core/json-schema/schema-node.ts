/**
 * A JSON schema read into the few node kinds a matcher needs: a union, literals, or a typed node
 * that lists, per JSON type, what values of that type must be. `allOf` is intersected here (so
 * the matcher never runs two schemas side by side), `$ref` is followed lazily (a recursive schema
 * is a finite graph of nodes), `enum` and `const` become the literal texts that pass the rest of
 * their schema, and keywords that constrain nothing (annotations, vendor extensions, anything a
 * validator does not know) are left out, as validators leave them out. What cannot be enforced
 * is refused with the keyword's place in the schema.
 * @module
 */
import type { CharAutomaton } from './char-automaton.ts';
import { formatAutomaton } from './formats.ts';
import { compilePattern } from './pattern.ts';
import { decimalOf, inRange, lcm, ONE, type Decimal, type NumberRange } from './decimal.ts';

/** JSON types as bits; `NUMBER` includes the integers, `INTEGER` alone is integers only. */
export const NULL = 1;
export const BOOLEAN = 2;
export const INTEGER = 4;
export const NUMBER = 8;
export const STRING = 16;
export const ARRAY = 32;
export const OBJECT = 64;
export const ALL_TYPES = 127;

export type Node = AnyNode | NeverNode | UnionNode | LiteralNode | TypedNode | RefNode;

export interface AnyNode {
  readonly kind: 'any';
}
export interface NeverNode {
  readonly kind: 'never';
}
export interface UnionNode {
  readonly kind: 'union';
  readonly id: number;
  readonly of: readonly Node[];
}
/** One of these JSON texts, exactly (compact, as JSON.stringify writes the value). */
export interface LiteralNode {
  readonly kind: 'literal';
  readonly id: number;
  readonly texts: readonly string[];
  readonly values: readonly unknown[];
}
export interface RefNode {
  readonly kind: 'ref';
  readonly id: number;
  readonly target: () => Node;
}

export interface StringRule {
  readonly min: number;
  readonly max: number;
  /** Each must match (patterns, formats), with what they were written as (for keys of the cache). */
  readonly automata: readonly CharAutomaton[];
  readonly sources: readonly string[];
}
export interface ObjectProperty {
  readonly name: string;
  /** The name's JSON text without its quotes: how it is spelt in the output. */
  readonly spelling: string;
  readonly node: Node;
  readonly required: boolean;
}
export interface ObjectRule {
  readonly properties: readonly ObjectProperty[];
  /** For names matched by a pattern (each that matches applies). */
  readonly patterns: readonly { readonly automaton: CharAutomaton; readonly node: Node }[];
  /** For other names (never: none allowed). */
  readonly additional: Node;
  readonly min: number;
  readonly max: number;
  /**
   * Declared members in any order, rather than the order the schema declares them (a model
   * writes them in that order, as OpenAI's structured outputs do; validators take any).
   */
  readonly anyOrder?: boolean;
  /** What every name must be (`propertyNames`), if anything: checked as each name closes. */
  readonly names?: Node;
  /** Its string rule, where it has one: kept character by character, so a name cannot go astray. */
  readonly nameRule?: StringRule;
}
export interface ArrayRule {
  readonly prefix: readonly Node[];
  readonly items: Node;
  readonly min: number;
  readonly max: number;
}
export interface TypedNode {
  readonly kind: 'typed';
  readonly id: number;
  readonly types: number;
  readonly string: StringRule;
  readonly number: NumberRange;
  readonly object: ObjectRule;
  readonly array: ArrayRule;
}

export const ANY: AnyNode = { kind: 'any' };
export const NEVER: NeverNode = { kind: 'never' };

/** A schema, or a part of it, that cannot be enforced: `path` is its JSON pointer, `reason` says why. */
export class UnenforceableSchema extends Error {
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
    this.name = 'UnenforceableSchema';
  }
}

const FREE_STRING: StringRule = { min: 0, max: Infinity, automata: [], sources: [] };
const FREE_NUMBER: NumberRange = { minExclusive: false, maxExclusive: false };
const FREE_OBJECT: ObjectRule = { properties: [], patterns: [], additional: ANY, min: 0, max: Infinity };
const FREE_ARRAY: ArrayRule = { prefix: [], items: ANY, min: 0, max: Infinity };

/**
 * Formats validators check (Python jsonschema's and ajv-formats' lists) that formats.ts has no
 * automaton for: refused, since ignoring them would let through what a validator refuses. Any
 * other format is one no validator knows, an annotation.
 */
const CHECKED_FORMATS: ReadonlySet<string> = new Set(['idn-email', 'idn-hostname', 'iri', 'iri-reference', 'regex', 'json-pointer', 'relative-json-pointer', 'uri-template', 'color']);

/** Keywords that constrain values; every other keyword is an annotation and is left out. */
const REFUSED: Readonly<Record<string, string>> = {
  if: 'if / then / else is not supported',
  dependencies: 'dependencies is not supported',
  dependentRequired: 'dependentRequired is not supported',
  dependentSchemas: 'dependentSchemas is not supported',
  contains: 'contains is not supported',
  unevaluatedProperties: 'unevaluatedProperties is not supported',
  unevaluatedItems: 'unevaluatedItems is not supported',
  $dynamicRef: '$dynamicRef is not supported',
  $recursiveRef: '$recursiveRef is not supported',
};

const TYPE_BITS: Readonly<Record<string, number>> = { null: NULL, boolean: BOOLEAN, integer: INTEGER, number: NUMBER | INTEGER, string: STRING, array: ARRAY, object: OBJECT };

/** Union members at most, after `allOf` is distributed over them. */
const MAX_UNION = 256;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

let nextId = 1;
const typed = (parts: Partial<Omit<TypedNode, 'kind' | 'id'>>): TypedNode => ({
  kind: 'typed',
  id: nextId++,
  types: parts.types ?? ALL_TYPES,
  string: parts.string ?? FREE_STRING,
  number: parts.number ?? FREE_NUMBER,
  object: parts.object ?? FREE_OBJECT,
  array: parts.array ?? FREE_ARRAY,
});

/** A node of these types (bits), with nothing else asked of them: `json_object` is `typedNode(OBJECT)`. */
export function typedNode(types: number): TypedNode {
  return typed({ types });
}

/**
 * How a schema is read. A JSON answer's schema means what JSON Schema says, whatever the request's
 * `strict` (an object that does not say what other members it takes takes any), so every value the
 * schema accepts can be written (docs/decisions/schema-matcher.md).
 */
export interface ReadOptions {
  /** Take declared members in any order (as validators do), not only in the schema's order. */
  readonly anyOrder?: boolean;
  /**
   * An object schema that does not say what other members it takes takes none: for a tool's
   * arguments, where a call passes what the tool declares (and a weak model would otherwise
   * invent members until its tokens run out), as the grammar engine's tool calls always did.
   */
  readonly closedObjects?: boolean;
}

/** Reads a whole schema (its own root for `#` references). */
export function readSchema(schema: unknown, options: ReadOptions = {}): Node {
  const node = new SchemaReader(schema, options.anyOrder ?? false, options.closedObjects ?? false).read(schema, '#');
  resolveAll(node);
  return node;
}

/** Follows every reference once, so a schema is refused when it is read, never halfway through an answer. */
function resolveAll(root: Node): void {
  const seen = new Set<Node>();
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.kind === 'ref') stack.push(node.target());
    else if (node.kind === 'union') stack.push(...node.of);
    else if (node.kind === 'typed') {
      stack.push(...node.object.properties.map((p) => p.node), ...node.object.patterns.map((p) => p.node), node.object.additional, ...(node.object.names ? [node.object.names] : []), ...node.array.prefix, node.array.items);
    }
  }
}

class SchemaReader {
  /** Draft-04 to -07: a `$ref`'s siblings are ignored, as those drafts say. */
  private readonly legacy: boolean;
  private readonly refs = new Map<string, RefNode>();
  private readonly reading = new Set<Node>();

  private readonly root: unknown;
  private readonly anyOrder: boolean;
  private readonly closedObjects: boolean;

  constructor(root: unknown, anyOrder: boolean, closedObjects: boolean) {
    this.root = root;
    this.anyOrder = anyOrder;
    this.closedObjects = closedObjects;
    const dialect = isRecord(root) && typeof root.$schema === 'string' ? root.$schema : '';
    this.legacy = /draft-0[3-7]/.test(dialect);
  }

  read(schema: unknown, path: string): Node {
    if (schema === true) return ANY;
    if (schema === false) return NEVER;
    if (!isRecord(schema)) throw new UnenforceableSchema(path, 'a schema must be an object or a boolean');
    if (typeof schema.$ref === 'string') {
      const ref = this.ref(schema.$ref, `${path}/$ref`);
      if (this.legacy) return ref;
      const rest = { ...schema };
      delete rest.$ref;
      return Object.keys(rest).some((key) => key in REFUSED || CONSTRAINING.has(key)) ? this.intersect(ref, this.read(rest, path), path) : ref;
    }
    for (const key of Object.keys(schema)) if (key in REFUSED) throw new UnenforceableSchema(`${path}/${key}`, REFUSED[key]!);
    let node: Node = this.own(schema, path);
    if (Array.isArray(schema.allOf)) schema.allOf.forEach((part, i) => (node = this.intersect(node, this.read(part, `${path}/allOf/${i}`), `${path}/allOf/${i}`)));
    if (Array.isArray(schema.anyOf)) node = this.intersect(node, union(schema.anyOf.map((part, i) => this.read(part, `${path}/anyOf/${i}`))), `${path}/anyOf`);
    if (Array.isArray(schema.oneOf)) {
      const parts = schema.oneOf.map((part, i) => this.read(part, `${path}/oneOf/${i}`));
      // One and only one must match: enforced as "any", which is the same where no value can match
      // two of them. Where two may overlap (and so a value matching both must be refused), refused.
      for (let i = 0; i < parts.length; i++)
        for (let j = i + 1; j < parts.length; j++)
          if (!disjoint(parts[i]!, parts[j]!, 0)) throw new UnenforceableSchema(`${path}/oneOf`, `oneOf branches ${i} and ${j} may both match one value, which oneOf must refuse`);
      node = this.intersect(node, union(parts), `${path}/oneOf`);
    }
    if ('not' in schema) node = this.intersect(node, this.not(schema.not, `${path}/not`), `${path}/not`);
    if ('const' in schema || Array.isArray(schema.enum)) {
      const values = 'const' in schema ? [schema.const] : (schema.enum as unknown[]);
      if ('const' in schema && Array.isArray(schema.enum)) values.splice(0, 1, ...[schema.const].filter((value) => (schema.enum as unknown[]).some((other) => equal(other, value))));
      node = literals(values.filter((value) => matches(node, value)));
    }
    return node;
  }

  private ref(ref: string, path: string): Node {
    const found = this.refs.get(ref);
    if (found) return found;
    if (!(ref === '#' || ref.startsWith('#/'))) throw new UnenforceableSchema(path, `the reference ${JSON.stringify(ref)} is not inside this schema`);
    let target: unknown = this.root;
    for (const part of ref.slice(2).split('/').filter((p, i, all) => !(all.length === 1 && p === ''))) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      target = Array.isArray(target) ? target[Number(key)] : isRecord(target) ? target[key] : undefined;
      if (target === undefined) throw new UnenforceableSchema(path, `the reference ${JSON.stringify(ref)} points at no schema in this document`);
    }
    let resolved: Node | undefined;
    let resolving = false;
    const node: RefNode = {
      kind: 'ref',
      id: nextId++,
      target: () => {
        if (resolved) return resolved;
        if (resolving) throw new UnenforceableSchema(path, `the reference ${JSON.stringify(ref)} leads back to itself before any value is read`);
        resolving = true;
        try {
          resolved = this.read(target, ref);
        } finally {
          resolving = false;
        }
        return resolved;
      },
    };
    this.refs.set(ref, node);
    // Read it now (a reference inside an object or array is read on demand by the matcher, so a
    // recursive schema is fine); a reference that leads only to itself is refused here.
    return node;
  }

  /** A schema's own keywords, without its combinators. */
  private own(schema: Record<string, unknown>, path: string): Node {
    let types = ALL_TYPES;
    if ('type' in schema) {
      const list = Array.isArray(schema.type) ? schema.type : [schema.type];
      types = 0;
      for (const name of list) {
        const bits = typeof name === 'string' ? TYPE_BITS[name] : undefined;
        if (bits === undefined) throw new UnenforceableSchema(`${path}/type`, `unknown type ${JSON.stringify(name)}`);
        types |= bits;
      }
    }
    return typed({ types, string: this.string(schema, path), number: this.number(schema, path), object: this.object(schema, path), array: this.array(schema, path) });
  }

  private string(schema: Record<string, unknown>, path: string): StringRule {
    const automata: CharAutomaton[] = [];
    const sources: string[] = [];
    if (typeof schema.pattern === 'string') {
      automata.push(pattern(schema.pattern, `${path}/pattern`));
      sources.push(`p:${schema.pattern}`);
    }
    if (typeof schema.format === 'string') {
      // A format a validator does not know asserts nothing; the known ones are enforced.
      const automaton = formatAutomaton(schema.format);
      if (!automaton && CHECKED_FORMATS.has(schema.format)) throw new UnenforceableSchema(`${path}/format`, `the format ${JSON.stringify(schema.format)} is not supported`);
      if (automaton) {
        automata.push(automaton);
        sources.push(`f:${schema.format}`);
      }
    }
    const min = count(schema.minLength, 0);
    const max = count(schema.maxLength, Infinity);
    return automata.length === 0 && min === 0 && max === Infinity ? FREE_STRING : { min, max, automata, sources };
  }

  private number(schema: Record<string, unknown>, path: string): NumberRange {
    let min = bound(schema.minimum, `${path}/minimum`);
    let max = bound(schema.maximum, `${path}/maximum`);
    let minExclusive = false;
    let maxExclusive = false;
    // Draft-04 writes exclusivity as a flag on the bound; later drafts as a bound of its own.
    if (schema.exclusiveMinimum === true) minExclusive = min !== undefined;
    else if (typeof schema.exclusiveMinimum === 'number') {
      const other = bound(schema.exclusiveMinimum, `${path}/exclusiveMinimum`)!;
      if (!min || other.m * 10n ** BigInt(min.e) >= min.m * 10n ** BigInt(other.e)) [min, minExclusive] = [other, true];
    }
    if (schema.exclusiveMaximum === true) maxExclusive = max !== undefined;
    else if (typeof schema.exclusiveMaximum === 'number') {
      const other = bound(schema.exclusiveMaximum, `${path}/exclusiveMaximum`)!;
      if (!max || other.m * 10n ** BigInt(max.e) <= max.m * 10n ** BigInt(other.e)) [max, maxExclusive] = [other, true];
    }
    let step: Decimal | undefined;
    if (schema.multipleOf !== undefined) {
      step = bound(schema.multipleOf, `${path}/multipleOf`);
      if (!step || step.m <= 0n) throw new UnenforceableSchema(`${path}/multipleOf`, 'multipleOf must be a positive number');
    }
    if (!min && !max && !step) return FREE_NUMBER;
    return { ...(min ? { min } : {}), minExclusive, ...(max ? { max } : {}), maxExclusive, ...(step ? { step } : {}) };
  }

  private object(schema: Record<string, unknown>, path: string): ObjectRule {
    const declared = isRecord(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
    const patterns = isRecord(schema.patternProperties) ? Object.entries(schema.patternProperties).map(([source, part]) => ({ automaton: pattern(source, `${path}/patternProperties`), source, node: this.read(part, `${path}/patternProperties/${pointer(source)}`) })) : [];
    // Closed only where the schema speaks of objects: a `const`, an `enum`, `{}` keep an object's members.
    const additional = 'additionalProperties' in schema ? this.read(schema.additionalProperties, `${path}/additionalProperties`) : this.closedObjects && describesObjects(schema) ? NEVER : ANY;
    const names = 'propertyNames' in schema ? this.read(schema.propertyNames, `${path}/propertyNames`) : undefined;
    const nameRule = names?.kind === 'typed' && names.types & STRING ? names.string : undefined;
    const properties: ObjectProperty[] = Object.entries(declared).map(([name, part]) => ({ name, spelling: JSON.stringify(name).slice(1, -1), node: this.read(part, `${path}/properties/${pointer(name)}`), required: required.has(name) }));
    // A required name the schema does not declare: it must come, as whatever an undeclared name is.
    for (const name of required) if (!(name in declared)) properties.push({ name, spelling: JSON.stringify(name).slice(1, -1), node: undeclared(name, patterns, additional), required: true });
    const min = count(schema.minProperties, 0);
    const max = count(schema.maxProperties, Infinity);
    if (properties.length === 0 && patterns.length === 0 && additional === ANY && min === 0 && max === Infinity && !names) return FREE_OBJECT;
    return { properties, patterns, additional, min, max, ...(this.anyOrder ? { anyOrder: true } : {}), ...(names ? { names } : {}), ...(nameRule ? { nameRule } : {}) };
  }

  private array(schema: Record<string, unknown>, path: string): ArrayRule {
    if (schema.uniqueItems === true) throw new UnenforceableSchema(`${path}/uniqueItems`, 'uniqueItems is not supported');
    let prefix: Node[] = [];
    let items: Node = ANY;
    if (Array.isArray(schema.prefixItems)) {
      prefix = schema.prefixItems.map((part, i) => this.read(part, `${path}/prefixItems/${i}`));
      if ('items' in schema) items = this.read(schema.items, `${path}/items`);
    } else if (Array.isArray(schema.items)) {
      prefix = schema.items.map((part, i) => this.read(part, `${path}/items/${i}`));
      if ('additionalItems' in schema) items = this.read(schema.additionalItems, `${path}/additionalItems`);
    } else if ('items' in schema) items = this.read(schema.items, `${path}/items`);
    const min = count(schema.minItems, 0);
    const max = count(schema.maxItems, Infinity);
    if (prefix.length === 0 && items === ANY && min === 0 && max === Infinity) return FREE_ARRAY;
    return { prefix, items, min, max };
  }

  /** `not`, for the forms that remove whole types or nothing: anything else is refused. */
  private not(schema: unknown, path: string): Node {
    if (schema === true || (isRecord(schema) && Object.keys(schema).every((key) => !CONSTRAINING.has(key) && !(key in REFUSED)))) return NEVER;
    if (schema === false) return ANY;
    if (isRecord(schema) && Object.keys(schema).every((key) => key === 'type' || !(CONSTRAINING.has(key) || key in REFUSED))) {
      const inner = this.own({ type: schema.type }, path) as TypedNode;
      // Not an integer leaves the numbers that are not integers: a rule of its own, refused.
      if (inner.types & INTEGER && !(inner.types & NUMBER)) throw new UnenforceableSchema(path, 'not { type: integer } is not supported');
      const remove = inner.types & NUMBER ? inner.types | INTEGER : inner.types;
      return typed({ types: ALL_TYPES & ~remove });
    }
    throw new UnenforceableSchema(path, 'not is supported only for whole types');
  }

  /** How deep intersections are nested now: recursive schemas combined with `allOf` would never end. */
  private depth = 0;

  intersect(a: Node, b: Node, path: string): Node {
    if (this.depth > 24) throw new UnenforceableSchema(path, 'combining these schemas (allOf) nests too deep, through references that lead back');
    this.depth++;
    try {
      return this.intersectOnce(a, b, path);
    } finally {
      this.depth--;
    }
  }

  private intersectOnce(a: Node, b: Node, path: string): Node {
    if (a.kind === 'ref') return this.intersect(this.resolve(a, path), b, path);
    if (b.kind === 'ref') return this.intersect(a, this.resolve(b, path), path);
    if (a.kind === 'any') return b;
    if (b.kind === 'any') return a;
    if (a.kind === 'never' || b.kind === 'never') return NEVER;
    if (a.kind === 'union' || b.kind === 'union') {
      const left = a.kind === 'union' ? a.of : [a];
      const right = b.kind === 'union' ? b.of : [b];
      if (left.length * right.length > MAX_UNION) throw new UnenforceableSchema(path, `combining these schemas makes more than ${MAX_UNION} alternatives`);
      return union(left.flatMap((x) => right.map((y) => this.intersect(x, y, path))));
    }
    if (a.kind === 'literal') return literals(a.values.filter((value) => matches(b, value)));
    if (b.kind === 'literal') return literals(b.values.filter((value) => matches(a, value)));
    return this.both(a, b, path);
  }

  private resolve(node: RefNode, path: string): Node {
    if (this.reading.has(node)) throw new UnenforceableSchema(path, 'a schema that combines with itself (allOf through a reference) is not supported');
    this.reading.add(node);
    try {
      return node.target();
    } finally {
      this.reading.delete(node);
    }
  }

  private both(a: TypedNode, b: TypedNode, path: string): Node {
    const types = a.types & b.types;
    if (types === 0) return NEVER;
    const string: StringRule = a.string === FREE_STRING ? b.string : b.string === FREE_STRING ? a.string : { min: Math.max(a.string.min, b.string.min), max: Math.min(a.string.max, b.string.max), automata: [...a.string.automata, ...b.string.automata], sources: [...a.string.sources, ...b.string.sources] };
    const number = bothNumbers(a.number, b.number);
    const array: ArrayRule =
      a.array === FREE_ARRAY
        ? b.array
        : b.array === FREE_ARRAY
          ? a.array
          : {
              prefix: Array.from({ length: Math.max(a.array.prefix.length, b.array.prefix.length) }, (_, i) => this.intersect(a.array.prefix[i] ?? a.array.items, b.array.prefix[i] ?? b.array.items, `${path}/items/${i}`)),
              items: this.intersect(a.array.items, b.array.items, `${path}/items`),
              min: Math.max(a.array.min, b.array.min),
              max: Math.min(a.array.max, b.array.max),
            };
    return typed({ types, string, number, array, object: this.bothObjects(a.object, b.object, path) });
  }

  private bothObjects(a: ObjectRule, b: ObjectRule, path: string): ObjectRule {
    if (a === FREE_OBJECT) return b;
    if (b === FREE_OBJECT) return a;
    if (a.names && b.names) throw new UnenforceableSchema(`${path}/propertyNames`, 'propertyNames in two combined schemas is not supported');
    const names = [...new Set([...a.properties.map((p) => p.name), ...b.properties.map((p) => p.name)])];
    const properties = names.map((name) => {
      const left = a.properties.find((p) => p.name === name);
      const right = b.properties.find((p) => p.name === name);
      return {
        name,
        spelling: JSON.stringify(name).slice(1, -1),
        node: this.intersect(left?.node ?? undeclared(name, a.patterns, a.additional), right?.node ?? undeclared(name, b.patterns, b.additional), `${path}/properties/${pointer(name)}`),
        required: Boolean(left?.required || right?.required),
      };
    });
    if (a.patterns.length > 0 && b.patterns.length > 0) throw new UnenforceableSchema(`${path}/patternProperties`, 'patternProperties in two combined schemas is not supported');
    if ((a.patterns.length > 0 && b.additional !== ANY) || (b.patterns.length > 0 && a.additional !== ANY)) throw new UnenforceableSchema(`${path}/patternProperties`, 'patternProperties combined with a schema that limits other names is not supported');
    return {
      properties,
      patterns: [...a.patterns, ...b.patterns],
      additional: this.intersect(a.additional, b.additional, `${path}/additionalProperties`),
      min: Math.max(a.min, b.min),
      max: Math.min(a.max, b.max),
      ...(a.anyOrder || b.anyOrder ? { anyOrder: true } : {}),
      ...((a.names ?? b.names) ? { names: (a.names ?? b.names)! } : {}),
      ...((a.nameRule ?? b.nameRule) ? { nameRule: (a.nameRule ?? b.nameRule)! } : {}),
    };
  }
}

/** Keywords that constrain a value (so a `$ref` with one of them beside it, in 2019+, applies both). */
const CONSTRAINING: ReadonlySet<string> = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format',
  'items', 'additionalItems', 'prefixItems', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'properties',
  'patternProperties', 'additionalProperties', 'propertyNames', 'allOf', 'anyOf', 'oneOf', 'not',
]);

function undeclared(name: string, patterns: ObjectRule['patterns'], additional: Node): Node {
  const matching = patterns.filter(({ automaton }) => matchesText(automaton, name));
  if (matching.length === 0) return additional;
  if (matching.length === 1) return matching[0]!.node;
  throw new UnenforceableSchema('#', `the name ${JSON.stringify(name)} matches more than one of patternProperties`);
}

/**
 * Patterns compiled, by source: one automaton for every place and schema that spells a pattern, as
 * for a format (its lazy DFA keeps the states it has made, and the masks kept by its states are
 * shared). The oldest goes past PATTERNS_KEPT.
 */
const compiled = new Map<string, CharAutomaton>();
const PATTERNS_KEPT = 1024;

function pattern(source: string, path: string): CharAutomaton {
  try {
    let automaton = compiled.get(source);
    if (!automaton) {
      automaton = compilePattern(source);
      if (compiled.size >= PATTERNS_KEPT) compiled.delete(compiled.keys().next().value!);
      compiled.set(source, automaton);
    }
    return automaton;
  } catch (error) {
    throw new UnenforceableSchema(path, `the pattern ${JSON.stringify(source)} cannot be enforced: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function pointer(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function count(value: unknown, otherwise: number): number {
  return typeof value === 'number' && value >= 0 && Number.isFinite(value) ? Math.ceil(value) : otherwise;
}

function bound(value: unknown, path: string): Decimal | undefined {
  if (value === undefined) return undefined;
  const decimal = typeof value === 'number' ? decimalOf(value) : undefined;
  if (!decimal) throw new UnenforceableSchema(path, 'must be a number');
  return decimal;
}

function bothNumbers(a: NumberRange, b: NumberRange): NumberRange {
  if (a === FREE_NUMBER) return b;
  if (b === FREE_NUMBER) return a;
  const pick = (x: Decimal | undefined, xo: boolean, y: Decimal | undefined, yo: boolean, low: boolean): [Decimal | undefined, boolean] => {
    if (!x) return [y, yo];
    if (!y) return [x, xo];
    const c = Number(x.m * 10n ** BigInt(y.e) - y.m * 10n ** BigInt(x.e) > 0n) - Number(x.m * 10n ** BigInt(y.e) - y.m * 10n ** BigInt(x.e) < 0n);
    if (c === 0) return [x, xo || yo];
    return (c > 0) === low ? [x, xo] : [y, yo];
  };
  const [min, minExclusive] = pick(a.min, a.minExclusive, b.min, b.minExclusive, true);
  const [max, maxExclusive] = pick(a.max, a.maxExclusive, b.max, b.maxExclusive, false);
  const step = a.step && b.step ? lcm(a.step, b.step) : (a.step ?? b.step);
  return { ...(min ? { min } : {}), minExclusive, ...(max ? { max } : {}), maxExclusive, ...(step ? { step } : {}) };
}

/** The step of a node's integers: its own step, or 1 where it allows integers only. */
export function integerStep(node: TypedNode): Decimal | undefined {
  if (node.types & NUMBER) return node.number.step;
  return node.number.step ? lcm(node.number.step, ONE) : ONE;
}

/** The values both nodes match, as one node (for a name two patternProperties match). */
export function intersectNodes(a: Node, b: Node): Node {
  return new SchemaReader(undefined, false, false).intersect(a, b, '#');
}

export function union(nodes: readonly Node[]): Node {
  const of = nodes.flatMap((node) => (node.kind === 'union' ? node.of : node.kind === 'never' ? [] : [node]));
  if (of.some((node) => node.kind === 'any')) return ANY;
  if (of.length === 0) return NEVER;
  if (of.length === 1) return of[0]!;
  if (of.length > MAX_UNION) throw new UnenforceableSchema('#', `more than ${MAX_UNION} alternatives`);
  return { kind: 'union', id: nextId++, of };
}

export function literals(values: readonly unknown[]): Node {
  const texts: string[] = [];
  const kept: unknown[] = [];
  for (const value of values) {
    const text = JSON.stringify(value);
    if (text === undefined || texts.includes(text)) continue;
    texts.push(text);
    kept.push(value);
  }
  return texts.length === 0 ? NEVER : { kind: 'literal', id: nextId++, texts, values: kept };
}

/** Deep equality of JSON values, as JSON Schema's `enum` compares (object members in any order). */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && equal(a[key], b[key]));
  }
  return false;
}

function matchesText(automaton: CharAutomaton, text: string): boolean {
  let state = automaton.start;
  for (const char of text) {
    state = automaton.next(state, char.codePointAt(0)!);
    if (state < 0) return false;
  }
  return automaton.accepts(state);
}

const typeBitOf = (value: unknown): number =>
  value === null ? NULL : typeof value === 'boolean' ? BOOLEAN : typeof value === 'number' ? (Number.isInteger(value) ? INTEGER : NUMBER) : typeof value === 'string' ? STRING : Array.isArray(value) ? ARRAY : OBJECT;

/** Whether a JSON value matches a node: literals are checked against the rest of their schema with it. */
export function matches(node: Node, value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  switch (node.kind) {
    case 'any':
      return true;
    case 'never':
      return false;
    case 'ref':
      return matches(node.target(), value, depth + 1);
    case 'union':
      return node.of.some((part) => matches(part, value, depth + 1));
    case 'literal':
      return node.values.some((other) => equal(other, value));
    case 'typed':
      break;
  }
  const bit = typeBitOf(value);
  if (!(node.types & bit) && !(bit === INTEGER && node.types & NUMBER)) return false;
  if (typeof value === 'string') {
    const length = [...value].length;
    return length >= node.string.min && length <= node.string.max && node.string.automata.every((automaton) => matchesText(automaton, value));
  }
  if (typeof value === 'number') {
    const decimal = decimalOf(value);
    if (!decimal) return false;
    const step = node.types & NUMBER ? node.number.step : integerStep(node);
    return inRangeOf({ ...node.number, ...(step ? { step } : {}) }, decimal);
  }
  if (Array.isArray(value)) {
    const rule = node.array;
    return value.length >= rule.min && value.length <= rule.max && value.every((item, i) => matches(rule.prefix[i] ?? rule.items, item, depth + 1));
  }
  if (isRecord(value)) {
    const rule = node.object;
    const keys = Object.keys(value);
    if (keys.length < rule.min || keys.length > rule.max) return false;
    for (const property of rule.properties) if (property.required && !(property.name in value)) return false;
    return keys.every((key) => {
      if (rule.names && !matches(rule.names, key, depth + 1)) return false;
      const property = rule.properties.find((p) => p.name === key);
      if (property) return matches(property.node, value[key], depth + 1);
      const matching = rule.patterns.filter(({ automaton }) => matchesText(automaton, key));
      return matching.length > 0 ? matching.every(({ node: part }) => matches(part, value[key], depth + 1)) : matches(rule.additional, value[key], depth + 1);
    });
  }
  return true;
}

function inRangeOf(range: NumberRange, value: Decimal): boolean {
  return inRange(value, range);
}

/**
 * Whether no value can match both nodes, judged on what tells values apart at a glance: types,
 * literal values, and, for objects, a required property whose values are apart. False where unsure.
 */
export function disjoint(a: Node, b: Node, depth: number): boolean {
  if (depth > 8) return false;
  if (a.kind === 'ref') return disjoint(a.target(), b, depth + 1);
  if (b.kind === 'ref') return disjoint(a, b.target(), depth + 1);
  if (a.kind === 'never' || b.kind === 'never') return true;
  if (a.kind === 'any' || b.kind === 'any') return false;
  if (a.kind === 'union') return a.of.every((part) => disjoint(part, b, depth + 1));
  if (b.kind === 'union') return b.of.every((part) => disjoint(a, part, depth + 1));
  if (a.kind === 'literal') return a.values.every((value) => !matches(b, value));
  if (b.kind === 'literal') return b.values.every((value) => !matches(a, value));
  const numbersA = a.types & (INTEGER | NUMBER);
  const numbersB = b.types & (INTEGER | NUMBER);
  const shared = (a.types & b.types & ~(INTEGER | NUMBER)) | (numbersA && numbersB ? INTEGER : 0);
  if (shared === 0) return true;
  // Only objects shared: apart where a property both require has values apart, or one requires
  // a name the other forbids.
  if (shared === OBJECT) {
    for (const p of a.object.properties) {
      const q = b.object.properties.find((other) => other.name === p.name);
      if (p.required && q?.required && disjoint(p.node, q.node, depth + 1)) return true;
      if (p.required && !q && b.object.additional.kind === 'never' && b.object.patterns.length === 0) return true;
    }
    for (const q of b.object.properties) if (q.required && !a.object.properties.some((p) => p.name === q.name) && a.object.additional.kind === 'never' && a.object.patterns.length === 0) return true;
  }
  return false;
}

/**
 * A value with its objects' members in the order the schema declares them (undeclared ones after,
 * as they came), and a literal's own spelling where it equals one: how an output of this
 * schema is written, so a value can be checked as the output it would be (MaskBench's way).
 */
export function inDefinitionOrder(node: Node, value: unknown, depth = 0): unknown {
  if (depth > 64) return value;
  switch (node.kind) {
    case 'ref':
      return inDefinitionOrder(node.target(), value, depth + 1);
    case 'union': {
      const match = node.of.find((part) => matches(part, value));
      return match ? inDefinitionOrder(match, value, depth + 1) : value;
    }
    case 'literal':
      return node.values.find((other) => equal(other, value)) ?? value;
    case 'typed':
      break;
    default:
      return value;
  }
  if (Array.isArray(value)) return value.map((item, i) => inDefinitionOrder(node.array.prefix[i] ?? node.array.items, item, depth + 1));
  if (!isRecord(value)) return value;
  const rule = node.object;
  const out: Record<string, unknown> = {};
  for (const property of rule.properties) if (Object.hasOwn(value, property.name)) out[property.name] = inDefinitionOrder(property.node, value[property.name], depth + 1);
  for (const [key, member] of Object.entries(value)) {
    if (Object.hasOwn(out, key)) continue;
    const matching = rule.patterns.filter(({ automaton }) => matchesText(automaton, key));
    out[key] = inDefinitionOrder(matching.length === 1 ? matching[0]!.node : matching.length === 0 ? rule.additional : ANY, member, depth + 1);
  }
  return out;
}

/** Whether a schema speaks of objects: its type says so, or it has object keywords. */
function describesObjects(schema: Record<string, unknown>): boolean {
  const { type } = schema;
  if (type === 'object' || (Array.isArray(type) && type.includes('object'))) return true;
  return ['properties', 'required', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'].some((keyword) => keyword in schema);
}
