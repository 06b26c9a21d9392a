/**
 * model2vec-bge-vq (a model2vec static embedder distilled from bge-base-en-v1.5, vocabulary-quantized:
 * 29,524 tokens share 128 vectors of 64) as a transformers.js `feature-extraction` model folder.
 * transformers.js has no model2vec class, so the ONNX graph gathers each token's vector,
 * `weights[id] × embeddings[mapping[id]]`, as `last_hidden_state`, and the config declares
 * `bert`; the engine's mean pooling and normalisation then give model2vec's own vector.
 *
 * model2vec tokenizes without special tokens and leaves `[UNK]` out of the mean; the graph gives
 * `[UNK]` a zero vector instead, which is the same once the mean is normalised (only the count
 * differs, and normalising removes any scale).
 * @module
 */
import { readFile } from 'node:fs/promises';
import type { TransformersModelSpec } from '../../../src/engines/catalog/transformers-model-spec.ts';
import { attr, GraphBuilder } from '../../../src/tiny-models/graph-builder.ts';
import { json, type ModelFiles } from '../../../src/tiny-models/model-files.ts';
import { DataType, encodeModel } from '../../../src/tiny-models/onnx-proto.ts';
import { readSafetensors } from './safetensors.ts';
import { sharedModelFile } from './shared-models.ts';

export const EMBEDDER_ID = 'model2vec-bge-vq';
export const EMBEDDER_DIMENSIONS = 64;

/** The authors' reference: the vector of `hello` said 1,000 times, joined by single spaces. */
export const REFERENCE_TEXT = Array.from({ length: 1000 }, () => 'hello').join(' ');

export async function readReferenceVector(): Promise<number[]> {
  const vectors = JSON.parse(await readFile(sharedModelFile('model2vec-bge-vq', 'expected-embeddings.json'), 'utf8')) as number[][];
  return vectors[0]!;
}

/** The paraphrase pairs (docs/guides/developing.md, "Models the tests run on"): each sentence's nearest neighbour among the six is its pair. */
export const PARAPHRASE_PAIRS = [
  ['The cat sat on the mat.', 'A kitten is sleeping on the rug.'],
  ['The stock market fell sharply today.', 'Shares dropped as investors panicked.'],
  ['How do I bake bread at home?', 'Recipe for homemade sourdough loaf.'],
] as const;

export async function buildModel2vec(): Promise<ModelFiles> {
  const tensors = readSafetensors(await readFile(sharedModelFile('model2vec-bge-vq', 'model.safetensors')));
  const tokenizerText = await readFile(sharedModelFile('model2vec-bge-vq', 'tokenizer.json'), 'utf8');
  const tokenizer = JSON.parse(tokenizerText) as { added_tokens: { id: number; content: string }[]; model: { unk_id: number } };
  const weights = tensors.get('weights')!;
  const embeddings = tensors.get('embeddings')!;
  const mapping = tensors.get('mapping')!;
  const [vocabSize] = weights.shape as [number];
  const [rows, width] = embeddings.shape as [number, number];
  if (width !== EMBEDDER_DIMENSIONS) throw new Error(`${EMBEDDER_ID}: vectors of ${width}, expected ${EMBEDDER_DIMENSIONS}`);

  const g = new GraphBuilder();
  const scale = Float32Array.from(weights.data as Float64Array);
  scale[tokenizer.model.unk_id] = 0;
  const rowOf = g.int64s(Array.from(mapping.data as Int32Array), [vocabSize]);
  const vectors = g.op('Gather', [g.weight('embeddings', [rows, width], embeddings.data as Float32Array), g.op('Gather', [rowOf, 'input_ids'])]);
  const scaled = g.op('Mul', [vectors, g.op('Unsqueeze', [g.op('Gather', [g.weight('weights', [vocabSize], scale), 'input_ids']), g.int64s([-1])])]);
  // Padding rows zero too: the pooling leaves them out anyway, by the same mask.
  const mask = g.op('Unsqueeze', [g.op('Cast', ['attention_mask'], [attr.i('to', DataType.FLOAT)]), g.int64s([-1])]);
  g.op('Mul', [scaled, mask], [], 'last_hidden_state');
  const model = encodeModel(g.build(EMBEDDER_ID, [
    { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
    { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
  ], [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', width] }]));

  const files: ModelFiles = new Map();
  files.set('config.json', json({ model_type: 'bert', architectures: ['BertModel'], vocab_size: vocabSize, hidden_size: width, 'transformers.js_config': { dtype: 'fp32' } }));
  files.set('tokenizer.json', tokenizerText);
  files.set('tokenizer_config.json', json({ tokenizer_class: 'PreTrainedTokenizer', pad_token: '[PAD]', unk_token: '[UNK]', clean_up_tokenization_spaces: false, model_max_length: 1_000_000 }));
  files.set('onnx/model.onnx', model);
  return files;
}

/** How the engine serves it from a folder holding it as `model2vec-bge-vq/`. */
export const embedderSpec: TransformersModelSpec = {
  info: { id: EMBEDDER_ID, kind: 'embedding', engine: 'transformers', displayName: 'model2vec-bge-vq (real weights)', contextWindow: 8192, dimensions: EMBEDDER_DIMENSIONS },
  source: EMBEDDER_ID,
  bundled: true,
  pooling: 'mean',
  normalize: true,
};
