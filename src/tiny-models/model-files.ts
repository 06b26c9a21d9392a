/**
 * What a model builder returns: file contents by path relative to the model's directory.
 * @module
 */

export type ModelFiles = Map<string, string | Uint8Array>;

/** Stable, readable JSON (key order is insertion order, so output is deterministic). */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
