/**
 * stories260K (Karpathy's 260K-parameter Llama trained on TinyStories, a llama2.c checkpoint) as a
 * transformers.js `text-generation` model folder: `onnx/model.onnx` (llama-graph.ts), config.json,
 * generation_config.json, tokenizer.json (llama2c-tokenizer.ts) and tokenizer_config.json with a
 * test chat template: BOS, then the messages' text, so a chat prompt is exactly the text llama2.c
 * was given, and a conversation is the same prompt as its turns joined in one message.
 * @module
 */
import { AutoModelForCausalLM, AutoTokenizer, env, type Tensor } from '@huggingface/transformers';
import { readFile } from 'node:fs/promises';
import type { ModelFiles } from '../../../src/tiny-models/model-files.ts';
import { json } from '../../../src/tiny-models/model-files.ts';
import type { TransformersModelSpec } from '../../../src/engines/catalog/transformers-model-spec.ts';
import { readLlama2cCheckpoint } from './llama2c-checkpoint.ts';
import { BOS_ID, EOS_ID, readLlama2cVocab, toTokenizerJson } from './llama2c-tokenizer.ts';
import { buildLlamaGraph, RMS_NORM_EPS, ROPE_THETA } from './llama-graph.ts';
import { sharedModelFile } from './shared-models.ts';

export const STORIES_ID = 'stories260K';
/** The published prompt, and how many tokens it is with BOS: [1, 403, 407, 261, 378]. */
export const STORY_PROMPT = 'Once upon a time';
export const STORY_PROMPT_IDS = [BOS_ID, 403, 407, 261, 378] as const;
/** The published greedy output is this many new tokens. */
export const STORY_TOKENS = 252;
/** The test template: BOS, then each message's text as it is. */
export const STORY_CHAT_TEMPLATE = '{{ bos_token }}{% for message in messages %}{{ message[\'content\'] }}{% endfor %}';

/** The published greedy output of `Once upon a time`, prompt included (the file's final newline is run.c's, printed after the loop). */
export async function readStoryReference(): Promise<string> {
  const text = await readFile(sharedModelFile('stories260K', 'greedy-once-upon-a-time.txt'), 'utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** What the model writes after the prompt: the reply a chat request gets. */
export async function readStoryContinuation(): Promise<string> {
  const reference = await readStoryReference();
  if (!reference.startsWith(STORY_PROMPT)) throw new Error('the reference output does not start with its prompt');
  return reference.slice(STORY_PROMPT.length);
}

export async function buildStories260k(): Promise<ModelFiles> {
  const weights = readLlama2cCheckpoint(await readFile(sharedModelFile('stories260K', 'stories260K.bin')));
  const { dim, hiddenDim, layers, heads, kvHeads, vocabSize, seqLen } = weights.config;
  const vocab = readLlama2cVocab(await readFile(sharedModelFile('stories260K', 'tok512.bin')), vocabSize);
  const files: ModelFiles = new Map();
  // A story ends where the next begins (BOS), or at EOS.
  const stops = [BOS_ID, EOS_ID];
  files.set('config.json', json({
    model_type: 'llama',
    architectures: ['LlamaForCausalLM'],
    vocab_size: vocabSize,
    hidden_size: dim,
    intermediate_size: hiddenDim,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: dim / heads,
    max_position_embeddings: seqLen,
    rms_norm_eps: RMS_NORM_EPS,
    rope_theta: ROPE_THETA,
    tie_word_embeddings: true,
    bos_token_id: BOS_ID,
    eos_token_id: stops,
    'transformers.js_config': { dtype: 'fp32' },
  }));
  files.set('generation_config.json', json({ bos_token_id: BOS_ID, eos_token_id: stops }));
  files.set('tokenizer.json', json(toTokenizerJson(vocab)));
  files.set('tokenizer_config.json', json({
    tokenizer_class: 'LlamaTokenizer',
    bos_token: '<s>',
    eos_token: '</s>',
    unk_token: '<unk>',
    add_bos_token: true,
    add_eos_token: false,
    // A batch is padded on the left, so every row's last position is its own last token.
    // transformers.js's LlamaTokenizer pads on the left whatever this says; the generic class reads it.
    padding_side: 'left',
    clean_up_tokenization_spaces: false,
    model_max_length: seqLen,
    chat_template: STORY_CHAT_TEMPLATE,
  }));
  files.set('onnx/model.onnx', buildLlamaGraph(weights));
  return files;
}

/** How the engine serves it from a folder holding it as `stories260K/`. */
export const storiesSpec: TransformersModelSpec = {
  info: { id: STORIES_ID, kind: 'chat', engine: 'transformers', displayName: 'stories260K (TinyStories, real weights)', contextWindow: 512, maxOutputTokens: 512 },
  source: STORIES_ID,
  bundled: true,
};

/**
 * The greedy story's tokens as transformers.js writes them on the converted model, so a test can
 * cut it at any token count: `prefix(n)` is the text of the first n new tokens. That this is the
 * published story is checked apart (stories260k.test.ts); tests compare whole stories with the
 * published text itself.
 */
export async function greedyStoryTokens(dir: string): Promise<{ ids: number[]; prefix(n: number): string }> {
  env.localModelPath = dir;
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  const tokenizer = await AutoTokenizer.from_pretrained(STORIES_ID);
  const model = await AutoModelForCausalLM.from_pretrained(STORIES_ID, { device: 'cpu', dtype: 'fp32' });
  try {
    const out = (await model.generate({ ...(tokenizer(STORY_PROMPT) as object), max_new_tokens: STORY_TOKENS, do_sample: false })) as Tensor;
    const ids = (out.tolist() as bigint[][])[0]!.slice(STORY_PROMPT_IDS.length).map(Number);
    return { ids, prefix: (n) => tokenizer.decode(ids.slice(0, n), { skip_special_tokens: true }) };
  } finally {
    await model.dispose();
  }
}
