/**
 * A real-shaped embedder: the tiny-embed graph (tiny-embed.ts) at the sizes of
 * Xenova/all-MiniLM-L6-v2 — BERT, 6 layers, hidden 384, 12 heads, intermediate 1536, 512 positions,
 * a WordPiece vocabulary of 30522, float32 `onnx/model.onnx` (about 90 MB) — with seeded random
 * weights. Random weights cost exactly what trained ones do, so benchmarks on it measure the real
 * model's download, load and inference costs without its files. Never committed: `npm run
 * models:real` writes it (see real-models.ts).
 *
 * The vocabulary is tiny-embed's (specials, characters, a few suffixes, two English word lists)
 * padded with synthetic words to 30522 entries. `textOfTokens(n)` builds a text of exactly n
 * tokens, which is how a benchmark controls input length.
 * @module
 */

import type { ModelFiles } from '../../src/tiny-models/model-files.ts';
import type { Prng } from '../../src/tiny-models/prng.ts';
import { buildEncoder, tinyEmbedVocab, type EncoderShape } from '../../src/tiny-models/tiny-embed.ts';
import { PROMPT_WORDS, STORY_WORDS } from '../../src/tiny-models/words.ts';

export interface RealEmbedShape extends EncoderShape {
  readonly vocabSize: number;
}

/** Xenova/all-MiniLM-L6-v2's sizes (its config.json). */
export const MINILM_L6: RealEmbedShape = {
  hiddenSize: 384,
  layers: 6,
  heads: 12,
  intermediateSize: 1536,
  maxPositions: 512,
  vocabSize: 30522,
};

/** The same code at a size the default test run can afford in a blink. */
export const SMALL_EMBED: RealEmbedShape = {
  hiddenSize: 32,
  layers: 2,
  heads: 4,
  intermediateSize: 64,
  maxPositions: 128,
  vocabSize: 2000,
};

/** The model's files; a smaller `shape` runs the same code (the fast tests use one). */
export function buildRealEmbed(prng: Prng, shape: RealEmbedShape = MINILM_L6): ModelFiles {
  return buildEncoder(prng, shape, realEmbedVocab(shape.vocabSize), 'real-embed');
}

/**
 * tiny-embed's vocabulary, then `##` + each syllable, then two- and three-syllable words
 * (consonant + vowel syllables: "boda", "kelimu"), until `size` entries.
 */
export function realEmbedVocab(size: number): string[] {
  const vocab = tinyEmbedVocab();
  const known = new Set(vocab);
  const add = (token: string): void => {
    if (vocab.length < size && !known.has(token)) {
      known.add(token);
      vocab.push(token);
    }
  };
  const syllables = [...'bcdfghjklmnprstvwz'].flatMap((c) => [...'aeiou'].map((v) => c + v));
  syllables.forEach((s) => add(`##${s}`));
  for (const a of syllables) for (const b of syllables) add(a + b);
  const count = syllables.length ** 3;
  // 7919 is prime and coprime with 90^3: i -> i * 7919 mod count visits every word once, scattered.
  for (let i = 0; i < count && vocab.length < size; i++) {
    const n = (i * 7919) % count;
    add(syllables[Math.floor(n / 8100)]! + syllables[Math.floor(n / 90) % 90]! + syllables[n % 90]!);
  }
  if (vocab.length !== size) throw new Error(`vocabulary of ${vocab.length} entries, asked for ${size}`);
  return vocab;
}

/** English words that are each one token of the vocabulary (and of tiny-embed's). */
const TEXT_WORDS: readonly string[] = [...new Set([...STORY_WORDS, ...PROMPT_WORDS])];

/**
 * A text that tokenizes to exactly `tokens` input ids — `[CLS]`, `tokens - 2` words, `[SEP]` — so
 * `tokens` is the sequence length the model runs on (at most `maxPositions`, 512). Lower-case
 * English words, one token each, in an order that varies along the text; `variant` shifts the
 * start so texts of the same length differ.
 */
export function textOfTokens(tokens: number, variant = 0): string {
  if (!Number.isInteger(tokens) || tokens < 2) throw new RangeError(`a text needs at least 2 tokens ([CLS] and [SEP]), asked for ${tokens}`);
  return Array.from({ length: tokens - 2 }, (_, i) => TEXT_WORDS[(variant + i * 37) % TEXT_WORDS.length]!).join(' ');
}
