// The real-shaped models come from the tiny models' builders (src/tiny-models) at catalog sizes:
// the same seed gives the same bytes, and the vocabularies have the real ones' sizes.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { afterAll, describe, expect, it } from 'vitest';
import { createPrng } from '../../src/tiny-models/prng.ts';
import { decoderTextFiles } from '../../src/tiny-models/tiny-chat.ts';
import { buildRealChat, chatTextOfTokens, QWEN2_5_0_5B, QWEN2_Q4_LAYOUT, SMALL_CHAT } from './real-chat.ts';
import { buildRealEmbed, MINILM_L6, realEmbedVocab, SMALL_EMBED } from './real-embed.ts';

const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex');
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('real-shaped builders', () => {
  it('give byte-identical files for the same seed, other weights (same tokenizer) for another', () => {
    for (const build of [(seed: number) => buildRealEmbed(createPrng(seed), SMALL_EMBED), (seed: number) => buildRealChat(createPrng(seed), SMALL_CHAT)]) {
      const hashes = (seed: number) => new Map([...build(seed)].map(([path, content]) => [path, sha256(content)]));
      const [a, b, c] = [hashes(1), hashes(1), hashes(2)];
      expect(b).toEqual(a);
      const model = [...a.keys()].find((path) => path.endsWith('.onnx'))!;
      expect(c.get(model)).not.toBe(a.get(model));
      expect(c.get('tokenizer.json')).toBe(a.get('tokenizer.json'));
    }
  });

  it('fill the embedder vocabulary to all-MiniLM-L6-v2 size with distinct entries', () => {
    const vocab = realEmbedVocab(MINILM_L6.vocabSize);
    expect(vocab).toHaveLength(30522);
    expect(new Set(vocab).size).toBe(30522);
    expect(vocab.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
  });

  it('fill the decoder vocabulary to Qwen2.5 size: one merge per token beyond the bytes, each merge of known tokens', () => {
    const { files, vocabSize } = decoderTextFiles(QWEN2_5_0_5B, QWEN2_Q4_LAYOUT);
    expect(vocabSize).toBe(151936);
    const { model } = JSON.parse(files.get('tokenizer.json') as string) as { model: { vocab: Record<string, number>; merges: string[] } };
    expect(Object.keys(model.vocab)).toHaveLength(151936);
    expect(model.merges).toHaveLength(151936 - 3 - 256);
    const known = (token: string) => Object.hasOwn(model.vocab, token);
    expect(model.merges.filter((merge) => {
      const [left = '', right = ''] = merge.split(' ');
      return !(known(left) && known(right) && known(left + right));
    })).toEqual([]);
    expect(JSON.parse(files.get('config.json') as string)).toMatchObject({ model_type: 'qwen2', vocab_size: 151936, num_key_value_heads: 2, tie_word_embeddings: true });
  });

  it('chatTextOfTokens(n) is n tokens of the real-shaped decoder vocabulary', async () => {
    const root = await mkdtemp(join(tmpdir(), 'real-chat-tokenizer-'));
    dirs.push(root);
    await mkdir(join(root, 'real-chat'));
    const { files } = decoderTextFiles(QWEN2_5_0_5B, QWEN2_Q4_LAYOUT);
    await Promise.all([...files].map(([path, content]) => writeFile(join(root, 'real-chat', path), content)));
    env.localModelPath = root;
    env.allowRemoteModels = false;
    const tokenizer = await AutoTokenizer.from_pretrained('real-chat');
    for (const n of [1, 8, 128, 1000]) expect(tokenizer.encode(chatTextOfTokens(n), { add_special_tokens: false })).toHaveLength(n);
  });
});
