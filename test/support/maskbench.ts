/**
 * Where the MaskBench schemas live: the folder `INPAGE_MASKBENCH_DIR` names, else
 * `shared/schemas/maskbench/` in the repository's parent folder (where CI keeps them). Data the
 * tests read, never copied into the repository or the package; where it is missing, the suites
 * that need it skip with `maskbenchMissing()`'s message.
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MASKBENCH_DIR = process.env.INPAGE_MASKBENCH_DIR || fileURLToPath(new URL('../../../shared/schemas/maskbench/', import.meta.url));

/** Why the MaskBench tests cannot run here, or undefined where the folder is present. */
export function maskbenchMissing(): string | undefined {
  if (existsSync(MASKBENCH_DIR)) return undefined;
  return `needs the MaskBench schemas (JSONSchemaBench's maskbench/data/*.json) in ${MASKBENCH_DIR}, which is missing: run with INPAGE_MASKBENCH_DIR=<that folder> npm run test:unit`;
}
