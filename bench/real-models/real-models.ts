/**
 * Writes the real-shaped models (real-embed.ts, real-chat.ts) into a folder, by default the
 * git-ignored `.models/real/`, one subfolder per model, with `manifest.json` beside them: per model
 * what it mimics, the seed, shape and generator version it was made with, and each file's size and
 * SRI hash (`sha256-<base64>`), in the form the catalog's `files` takes.
 *
 * A model whose manifest entry matches (same generator version, seed, shape and layout) and whose
 * files are all there with the recorded sizes is kept, not made again (`verify` also re-hashes
 * them). Deterministic: the same seed gives byte-identical files, so the hashes are stable.
 *
 * Run by `npm run models:real` (scripts/real-models.ts).
 * @module
 */

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED } from '../../src/tiny-models/generate.ts';
import { json, type ModelFiles } from '../../src/tiny-models/model-files.ts';
import { createPrng, type Prng } from '../../src/tiny-models/prng.ts';
import { buildGgufDecoder } from '../../src/tiny-models/gguf-decoder.ts';
import { buildDecoder, decoderTextFiles } from '../../src/tiny-models/tiny-chat.ts';
import { buildRealChat, QWEN2_5_0_5B, QWEN2_Q4_LAYOUT, QWEN2_Q8_LAYOUT } from './real-chat.ts';
import { buildRealEmbed, MINILM_L6 } from './real-embed.ts';

/**
 * Bump when a builder's output changes for the same seed and shape (a fix to the graph, the
 * vocabulary or the encoder), so models made before are made again rather than kept.
 */
export const REAL_MODELS_GENERATOR = 1;

/** The repository's `.models/real/` (git-ignored). */
export const DEFAULT_REAL_MODELS_DIR = fileURLToPath(new URL('../../.models/real/', import.meta.url));

export const REAL_MODEL_IDS = {
  embed: 'minilm-l6-shaped',
  chat: 'qwen2.5-0.5b-q4-shaped',
  // The CPU-path comparison's variants (cpu-paths in bench/run.ts), made only when asked for.
  'chat-q8': 'qwen2.5-0.5b-q8-shaped',
  'chat-gguf-q4_0': 'qwen2.5-0.5b-q4_0-gguf-shaped',
  'chat-gguf-q8_0': 'qwen2.5-0.5b-q8_0-gguf-shaped',
} as const;
/** What `npm run models:real` and the other benchmarks make when no model is named. */
export const DEFAULT_REAL_MODELS: readonly RealModelKind[] = ['embed', 'chat'];
export type RealModelKind = keyof typeof REAL_MODEL_IDS;

interface Recipe {
  readonly kind: RealModelKind;
  /** The catalog model and file whose architecture, sizes and dtype it has. */
  readonly mimics: string;
  /** transformers.js `dtype` that loads it. */
  readonly dtype: 'fp32' | 'q4' | 'q8' | 'gguf-q4_0' | 'gguf-q8_0';
  readonly seedOffset: number;
  readonly shape: object;
  readonly layout?: object;
  build(prng: Prng): ModelFiles;
}

const RECIPES: readonly Recipe[] = [
  {
    kind: 'embed',
    mimics: 'Xenova/all-MiniLM-L6-v2 onnx/model.onnx (fp32)',
    dtype: 'fp32',
    seedOffset: 0,
    shape: MINILM_L6,
    build: (prng) => buildRealEmbed(prng),
  },
  {
    kind: 'chat',
    mimics: 'onnx-community/Qwen2.5-0.5B-Instruct onnx/model_q4.onnx (q4)',
    dtype: 'q4',
    // One PRNG stream per model, as for the tiny models.
    seedOffset: 1,
    shape: QWEN2_5_0_5B,
    layout: QWEN2_Q4_LAYOUT,
    build: (prng) => buildRealChat(prng),
  },
  {
    kind: 'chat-q8',
    mimics: 'onnx-community/Qwen2.5-0.5B-Instruct onnx/model_quantized.onnx (q8: int8 projections, one int8 tied table)',
    dtype: 'q8',
    seedOffset: 2,
    shape: QWEN2_5_0_5B,
    layout: QWEN2_Q8_LAYOUT,
    build: (prng) => buildDecoder(prng, QWEN2_5_0_5B, QWEN2_Q8_LAYOUT),
  },
  ...(['q4_0', 'q8_0'] as const).map((weights, i): Recipe => ({
    kind: `chat-gguf-${weights}`,
    mimics: `Qwen/Qwen2.5-0.5B-Instruct-GGUF qwen2.5-0.5b-instruct-${weights}.gguf`,
    dtype: `gguf-${weights}`,
    seedOffset: 3 + i,
    shape: QWEN2_5_0_5B,
    layout: { weights, architecture: 'qwen2', name: 'qwen2.5-0.5b-shaped' },
    build: (prng) => {
      const { files } = decoderTextFiles(QWEN2_5_0_5B, QWEN2_Q4_LAYOUT);
      // The tokenizer and template are the ONNX model's, for the same prompts' token counts.
      files.delete('config.json');
      files.set(GGUF_FILE, buildGgufDecoder(prng, QWEN2_5_0_5B, { weights, architecture: 'qwen2', name: 'qwen2.5-0.5b-shaped' }));
      return files;
    },
  })),
];

/** The llama.cpp model's file in its folder. */
export const GGUF_FILE = 'model.gguf';

/** A file as the catalog checks it: `FileCheck` of src/engines/files/file-integrity.ts, both fields set. */
export interface RealFileCheck {
  readonly bytes: number;
  readonly integrity: string;
}

export interface ManifestEntry {
  readonly mimics: string;
  readonly dtype: string;
  readonly generator: number;
  readonly seed: number;
  readonly shape: object;
  readonly layout?: object;
  /** All files together. */
  readonly bytes: number;
  readonly files: Readonly<Record<string, RealFileCheck>>;
}

export interface Manifest {
  readonly models: Readonly<Record<string, ManifestEntry>>;
}

export interface RealModelsOptions {
  readonly seed?: number;
  /** Which models (default both). */
  readonly only?: readonly RealModelKind[];
  /** Make them again even when the manifest says they are there. */
  readonly force?: boolean;
  /** Re-hash kept files against the manifest (a mismatch makes the model again). */
  readonly verify?: boolean;
  /** Called as each model is done. */
  readonly onModel?: (report: ModelReport) => void;
}

export interface ModelReport {
  readonly id: string;
  readonly kind: RealModelKind;
  readonly dir: string;
  readonly status: 'generated' | 'kept';
  readonly entry: ManifestEntry;
  /** Generated models: seconds building the files in memory, and hashing + writing them. */
  readonly buildSeconds?: number;
  readonly writeSeconds?: number;
}

export const MANIFEST = 'manifest.json';

/** Makes (or keeps) the models under `outDir` and returns the manifest and what was done. */
export async function generateRealModels(outDir: string = DEFAULT_REAL_MODELS_DIR, options: RealModelsOptions = {}): Promise<{ manifest: Manifest; reports: ModelReport[] }> {
  const seed = options.seed ?? DEFAULT_SEED;
  const wanted = new Set(options.only ?? DEFAULT_REAL_MODELS);
  await mkdir(outDir, { recursive: true });
  const models: Record<string, ManifestEntry> = { ...(await readManifest(outDir)).models };
  const reports: ModelReport[] = [];
  for (const recipe of RECIPES.filter((r) => wanted.has(r.kind))) {
    const id = REAL_MODEL_IDS[recipe.kind];
    const dir = join(outDir, id);
    const header = {
      mimics: recipe.mimics,
      dtype: recipe.dtype,
      generator: REAL_MODELS_GENERATOR,
      seed: seed + recipe.seedOffset,
      shape: recipe.shape,
      ...(recipe.layout ? { layout: recipe.layout } : {}),
    };
    const previous = models[id];
    if (!options.force && previous && sameRecipe(previous, header) && (await filesPresent(dir, previous, options.verify ?? false))) {
      const report: ModelReport = { id, kind: recipe.kind, dir, status: 'kept', entry: previous };
      reports.push(report);
      options.onModel?.(report);
      continue;
    }
    // The old entry goes first: a run cut short never leaves an entry describing files it replaced.
    delete models[id];
    await writeManifest(outDir, { models });
    let start = performance.now();
    const files = recipe.build(createPrng(header.seed));
    const buildSeconds = (performance.now() - start) / 1000;
    start = performance.now();
    await rm(dir, { recursive: true, force: true });
    const checks: Record<string, RealFileCheck> = {};
    for (const [path, content] of files) {
      const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      checks[path] = { bytes: bytes.byteLength, integrity: sri(bytes) };
      const target = join(dir, path);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(`${target}.partial`, bytes);
      await rename(`${target}.partial`, target);
    }
    files.clear();
    const entry: ManifestEntry = { ...header, bytes: Object.values(checks).reduce((sum, f) => sum + f.bytes, 0), files: checks };
    models[id] = entry;
    await writeManifest(outDir, { models });
    const report: ModelReport = { id, kind: recipe.kind, dir, status: 'generated', entry, buildSeconds, writeSeconds: (performance.now() - start) / 1000 };
    reports.push(report);
    options.onModel?.(report);
  }
  return { manifest: { models }, reports };
}

/** `sha256-<base64>`, the Subresource Integrity form. */
export function sri(bytes: Uint8Array): string {
  return `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
}

export async function readManifest(outDir: string): Promise<Manifest> {
  try {
    const parsed = JSON.parse(await readFile(join(outDir, MANIFEST), 'utf8')) as Partial<Manifest>;
    return { models: parsed.models ?? {} };
  } catch {
    return { models: {} };
  }
}

async function writeManifest(outDir: string, manifest: Manifest): Promise<void> {
  // Models in recipe order, so the same models give the same manifest bytes.
  const order = Object.values(REAL_MODEL_IDS) as string[];
  const ids = Object.keys(manifest.models).sort((a, b) => rank(order, a) - rank(order, b) || a.localeCompare(b));
  const target = join(outDir, MANIFEST);
  await writeFile(`${target}.partial`, json({ models: Object.fromEntries(ids.map((id) => [id, manifest.models[id]])) }));
  await rename(`${target}.partial`, target);
}

function rank(order: readonly string[], id: string): number {
  const at = order.indexOf(id);
  return at < 0 ? order.length : at;
}

function sameRecipe(entry: ManifestEntry, header: Omit<ManifestEntry, 'bytes' | 'files'>): boolean {
  const pick = (e: Omit<ManifestEntry, 'bytes' | 'files'>) => JSON.stringify([e.mimics, e.dtype, e.generator, e.seed, e.shape, e.layout ?? null]);
  return pick(entry) === pick(header);
}

async function filesPresent(dir: string, entry: ManifestEntry, verify: boolean): Promise<boolean> {
  for (const [path, check] of Object.entries(entry.files)) {
    const file = join(dir, path);
    const size = await stat(file).then((s) => s.size, () => -1);
    if (size !== check.bytes) return false;
    if (verify && sri(await readFile(file)) !== check.integrity) return false;
  }
  return true;
}
