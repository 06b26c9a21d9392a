/**
 * The tokenizer `npx inpage-llm schemas check` measures with: one read from a folder's
 * tokenizer.json and tokenizer_config.json (`--tokenizer DIR`), or, by default, tiny-chat's, made
 * by the package's own code (src/tiny-models), so the command runs offline with nothing to fetch.
 * transformers.js reads the files (the tokenizer classes the Node engine runs); it is an optional
 * peer of the package, loaded only here, and a message names what to install when it is missing.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import type { Vocabulary } from '../engines/grammar/vocabulary.ts';
import { tokenizerVocabulary } from '../engines/transformers/tokenizer-vocabulary.ts';
import { explainMissingPeer } from '../node/missing-peer.ts';
import { decoderTextFiles, TINY_CHAT, TINY_CHAT_LAYOUT } from '../tiny-models/tiny-chat.ts';

export interface CheckTokenizer {
  /** Where it was read from, as the report names it. */
  readonly source: string;
  readonly vocabulary: Vocabulary;
  /** The text's tokens as the tokenizer encodes it, without special tokens added. */
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** Spellings of the end of a reply in the families whose tokenizer.json leaves it out of `eos_token`. */
const STOP_SPELLINGS = ['<|im_end|>', '<|endoftext|>', '<|eot_id|>', '<end_of_turn>'];

/** The tokenizer in `dir` (tokenizer.json and tokenizer_config.json; config.json's vocab_size if there), or tiny-chat's. */
export async function loadCheckTokenizer(dir?: string): Promise<CheckTokenizer> {
  const files = dir === undefined ? tinyChatFiles() : await folderFiles(resolve(dir));
  const transformers = await import('@huggingface/transformers').catch((error: unknown) => {
    throw explainMissingPeer(error);
  });
  const config = files.config as { tokenizer_class?: string };
  // As AutoTokenizer picks the class (its name without "Fast"), without its file loading, which
  // would look under env.localModelPath, a setting of the whole process.
  const named = (transformers as unknown as Record<string, unknown>)[config.tokenizer_class?.replace(/Fast$/, '') ?? ''];
  const Tokenizer = typeof named === 'function' && named.prototype instanceof transformers.PreTrainedTokenizer ? (named as typeof transformers.PreTrainedTokenizer) : transformers.PreTrainedTokenizer;
  const tokenizer = new Tokenizer(files.tokenizer, files.config);
  const vocabulary = tokenizerVocabulary(tokenizer, files.logitsSize, stopTokenIds(tokenizer, files.eosTokenIds));
  return {
    source: dir ?? 'tiny-chat (built in)',
    vocabulary,
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }),
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false }),
  };
}

interface TokenizerFiles {
  readonly tokenizer: object;
  readonly config: object;
  /** The model's logits per step, where the folder has its config.json. */
  readonly logitsSize?: number;
  /** The model's own stop tokens (config.json, generation_config.json), where the folder has them. */
  readonly eosTokenIds?: readonly number[];
}

function tinyChatFiles(): TokenizerFiles {
  const { files, vocabSize } = decoderTextFiles(TINY_CHAT, TINY_CHAT_LAYOUT);
  const read = (name: string) => JSON.parse(files.get(name) as string) as Record<string, unknown>;
  return { tokenizer: read('tokenizer.json'), config: read('tokenizer_config.json'), logitsSize: vocabSize, eosTokenIds: idsOf(read('generation_config.json').eos_token_id) };
}

async function folderFiles(dir: string): Promise<TokenizerFiles> {
  const read = async (name: string, required: boolean): Promise<Record<string, unknown> | undefined> => {
    let text: string;
    try {
      text = await readFile(join(dir, name), 'utf8');
    } catch (error) {
      if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new TokenizerFolderError(`--tokenizer ${dir}: cannot read ${name} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new TokenizerFolderError(`--tokenizer ${dir}: ${name} is not JSON (${error instanceof Error ? error.message : String(error)}).`);
    }
  };
  const [tokenizer, config, model, generation] = await Promise.all([read('tokenizer.json', true), read('tokenizer_config.json', true), read('config.json', false), read('generation_config.json', false)]);
  const size = model?.vocab_size;
  const eos = idsOf(generation?.eos_token_id ?? model?.eos_token_id);
  return { tokenizer: tokenizer!, config: config!, ...(Number.isInteger(size) ? { logitsSize: size as number } : {}), ...(eos.length ? { eosTokenIds: eos } : {}) };
}

/** A folder that does not hold a readable tokenizer: the user's mistake, told as such. */
export class TokenizerFolderError extends Error {}

function idsOf(value: unknown): number[] {
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
