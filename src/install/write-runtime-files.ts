/** Writes the runtime files into a public folder (what `init` does). @module */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RuntimeFile } from './runtime-files.ts';

/** Writes each file under `publicDir`; returns the bytes written. */
export async function writeRuntimeFiles(publicDir: string, files: readonly RuntimeFile[]): Promise<number> {
  let bytes = 0;
  for (const file of files) {
    const target = join(publicDir, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    const content = await file.read();
    await writeFile(target, content);
    bytes += typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength;
  }
  return bytes;
}
