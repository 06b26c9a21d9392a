/**
 * `npm run models:real`: writes the real-shaped models (seeded random weights at the sizes and
 * dtypes of catalog models, for benchmarks) into `.models/real/` (git-ignored), with
 * `manifest.json` giving each file's size and SRI hash. Models already there with the same seed
 * and shape are kept. About 10 s and 880 MB on 2 cores the first time.
 *
 *   npm run models:real                       # both models into .models/real/
 *   npm run models:real -- --only embed       # embed | chat (repeatable)
 *   npm run models:real -- --seed 7 --out ../real-models --force --verify
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_REAL_MODELS_DIR, generateRealModels, REAL_MODEL_IDS, type ModelReport, type RealModelKind } from '../bench/real-models/real-models.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    seed: { type: 'string' },
    only: { type: 'string', multiple: true },
    force: { type: 'boolean', default: false },
    verify: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  console.log('usage: npm run models:real -- [--out DIR] [--seed N] [--only embed|chat]... [--force] [--verify]');
  process.exit(0);
}

const kinds = Object.keys(REAL_MODEL_IDS) as RealModelKind[];
const only = values.only?.map((kind) => {
  if (!kinds.includes(kind as RealModelKind)) throw new Error(`--only takes ${kinds.join(' or ')}, not "${kind}"`);
  return kind as RealModelKind;
});
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isSafeInteger(seed)) throw new Error(`--seed takes an integer, not "${values.seed}"`);
const out = values.out === undefined ? DEFAULT_REAL_MODELS_DIR : resolve(values.out);

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const report = (r: ModelReport) => {
  const time = r.status === 'generated' ? `generated in ${(r.buildSeconds! + r.writeSeconds!).toFixed(1)} s (build ${r.buildSeconds!.toFixed(1)} s, hash + write ${r.writeSeconds!.toFixed(1)} s)` : 'kept (same seed and shape)';
  console.log(`${r.id}: ${r.entry.mimics}, seed ${r.entry.seed}: ${time}, ${mb(r.entry.bytes)}`);
  for (const [path, file] of Object.entries(r.entry.files)) console.log(`  ${path.padEnd(24)} ${String(file.bytes).padStart(11)} B  ${file.integrity}`);
};

const start = performance.now();
await generateRealModels(out, { seed, only, force: values.force, verify: values.verify, onModel: report });
console.log(`${out} (manifest.json) in ${((performance.now() - start) / 1000).toFixed(1)} s`);
