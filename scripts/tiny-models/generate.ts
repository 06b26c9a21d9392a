/**
 * Writes the two tiny test models (`tiny-embed`, `tiny-chat`) in the layout transformers.js loads.
 * Seeded and pure: the same seed gives byte-identical files.
 *
 *   node scripts/tiny-models/generate.ts [outDir]     (Node 24; default outDir: public/models)
 * @module
 */

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { createPrng } from './prng.ts';
import { buildTinyChat } from './tiny-chat.ts';
import { buildTinyEmbed } from './tiny-embed.ts';

export const DEFAULT_SEED = 20240601;

export const TINY_MODEL_IDS = { embed: 'tiny-embed', chat: 'tiny-chat' } as const;

/** Generates both models under `outDir` and returns the paths written. */
export async function generateTinyModels(outDir: string, seed = DEFAULT_SEED): Promise<string[]> {
  // One PRNG stream per model, so changing one model never changes the other's bytes.
  const models = [
    [TINY_MODEL_IDS.embed, buildTinyEmbed(createPrng(seed))],
    [TINY_MODEL_IDS.chat, buildTinyChat(createPrng(seed + 1))],
  ] as const;
  const written: string[] = [];
  for (const [id, files] of models) {
    for (const [path, content] of files) {
      const target = join(outDir, id, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      written.push(target);
    }
  }
  return written;
}

if (import.meta.main) {
  const outDir = resolve(process.argv[2] ?? 'public/models');
  const started = performance.now();
  const written = await generateTinyModels(outDir);
  console.log(`wrote ${written.length} files under ${outDir} in ${Math.round(performance.now() - started)} ms`);
}
