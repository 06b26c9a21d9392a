/**
 * A test's title, with why it is skipped and how to run it where `missing` (a data set's
 * `…Missing()` message) says its data is not here: the skip then reports itself, and nothing is
 * skipped where the data is present.
 * @module
 */
export function skippedTitle(title: string, missing: string | undefined): string {
  return missing === undefined ? title : `${title} (skipped: ${missing})`;
}
