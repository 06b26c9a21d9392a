/**
 * A JSON schema as a flat list of its schemas, the form the limit checks walk without recursion
 * (schema-limits.ts collects it, schema-refs.ts follows its references).
 * @module
 */

/** A schema inside the one checked (or the schema itself, at index 0). */
export interface SchemaNode {
  readonly value: unknown;
  /** The enclosing schema's index, -1 at the root. */
  readonly parent: number;
  /** The keyword that holds it (`properties`, `items`, `anyOf`, ...) and its name or index there ('' for one schema). */
  readonly keyword: string;
  readonly name: string;
  /** Its level of nesting (see SCHEMA_LIMITS.depth in schema-limits.ts). */
  readonly level: number;
  readonly children: number[];
  /** The deepest level of a value (`enum`, `const`, ...) it holds, or its own level. */
  deepest: number;
}

/** Makes the error for a refusal at `path` (`#/properties/a`) with `reason`. */
export type Refuse = (path: string, reason: string) => Error;

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How many levels a schema adds: one, and one more for a `type` listing several types (xgrammar makes it an `anyOf`). */
export function levelsOf(schema: unknown): number {
  return isRecord(schema) && Array.isArray(schema.type) && new Set(schema.type).size > 1 ? 2 : 1;
}

/** Where node `index` is, as error messages write it (`#/properties/a/items`). */
export function pathOf(nodes: readonly SchemaNode[], index: number): string {
  const segments: string[] = [];
  for (let i = index; i > 0; i = nodes[i]!.parent) {
    const node = nodes[i]!;
    segments.push(node.name === '' ? node.keyword : `${node.keyword}/${node.name}`);
  }
  return ['#', ...segments.reverse()].join('/');
}
