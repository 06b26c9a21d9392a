/**
 * The tokenizer `npx inpage-llm schemas check` measures with, made from a tokenizer's parsed files
 * (tokenizer.json, tokenizer_config.json, and the model's stop tokens and logits size where its
 * config says them) by transformers.js's tokenizer classes, the ones the Node engine runs. No Node
 * API here: the CLI reads the files from a folder (schemas-check-files.ts), the browser bench
 * fetches them (bench/pages/workers/schemas-check.ts), and both make the same tokenizer.
 * @module
 */
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Vocabulary } from '../engines/grammar/vocabulary.ts';
import { tokenizerVocabulary } from '../engines/transformers/tokenizer-vocabulary.ts';

export interface CheckTokenizer {
  /** Where it was read from, as the report names it. */
  readonly source: string;
  readonly vocabulary: Vocabulary;
  /** The text's tokens as the tokenizer encodes it, without special tokens added. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** A tokenizer's files, parsed. */
export interface TokenizerFiles {
  readonly tokenizer: object;
  readonly config: object;
  /** The model's logits per step, where the folder has its config.json. */
  readonly logitsSize?: number;
  /** The model's own stop tokens (config.json, generation_config.json), where the folder has them. */
  readonly eosTokenIds?: readonly number[];
}

/** What of transformers.js the tokenizer is made with (the module itself, loaded by the caller). */
export type TransformersModule = typeof import('@huggingface/transformers');

/** Spellings of the end of a reply in the families whose tokenizer.json leaves it out of `eos_token`. */
const STOP_SPELLINGS = ['<|im_end|>', '<|endoftext|>', '<|eot_id|>', '<end_of_turn>'];

/** The tokenizer of `files`, named `source` in the report. */
export function checkTokenizerOf(transformers: TransformersModule, files: TokenizerFiles, source: string): CheckTokenizer {
  const config = files.config as { tokenizer_class?: string };
  // As AutoTokenizer picks the class (its name without "Fast"), without its file loading, which
  // would look under env.localModelPath, a setting of the whole process.
  const named = (transformers as unknown as Record<string, unknown>)[config.tokenizer_class?.replace(/Fast$/, '') ?? ''];
  const Tokenizer = typeof named === 'function' && named.prototype instanceof transformers.PreTrainedTokenizer ? (named as typeof transformers.PreTrainedTokenizer) : transformers.PreTrainedTokenizer;
  const tokenizer = new Tokenizer(files.tokenizer, files.config);
  const vocabulary = tokenizerVocabulary(tokenizer, files.logitsSize, stopTokenIds(tokenizer, files.eosTokenIds));
  return {
    source,
    vocabulary,
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
  };
}

/**
 * The files of a tokenizer folder, from its parsed JSON files by name (tokenizer.json and
 * tokenizer_config.json; config.json and generation_config.json where there).
 */
export function tokenizerFilesOf(read: { tokenizer: object; config: object; model?: Record<string, unknown>; generation?: Record<string, unknown> }): TokenizerFiles {
  const size = read.model?.vocab_size;
  const eos = idsOf(read.generation?.eos_token_id ?? read.model?.eos_token_id);
  return { tokenizer: read.tokenizer, config: read.config, ...(Number.isInteger(size) ? { logitsSize: size as number } : {}), ...(eos.length ? { eosTokenIds: eos } : {}) };
}

export function idsOf(value: unknown): number[] {
  return (Array.isArray(value) ? value : [value]).filter((id): id is number => Number.isInteger(id));
}

/**
 * The tokens that end a reply, as the model's files say (what the Node engine stops at); a folder
 * with only the tokenizer: its eos token and whichever of the usual end-of-turn tokens it has.
 */
function stopTokenIds(tokenizer: PreTrainedTokenizer, fromModel: readonly number[] | undefined): number[] {
  if (fromModel?.length) return [...fromModel];
  const vocab = (tokenizer as unknown as { get_vocab(): Map<string, number> | Record<string, number> }).get_vocab();
  const idOf = (token: string) => (vocab instanceof Map ? vocab.get(token) : Object.hasOwn(vocab, token) ? vocab[token] : undefined);
  const ids = [tokenizer.eos_token_id, ...STOP_SPELLINGS.map(idOf)].filter((id): id is number => Number.isInteger(id));
  return [...new Set(ids)];
}
