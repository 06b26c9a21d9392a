/**
 * A tokenizer's vocabulary as the output constraints see it: each token's bytes, which tokens
 * stop, which are never text, and one request's constraint, step by step. Shared by the grammar
 * engine (token-constraint.ts) and the schema matcher's masks (token-masks/).
 * @module
 */

/** How a tokenizer's vocabulary maps to bytes (xgrammar's names). */
export type VocabType = 'byte_level' | 'byte_fallback' | 'raw';

export interface Vocabulary {
  /** Each token's string as the tokenizer stores it, by id ('' where an id has no token). */
  readonly tokens: readonly string[];
  readonly type: VocabType;
  /** SentencePiece tokenizers that add a leading space to the text. */
  readonly prependSpace: boolean;
  /** The model's logits length (at least the vocabulary's). */
  readonly size: number;
  /** Tokens that end generation: allowed exactly where the constrained output may end. */
  readonly stopTokenIds: readonly number[];
  /**
   * The tokenizer's special tokens (its added tokens marked `special`: `<|im_start|>`, `[INST]`).
   * They are never text: xgrammar 0.1.27 reads them as their spelling and would let one into a
   * JSON string, so the UTF-8 gate forbids them (a stop token among them: only where it may stop).
   */
  readonly specialTokenIds?: readonly number[];
}

/** One request's constraint, step by step. */
export interface TokenConstraint {
  /** Allowed tokens for the next step as a bitmask (bit i of word i>>5), or undefined while it is being computed. */
  mask(): Int32Array | undefined;
  /** Resolves once the mask for the next step is ready. */
  ready(): Promise<void>;
  /**
   * Tokens that must come next, from the state after the last token taken, for the decoder to
   * append without a sampling step (each then taken with `accept`); empty where the next token is
   * the model's to choose. Absent where the constraint cannot tell.
   */
  forced?(): readonly number[];
  /** Takes the token generated; false when the grammar did not allow it (a bug: the mask forbids it). */
  accept(token: number): boolean;
  /** The output is complete (a stop token was accepted). */
  readonly terminated: boolean;
  dispose(): void;
}

/**
 * A token's bytes as the tokenizer decodes it. Byte-level tokens spell each byte with one
 * character (GPT-2's map); a token with a character outside that map is an added token, stored
 * as its plain text. Exported for its test.
 */
export function tokenBytes(token: string, type: VocabType): number[] {
  if (type === 'byte_fallback' && /^<0x[0-9A-Fa-f]{2}>$/.test(token)) return [parseInt(token.slice(3, 5), 16)];
  // SentencePiece spells a space as U+2581 (`▁the` is " the").
  if (type === 'byte_fallback') return [...new TextEncoder().encode(token.replaceAll('\u2581', ' '))];
  if (type === 'byte_level') return byteLevelBytes(token) ?? [...new TextEncoder().encode(token)];
  return [...new TextEncoder().encode(token)];
}

/** GPT-2's byte-to-unicode map, inverted: each character of a byte-level token is one byte. */
let byteOf: Map<string, number> | undefined;
function byteLevelBytes(token: string): number[] | undefined {
  if (!byteOf) {
    byteOf = new Map();
    let extra = 0;
    for (let b = 0; b < 256; b++) {
      const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
      byteOf.set(String.fromCharCode(printable ? b : 256 + extra++), b);
    }
  }
  const bytes: number[] = [];
  for (const char of token) {
    const byte = byteOf.get(char);
    // Not a byte-level spelling (an added token's plain text). A special token may well be one:
    // every character of `<|im_end|>` is printable ASCII, which the map keeps as itself; special
    // tokens are told apart by id (`Vocabulary.specialTokenIds`), not by spelling.
    if (byte === undefined) return undefined;
    bytes.push(byte);
  }
  return bytes;
}

