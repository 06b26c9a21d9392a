/**
 * The keys `inpage-llm serve` requires, from every place they may be given: `--api-key` (shown in
 * the process list to anyone on the machine), the `INPAGE_LLM_API_KEY` environment variable
 * (comma-separated) and `--api-key-file` (one key a line; blank lines and `#` comments skipped).
 * @module
 */
import { readFile } from 'node:fs/promises';

export const API_KEY_ENV = 'INPAGE_LLM_API_KEY';

/**
 * All the keys, in that order, without repeats. Throws with a message for the user when a source
 * is given but holds no key: a server meant to be locked must not start open.
 */
export async function collectApiKeys(flags: readonly string[], env: string | undefined, file: string | undefined): Promise<string[]> {
  const keys = flags.map((key) => key.trim());
  if (keys.some((key) => key === '')) throw new Error('--api-key was given an empty key.');
  if (env !== undefined) {
    const fromEnv = env.split(',').map((key) => key.trim()).filter(Boolean);
    if (fromEnv.length === 0) throw new Error(`${API_KEY_ENV} is set but holds no key: unset it to run without one.`);
    keys.push(...fromEnv);
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new Error(`--api-key-file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error)}.`);
    }
    const fromFile = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
    if (fromFile.length === 0) throw new Error(`--api-key-file ${file} holds no key (one a line; blank lines and # comments are skipped).`);
    keys.push(...fromFile);
  }
  return [...new Set(keys)];
}
