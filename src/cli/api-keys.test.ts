import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectApiKeys } from './api-keys.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-keys-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('collectApiKeys', () => {
  it('takes the keys from the flags, the environment (comma-separated) and the file (one a line), once each', async () => {
    const file = join(dir, 'keys');
    await writeFile(file, '# team keys\nsk-file-1\r\n\n  sk-file-2  \nsk-flag\n');
    expect(await collectApiKeys(['sk-flag'], ' sk-env-1, sk-env-2 ,', file)).toEqual(['sk-flag', 'sk-env-1', 'sk-env-2', 'sk-file-1', 'sk-file-2']);
  });

  it('gives none when no source is given', async () => {
    expect(await collectApiKeys([], undefined, undefined)).toEqual([]);
  });

  it('refuses a source given but empty, so a server meant to be locked does not start open', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, '# nothing yet\n\n');
    await expect(collectApiKeys([], ' , ', undefined)).rejects.toThrow(/INPAGE_LLM_API_KEY is set but holds no key/);
    await expect(collectApiKeys([], undefined, empty)).rejects.toThrow(/--api-key-file .*empty holds no key/);
    await expect(collectApiKeys([''], undefined, undefined)).rejects.toThrow(/--api-key was given an empty key/);
    await expect(collectApiKeys([], undefined, join(dir, 'missing'))).rejects.toThrow(/--api-key-file .*missing: no such file/);
  });
});
