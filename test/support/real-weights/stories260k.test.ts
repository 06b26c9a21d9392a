/**
 * The stories260K conversion checked apart from the product: its tokenizer.json encodes as
 * llama2.c's own encoder does and decodes back byte for byte, and transformers.js on the ONNX graph
 * writes the published greedy continuation of `Once upon a time`, alone and in a left-padded
 * batch of different prompts (the conversation-cache and batching work rely on both).
 *
 * Defects these tests were checked to catch, by planting each in the conversion: rotary positions
 * one ahead on decoding steps, and the KV cache losing the previous step's entry (the greedy story
 * fails; the batch test too for the cache); a tokenizer_config.json with a generic tokenizer class
 * and `padding_side: 'right'` (the batch test fails: a short row's last position is padding).
 */
import { AutoModelForCausalLM, AutoTokenizer, env, type PreTrainedModel, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPrng } from '../../../src/tiny-models/prng.ts';
import { readStoryReference, realWeightsDir, removeRealWeightsDir, sharedModelsMissing, STORIES_ID, STORY_PROMPT, STORY_PROMPT_IDS, STORY_TOKENS } from './index.ts';
import { encodeLikeLlama2c, hfPieces, readLlama2cVocab, type Llama2cVocab } from './llama2c-tokenizer.ts';
import { sharedModelFile } from './shared-models.ts';

const missing = sharedModelsMissing();

describe('stories260K converted for transformers.js', () => {
  let tokenizer: PreTrainedTokenizer;
  let model: PreTrainedModel;
  let vocab: Llama2cVocab;
  let reference: string;
  beforeAll(async () => {
    if (missing) return;
    env.localModelPath = await realWeightsDir();
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    tokenizer = await AutoTokenizer.from_pretrained(STORIES_ID);
    model = await AutoModelForCausalLM.from_pretrained(STORIES_ID, { device: 'cpu', dtype: 'fp32' });
    vocab = readLlama2cVocab(await readFile(sharedModelFile('stories260K', 'tok512.bin')), 512);
    reference = await readStoryReference();
  });
  afterAll(removeRealWeightsDir);
  beforeEach((context) => context.skip(missing !== undefined, missing));

  const encode = (text: string) => Array.from(tokenizer.encode(text));

  it('declares the checkpoint\'s shape, and stops at BOS (the next story) or EOS', async () => {
    const dir = await realWeightsDir();
    const config = JSON.parse(await readFile(join(dir, STORIES_ID, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'llama', num_hidden_layers: 5, num_attention_heads: 8, num_key_value_heads: 4, head_dim: 8, hidden_size: 64, vocab_size: 512, max_position_embeddings: 512 });
    expect(JSON.parse(await readFile(join(dir, STORIES_ID, 'generation_config.json'), 'utf8')).eos_token_id).toEqual([1, 2]);
  });

  it('encodes the prompt as llama2.c does: BOS, then four pieces with their spaces', () => {
    expect(encode(STORY_PROMPT)).toEqual([...STORY_PROMPT_IDS]);
    expect(encodeLikeLlama2c(vocab, STORY_PROMPT)).toEqual([...STORY_PROMPT_IDS]);
    // A chat prompt is tokenized without special tokens: BOS comes from the template's `<s>`.
    expect(Array.from(tokenizer.encode(`<s>${STORY_PROMPT}`, { add_special_tokens: false }))).toEqual([...STORY_PROMPT_IDS]);
  });

  it('encodes the reference story, and seeded texts of pieces, bytes and stray characters, as llama2.c\'s encoder does', () => {
    const texts = [reference, ...reference.split('\n'), 'x', ' ', '  two  spaces ', 'tab\there', 'naïve café ☃ 🦊'];
    const prng = createPrng(39);
    const pieces = hfPieces(vocab).slice(259).map((p) => p.replaceAll('\u2581', ' '));
    const extras = ['\n', '\t', 'é', '€', '™', '😀', '\u200a', 'â', '<', '>', '0x'];
    for (let i = 0; i < 400; i++) {
      const length = 1 + (prng.uint32() % 12);
      let text = '';
      for (let j = 0; j < length; j++) text += prng.next() < 0.8 ? pieces[prng.uint32() % pieces.length] : extras[prng.uint32() % extras.length];
      texts.push(text);
    }
    for (const text of texts) expect(encode(text), JSON.stringify(text)).toEqual(encodeLikeLlama2c(vocab, text));
  });

  it('decodes back byte for byte: newlines from byte pieces, no space before the first word', () => {
    const ids = encodeLikeLlama2c(vocab, reference);
    expect(ids.filter((id) => id === 3 + 0x0a)).toHaveLength(3);
    expect(tokenizer.decode(ids, { skip_special_tokens: true })).toBe(reference);
  });

  it(`writes the published greedy story: ${STORY_TOKENS} new tokens, byte for byte`, async () => {
    const inputs = tokenizer(STORY_PROMPT) as { input_ids: Tensor; attention_mask: Tensor };
    const out = (await model.generate({ ...inputs, max_new_tokens: STORY_TOKENS, do_sample: false })) as Tensor;
    const ids = (out.tolist() as bigint[][])[0]!.map(Number);
    expect(ids).toHaveLength(STORY_PROMPT_IDS.length + STORY_TOKENS);
    expect(tokenizer.decode(ids, { skip_special_tokens: true })).toBe(reference);
  });

  it('gives each prompt of a left-padded batch what it gets alone', async () => {
    const prompts = [STORY_PROMPT, 'Lily', 'The dog ran to the park and saw a big', 'Tom had a red'];
    const greedy = async (texts: string[]) => {
      const inputs = tokenizer(texts, { padding: true }) as { input_ids: Tensor; attention_mask: Tensor };
      const out = (await model.generate({ ...inputs, max_new_tokens: 48, do_sample: false })) as Tensor;
      const width = inputs.input_ids.dims[1]!;
      // Up to the first stop: a finished row is padded after it.
      return (out.tolist() as bigint[][]).map((row) => {
        const text = row.slice(width).map(Number);
        const stop = text.findIndex((id) => id === 1 || id === 2);
        return stop < 0 ? text : text.slice(0, stop + 1);
      });
    };
    const alone = await Promise.all(prompts.map(async (p) => (await greedy([p]))[0]!));
    const batch = tokenizer(prompts, { padding: true }) as { attention_mask: Tensor };
    // The batch is really padded: the rows' lengths differ.
    expect(new Set((batch.attention_mask.tolist() as bigint[][]).map((row) => row.filter((m) => m === 1n).length)).size).toBe(prompts.length);
    expect(await greedy(prompts)).toEqual(alone);
    expect(new Set(alone.map((ids) => ids.join())).size).toBe(prompts.length);
  });
});
