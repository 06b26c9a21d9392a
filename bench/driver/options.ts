/** The command-line options of `npm run bench` (listed in bench/run.ts). @module */

export type Device = 'wasm' | 'webgpu';
export type Profile = 'quick' | 'short' | 'full';
export type Options = ReturnType<typeof parseArgs>;

/** The sections each page runs, in order (bench/pages/bench.ts, bench/pages/real.ts). */
export const SECTIONS = {
  tiny: ['latency', 'stream', 'grammar', 'embeddings', 'burst'],
  real: ['main', 'curves', 'memory', 'backends', 'one-worker'],
} as const;

export function parseArgs(argv: string[]) {
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  const device = value('--device') ?? 'both';
  if (!['wasm', 'webgpu', 'both'].includes(device)) throw new Error(`--device must be wasm, webgpu or both (got ${device})`);
  const driver = value('--driver') ?? 'chromium';
  if (!['chromium', 'playwright'].includes(driver)) throw new Error(`--driver must be chromium or playwright (got ${driver})`);
  const runs = Number(value('--runs') ?? '1');
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1 (got ${value('--runs')})`);
  const models = value('--models') ?? 'tiny';
  if (!['tiny', 'real'].includes(models)) throw new Error(`--models must be tiny or real (got ${models})`);
  // A misspelt section would otherwise run nothing and report every figure as not measured.
  const sections = value('--sections')?.split(',');
  const known: readonly string[] = SECTIONS[models as 'tiny' | 'real'];
  const unknown = sections?.filter((name) => !known.includes(name)) ?? [];
  if (unknown.length) throw new Error(`--sections: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a section of the ${models === 'real' ? 'real-size' : 'main'} page (${known.join(', ')})`);
  const threads = value('--threads')?.split(',').map(Number);
  if (threads?.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--threads takes whole numbers ≥ 1, comma-separated (got ${value('--threads')})`);
  const count = (name: string) => {
    const given = value(name);
    if (given === undefined) return undefined;
    if (!/^[1-9]\d*$/.test(given)) throw new Error(`${name} takes a whole number ≥ 1 (got ${given})`);
    return Number(given);
  };
  const sample = count('--sample');
  const limit = count('--limit');
  const wasmWeights = value('--wasm-weights') ?? 'q8';
  if (!['q4', 'q8'].includes(wasmWeights)) throw new Error(`--wasm-weights must be q4 or q8 (got ${wasmWeights})`);
  const profile = value('--profile');
  if (profile !== undefined && !['quick', 'short', 'full'].includes(profile)) throw new Error(`--profile must be quick, short or full (got ${profile})`);
  return {
    device: device as Device | 'both',
    quick: argv.includes('--quick'),
    profile: profile as Profile | undefined,
    sections,
    load: !argv.includes('--no-load'),
    main: !argv.includes('--no-main'),
    build: !argv.includes('--no-build'),
    driver: driver as 'chromium' | 'playwright',
    runs,
    /** `real`: the real-size page on the real-shaped generated models instead of the main and load pages. */
    models: models as 'tiny' | 'real',
    /** The prefix-cache benchmark (conversation-run.ts) instead of the pages above. */
    conversation: argv.includes('--conversation'),
    /** The drafted-decoding benchmark (drafts-run.ts) instead of the pages above. */
    drafts: argv.includes('--drafts'),
    /** The structured-output benchmark (structured-run.ts) instead of the pages above. */
    structured: argv.includes('--structured'),
    /** With `--structured`: the browser's weights on WASM (default q8, what the catalog's Qwen loads there). */
    wasmWeights: wasmWeights as 'q4' | 'q8',
    /** With `--conversation`, `--cpu-paths`, `--schemas` or `--structured`: its Node part (`--no-node` skips it). */
    node: !argv.includes('--no-node'),
    /** The CPU-path comparison (cpu-paths-run.ts) instead of the pages above. */
    cpuPaths: argv.includes('--cpu-paths'),
    /** With `--cpu-paths`: the thread counts (default 1 and every core, at most 4). */
    threads,
    /** With `--cpu-paths`: only the candidates whose name holds one of these (`wllama`, `plain q4`). */
    candidates: value('--candidates')?.split(','),
    /** The MaskBench runner in a browser worker beside the Node CLI (schemas-run.ts) instead of the pages above. */
    schemas: argv.includes('--schemas'),
    /** With `--schemas`: the files, sampled as `schemas check --sample` samples them, then the first `limit`. */
    sample,
    limit,
    /** With `--schemas`: the tokenizer folder (default the real-shaped Qwen2.5's). */
    tokenizer: value('--tokenizer'),
  };
}
