/**
 * Writes what the app serves besides its own build into public/inpage-llm (git-ignored): the
 * onnxruntime-web wasm and the tiny generated models (the offline defaults), the same files in the
 * same layout `npx inpage-llm init --models` gives an app. This repository's build makes the
 * worker scripts from source. Run by `npm run build` / `npm run dev`; takes about a second.
 */
import { join } from 'node:path';
import { runtimeFiles } from '../src/install/runtime-files.ts';
import { writeRuntimeFiles } from '../src/install/write-runtime-files.ts';

const publicDir = join(import.meta.dirname, '..', 'public');
const bytes = await writeRuntimeFiles(publicDir, await runtimeFiles({ scripts: false, models: true }));
console.log(`runtime assets (${(bytes / 1e6).toFixed(1)} MB) written to ${join(publicDir, 'inpage-llm')}`);
