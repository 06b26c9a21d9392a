/**
 * Where a JSON schema holds other schemas, shared by the checks that walk one
 * (json-schema-support.ts, schema-limits.ts).
 * @module
 */

/** Keywords whose value is an object of schemas, by name. */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', '$defs', 'definitions']);
/** Keywords whose value is a list of schemas. */
export const SCHEMA_LISTS: ReadonlySet<string> = new Set(['anyOf', 'prefixItems']);
/** Keywords whose value is one schema. */
export const SCHEMA_VALUES: ReadonlySet<string> = new Set(['items', 'additionalProperties']);
/** The maps a reference reaches into: their schemas are not part of the value until a `$ref` names them. */
export const DEFINITIONS: ReadonlySet<string> = new Set(['$defs', 'definitions']);
