/**
 * What `npx inpage-llm schemas check` reads from disk, at the edge of the runner (which runs
 * anywhere: schemas-check.ts, schemas-check-tokenizer.ts): the files the arguments name, each
 * schema file, and the tokenizer of `--tokenizer DIR` or, by default, tiny-chat's, made by the
 * package's own code (src/tiny-models), so the command runs offline with nothing to fetch.
 * transformers.js reads the tokenizer files (the tokenizer classes the Node engine runs); it is
 * an optional peer of the package, loaded only here, and a message names what to install when it
 * is missing.
 * @module
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { explainMissingPeer } from '../node/missing-peer.ts';
import { decoderTextFiles, TINY_CHAT, TINY_CHAT_LAYOUT } from '../tiny-models/tiny-chat.ts';
import { parseSchemaFile, sampleFiles, type SchemaFile } from './schemas-check.ts';
import { checkTokenizerOf, idsOf, tokenizerFilesOf, type CheckTokenizer, type TokenizerFiles } from './schemas-check-tokenizer.ts';

/**
 * The files the arguments name: each file as given, each folder's *.json (not its sub-folders),
 * by name; then `sample` and `limit` as `sampleFiles` takes them. Throws for a path that is not
 * there.
 */
export async function schemaPaths(paths: readonly string[], options: { sample?: number; limit?: number } = {}): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new SchemaPathError(`${path}: no such file or folder.`);
    }
    if (!info.isDirectory()) files.push(path);
    else files.push(...(await readdir(path)).filter((name) => name.endsWith('.json')).sort().map((name) => join(path, name)));
  }
  return sampleFiles(files, options);
}

/** A path given that is not there: the user's mistake. */
export class SchemaPathError extends Error {}

/** One file as the runner reads it (`parseSchemaFile`); a file that cannot be read is unreadable as one that is not JSON. */
export async function readSchemaFile(file: string): Promise<SchemaFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { file, schema: undefined, tests: [], unreadable: `Not a JSON file: ${error instanceof Error ? error.message : String(error)}` };
  }
  return parseSchemaFile(file, text);
}

/** The tokenizer in `dir` (tokenizer.json and tokenizer_config.json; config.json's vocab_size if there), or tiny-chat's. */
export async function loadCheckTokenizer(dir?: string): Promise<CheckTokenizer> {
  const files = dir === undefined ? tinyChatFiles() : await folderFiles(resolve(dir));
  const transformers = await import('@huggingface/transformers').catch((error: unknown) => {
    throw explainMissingPeer(error);
  });
  return checkTokenizerOf(transformers, files, dir ?? 'tiny-chat (built in)');
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
  return tokenizerFilesOf({ tokenizer: tokenizer!, config: config!, ...(model ? { model } : {}), ...(generation ? { generation } : {}) });
}

/** A folder that does not hold a readable tokenizer: the user's mistake, told as such. */
export class TokenizerFolderError extends Error {}
