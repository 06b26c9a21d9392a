/** Where the bench driver builds, locks and writes. @module */
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/**
 * The bench build: kept out of build/, which the playground build owns (and dist/, the package's).
 * BENCH_OUT_DIR puts it elsewhere: for a second checkout sharing this one's node_modules, whose
 * build would otherwise replace this one's pages (the lock below stays shared: one run at a time).
 */
export const OUT_DIR = process.env.BENCH_OUT_DIR ? resolve(process.env.BENCH_OUT_DIR) : join(ROOT, 'node_modules/.cache/inpage-llm-bench/dist');
export const LOCK = join(ROOT, 'node_modules/.cache/inpage-llm-bench/run.lock');
export const RESULTS = join(ROOT, 'bench/results');
/** The real-shaped generated models (`npm run models:real`), served under /inpage-llm/models/. */
export const REAL_MODELS = join(ROOT, '.models/real');
