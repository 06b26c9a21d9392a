/**
 * Embeds texts on a loaded feature-extraction pipeline: the pipeline's own steps (tokenizer, model,
 * pooling, normalisation), run so that a text's vector never depends on its batch companions.
 *
 * Texts are tokenized once (which also gives the exact usage), then grouped by token length and
 * each group runs as one model call with no padding at all. A padded batch is not exact on every
 * backend (onnxruntime-web sums a padded row in another order, off in the last bits), while rows
 * of an unpadded batch go through the same arithmetic as the text alone. So any merging of
 * requests (see embed-batcher.ts) changes speed, not results. Groups are capped to bound memory.
 * @module
 */

import { cat, mean_pooling, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import type { EmbedResult, ModelInfo } from '../../core/engine.ts';
import { abortedError, GatewayError } from '../../core/errors.ts';

export interface EmbeddingOptions {
  readonly pooling: 'mean' | 'cls';
  readonly normalize: boolean;
}

const MAX_GROUP = 32;

type ModelInputs = Record<string, Tensor>;

export async function embedTexts(
  pipe: FeatureExtractionPipeline,
  info: ModelInfo,
  texts: readonly string[],
  options: EmbeddingOptions,
  signal: AbortSignal,
): Promise<EmbedResult> {
  const encoded = texts.map((text) => pipe.tokenizer(text, { truncation: false }) as unknown as ModelInputs);
  const counts = encoded.map((inputs) => inputs.input_ids!.dims.at(-1) ?? 0);
  const longest = Math.max(0, ...counts);
  if (longest > info.contextWindow) {
    const index = counts.indexOf(longest);
    throw new GatewayError('context_length_exceeded', `Input ${index} has ${longest} tokens; model "${info.id}" accepts at most ${info.contextWindow}.`, { param: 'input' });
  }

  const embeddings = new Array<Float32Array>(texts.length);
  for (const group of groupsOfEqualLength(counts)) {
    if (signal.aborted) throw abortedError();
    const inputs = concatRows(group.map((i) => encoded[i]!));
    const vectors = await embedRows(pipe, inputs, options);
    group.forEach((textIndex, row) => (embeddings[textIndex] = vectors[row]!));
  }
  if (signal.aborted) throw abortedError();
  return { embeddings, promptTokens: counts.reduce((a, b) => a + b, 0), inputTokens: counts };
}

/** Indices of texts with the same token count, in chunks of at most MAX_GROUP, in input order. */
function groupsOfEqualLength(counts: readonly number[]): number[][] {
  const byLength = new Map<number, number[]>();
  counts.forEach((n, i) => {
    const group = byLength.get(n) ?? [];
    byLength.set(n, group);
    group.push(i);
  });
  const groups: number[][] = [];
  for (const indices of byLength.values()) {
    for (let start = 0; start < indices.length; start += MAX_GROUP) groups.push(indices.slice(start, start + MAX_GROUP));
  }
  return groups;
}

function concatRows(rows: readonly ModelInputs[]): ModelInputs {
  if (rows.length === 1) return rows[0]!;
  const out: ModelInputs = {};
  for (const name of Object.keys(rows[0]!)) out[name] = cat(rows.map((row) => row[name]!), 0);
  return out;
}

/** The pipeline's own post-processing (feature-extraction `_call`), on unpadded rows. */
async function embedRows(pipe: FeatureExtractionPipeline, inputs: ModelInputs, options: EmbeddingOptions): Promise<Float32Array[]> {
  const outputs = (await pipe.model(inputs)) as Record<string, Tensor | undefined>;
  let result = (outputs.last_hidden_state ?? outputs.logits ?? outputs.token_embeddings)!;
  result = options.pooling === 'mean' ? mean_pooling(result, inputs.attention_mask!) : result.slice(null, 0);
  if (options.normalize) result = result.normalize(2, -1);
  const width = result.dims.at(-1) ?? 0;
  const data = result.to('float32').data as Float32Array;
  const vectors: Float32Array[] = [];
  for (let row = 0; row * width < data.length; row++) vectors.push(data.slice(row * width, (row + 1) * width));
  return vectors;
}
