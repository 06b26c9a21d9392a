/**
 * llama2.c's tokenizer (`tok512.bin`: int32 max_token_length, then per token a float32 score, an
 * int32 length and the bytes), its encoder as `run.c` writes it (the reference the conversion is
 * checked against), and the same vocabulary as a Hugging Face `tokenizer.json`: a SentencePiece-style
 * BPE with byte fallback, as Hugging Face's own Llama conversions are laid out.
 *
 * The export turned SentencePiece's `▁` into a plain space; the tokenizer.json turns it back (a
 * normalizer prepends `▁` and writes spaces as `▁`; the decoder undoes both), so it reads like any
 * converted Llama tokenizer. The one difference: a `▁` in the text itself reads as a space here (as
 * in SentencePiece), where llama2.c spells it in byte pieces; no story has one. Merges: llama2.c merges, anywhere in the text, the adjacent pair whose
 * concatenation is the vocabulary's best-scoring piece; a BPE merge list ranked by the merged
 * piece's score, every way of splitting each piece in two listed, does the same.
 * @module
 */

export interface Llama2cVocab {
  /** Each token's bytes, by id (BOS and EOS as the export stores them: `\n<s>\n`, `\n</s>\n`). */
  readonly pieces: readonly Uint8Array[];
  readonly scores: readonly number[];
}

export const UNK_ID = 0;
export const BOS_ID = 1;
export const EOS_ID = 2;
/** Ids 3–258 are the byte-fallback pieces `<0x00>`…`<0xFF>`. */
const FIRST_BYTE_ID = 3;

export function readLlama2cVocab(bytes: Uint8Array, vocabSize: number): Llama2cVocab {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pieces: Uint8Array[] = [];
  const scores: number[] = [];
  let offset = 4; // max_token_length: not needed to read
  for (let id = 0; id < vocabSize; id++) {
    scores.push(view.getFloat32(offset, true));
    const length = view.getInt32(offset + 4, true);
    pieces.push(bytes.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  if (offset !== bytes.byteLength) throw new Error(`llama2.c tokenizer: ${bytes.byteLength - offset} bytes left over after ${vocabSize} tokens`);
  return { pieces, scores };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * llama2.c's `encode` (run.c), BOS first, no EOS: a space is prepended to a non-empty text, each
 * character becomes its piece (or its UTF-8 bytes' fallback pieces), then the adjacent pair whose
 * concatenation is the best-scoring piece is merged (the leftmost among equals) until none is.
 */
export function encodeLikeLlama2c(vocab: Llama2cVocab, text: string): number[] {
  const idOf = new Map<string, number>();
  vocab.pieces.forEach((piece, id) => idOf.has(latin1(piece)) || idOf.set(latin1(piece), id));
  const encoder = new TextEncoder();
  const tokens: number[] = [BOS_ID];
  for (const char of text === '' ? '' : ` ${text}`) {
    const bytes = encoder.encode(char);
    const id = idOf.get(latin1(bytes));
    if (id !== undefined) tokens.push(id);
    else for (const byte of bytes) tokens.push(byte + FIRST_BYTE_ID);
  }
  for (;;) {
    let best = -Infinity;
    let at = -1;
    let merged = -1;
    for (let i = 1; i + 1 < tokens.length; i++) {
      const id = idOf.get(latin1(vocab.pieces[tokens[i]!]!) + latin1(vocab.pieces[tokens[i + 1]!]!));
      if (id !== undefined && vocab.scores[id]! > best) [best, at, merged] = [vocab.scores[id]!, i, id];
    }
    if (at < 0) return tokens;
    tokens.splice(at, 2, merged);
  }
}

/** Bytes as a string of the same length, so byte strings compare and concatenate exactly. */
function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}

const SPACE_MARK = '\u2581';
const SPECIAL_PIECES = ['<unk>', '<s>', '</s>'] as const;

/** The vocabulary as tokenizer.json spells it: specials by name, `▁` for spaces. */
export function hfPieces(vocab: Llama2cVocab): string[] {
  return vocab.pieces.map((piece, id) => SPECIAL_PIECES[id] ?? (id < FIRST_BYTE_ID + 256 ? utf8.decode(piece) : utf8.decode(piece).replaceAll(' ', SPACE_MARK)));
}

/** Every split of each merged piece into two pieces of the vocabulary, the best-scoring piece's first. */
export function mergesOf(vocab: Llama2cVocab): [string, string][] {
  const pieces = hfPieces(vocab);
  const mergeable = new Set(pieces.filter((_, id) => id >= FIRST_BYTE_ID + 256));
  const ranked: { left: string; right: string; score: number; id: number; at: number }[] = [];
  pieces.forEach((piece, id) => {
    if (id < FIRST_BYTE_ID + 256) return;
    const chars = [...piece];
    for (let at = 1; at < chars.length; at++) {
      const left = chars.slice(0, at).join('');
      const right = chars.slice(at).join('');
      if (mergeable.has(left) && mergeable.has(right)) ranked.push({ left, right, score: vocab.scores[id]!, id, at });
    }
  });
  ranked.sort((a, b) => b.score - a.score || a.id - b.id || a.at - b.at);
  return ranked.map(({ left, right }) => [left, right]);
}

/** tokenizer.json: the Llama layout of Hugging Face's SentencePiece conversions (byte fallback, `▁`). */
export function toTokenizerJson(vocab: Llama2cVocab): object {
  const pieces = hfPieces(vocab);
  const special = (id: number) => ({ id, content: pieces[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(UNK_ID), special(BOS_ID), special(EOS_ID)],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: SPACE_MARK }, { type: 'Replace', pattern: { String: ' ' }, content: SPACE_MARK }] },
    pre_tokenizer: null,
    // A plain text gets BOS, as llama2.c's encoder gives it; chat prompts get it from the template
    // (the engine tokenizes them without special tokens).
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '<s>', type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [BOS_ID], tokens: ['<s>'] } },
    },
    // llama2.c drops the dummy space after BOS when it prints; Strip drops the decoded text's first space.
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: SPACE_MARK }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab: Object.fromEntries(pieces.map((piece, id) => [piece, id])),
      merges: mergesOf(vocab),
    },
  };
}
