/**
 * Writes the tiny generated models (the offline defaults) into public/models (git-ignored), where
 * the app serves them. Run by `npm run build` / `npm run dev`; takes well under a second.
 */
import { dirname, join } from 'node:path';
import { generateTinyModels } from './tiny-models/generate.ts';

const out = join(dirname(new URL(import.meta.url).pathname), '..', 'public', 'models');
await generateTinyModels(out);
console.log(`tiny models written to ${out}`);
