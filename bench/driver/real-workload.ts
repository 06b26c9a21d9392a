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

type RealModel = RealWorkload['chat'];

/** The real-shaped models of `kinds` (made, or kept), each as the catalog's entry would name its files. */
async function realModels(kinds?: readonly RealModelKind[]): Promise<(id: string) => RealModel> {
  const { manifest, reports } = await generateRealModels(REAL_MODELS, kinds ? { only: kinds } : {});
  for (const r of reports) console.log(`bench: ${r.id} ${r.status} (${(r.entry.bytes / 1e6).toFixed(0)} MB) in ${REAL_MODELS}`);
  return (id) => {
    const m = manifest.models[id]!;
    return { id, bytes: m.bytes, dtype: m.dtype, files: m.files };
  };
}

/** One more real-shaped model than realWorkload() makes (a variant such as `chat-q8`). */
export async function realModel(kind: RealModelKind): Promise<RealModel> {
  return (await realModels([kind]))(REAL_MODEL_IDS[kind]);
}

export async function realWorkload(): Promise<RealWorkload> {
  const entry = await realModels();
  return {
    embed: entry(REAL_MODEL_IDS.embed),
    chat: entry(REAL_MODEL_IDS.chat),
    embedTexts: Object.fromEntries([8, 16, 32, 128, 512].map((n) => [String(n), textOfTokens(n)])),
    prompts: Object.fromEntries([16, 64, 256].map((n) => [String(n), chatTextOfTokens(n)])),
  };
}
