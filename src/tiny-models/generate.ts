/**
 * Writes the two tiny test models (`tiny-embed`, `tiny-chat`) in the layout transformers.js loads.
 * Seeded and pure: the same seed gives byte-identical files.
 *
 * Apps get them with `npx inpage-llm init <public folder> --models`; this repo's build writes them
 * with `npm run assets`.
 * @module
 */

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createPrng } from './prng.ts';
import { buildTinyChat } from './tiny-chat.ts';
import { buildTinyEmbed } from './tiny-embed.ts';

export const DEFAULT_SEED = 20240601;

export const TINY_MODEL_IDS = { embed: 'tiny-embed', chat: 'tiny-chat' } as const;

/** Both models' files, as `[path under the models folder, content]`. */
export function tinyModelFiles(seed = DEFAULT_SEED): [string, string | Uint8Array][] {
  // One PRNG stream per model, so changing one model never changes the other's bytes.
  const models = [
    [TINY_MODEL_IDS.embed, buildTinyEmbed(createPrng(seed))],
    [TINY_MODEL_IDS.chat, buildTinyChat(createPrng(seed + 1))],
  ] as const;
  return models.flatMap(([id, files]) => [...files].map(([path, content]): [string, string | Uint8Array] => [`${id}/${path}`, content]));
}

/** Generates both models under `outDir` and returns the paths written. */
export async function generateTinyModels(outDir: string, seed = DEFAULT_SEED): Promise<string[]> {
  const written: string[] = [];
  for (const [path, content] of tinyModelFiles(seed)) {
    const target = join(outDir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
    written.push(target);
  }
  return written;
}
