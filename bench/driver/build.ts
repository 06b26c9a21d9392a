/** The bench build: the bundled models, then the app with the benchmark pages (`vite build --mode bench`). @module */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { OUT_DIR, ROOT } from './paths.ts';

export function build(): Promise<void> {
  console.log('bench: preparing the bundled models (npm run assets)…');
  const assets = spawnSync(process.execPath, ['scripts/prepare-assets.ts'], { cwd: ROOT, stdio: 'inherit' });
  if (assets.status !== 0) throw new Error('scripts/prepare-assets.ts failed');
  console.log(`bench: vite build --mode bench → ${OUT_DIR}`);
  return import('vite').then(async ({ build }) => {
    await build({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), mode: 'bench', logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  });
}
