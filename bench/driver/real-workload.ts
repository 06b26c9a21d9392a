/**
 * What the real-size page needs from Node: the real-shaped models (made, or kept, by the same code
 * as `npm run models:real`), their files' sizes and hashes (given to the engines as the catalog's
 * `files`, so every file is checked as a user's would be), and inputs of exact lengths.
 * @module
 */
import { chatTextOfTokens } from '../real-models/real-chat.ts';
import { textOfTokens } from '../real-models/real-embed.ts';
import { generateRealModels, REAL_MODEL_IDS, type RealModelKind } from '../real-models/real-models.ts';
import type { RealWorkload } from './real-size-results.ts';
import { REAL_MODELS } from './paths.ts';

/** One more real-shaped model (made, or kept), as the catalog's entry would name its files. */
export async function realModel(kind: RealModelKind): Promise<RealWorkload['chat']> {
  const { manifest, reports } = await generateRealModels(REAL_MODELS, { only: [kind] });
  for (const r of reports) console.log(`bench: ${r.id} ${r.status} (${(r.entry.bytes / 1e6).toFixed(0)} MB) in ${REAL_MODELS}`);
  const id = REAL_MODEL_IDS[kind];
  const m = manifest.models[id]!;
  return { id, bytes: m.bytes, dtype: m.dtype, files: m.files };
}

export async function realWorkload(): Promise<RealWorkload> {
  const { manifest, reports } = await generateRealModels(REAL_MODELS);
  for (const r of reports) console.log(`bench: ${r.id} ${r.status} (${(r.entry.bytes / 1e6).toFixed(0)} MB) in ${REAL_MODELS}`);
  const entry = (id: string) => {
    const m = manifest.models[id]!;
    return { id, bytes: m.bytes, dtype: m.dtype, files: m.files };
  };
  return {
    embed: entry(REAL_MODEL_IDS.embed),
    chat: entry(REAL_MODEL_IDS.chat),
    embedTexts: Object.fromEntries([8, 16, 32, 128, 512].map((n) => [String(n), textOfTokens(n)])),
    prompts: Object.fromEntries([16, 64, 256].map((n) => [String(n), chatTextOfTokens(n)])),
  };
}
