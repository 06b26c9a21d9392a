/**
 * Embeddings through web-llm, one text per call: web-llm right-pads a batch, and a padded member's
 * vector differs from the same text embedded alone, while single calls are reproducible.
 * @module
 */

import type { EmbedResult } from '../../core/engine.ts';
import { abortedError, GatewayError, isGatewayError } from '../../core/errors.ts';
import type { MLCEngineLike } from './mlc-engine-like.ts';
import { unitLength } from '../../core/vectors.ts';

export interface EmbedOptions {
  /** The catalog id, for error messages. */
  readonly model: string;
  /** The loaded web-llm `model_id`. */
  readonly variant: string;
  /**
   * Scale to unit length. web-llm returns the raw first-token (CLS) state; its embedding models
   * (snowflake-arctic-embed) define the embedding as that state L2-normalised.
   */
  readonly normalize: boolean;
  readonly signal: AbortSignal;
}

export async function embedTexts(engine: MLCEngineLike, input: readonly string[], options: EmbedOptions): Promise<EmbedResult> {
  const embeddings: Float32Array[] = [];
  const inputTokens: number[] = [];
  for (const text of input) {
    if (options.signal.aborted) throw abortedError();
    let response;
    try {
      response = await engine.embeddings.create({ input: [text], model: options.variant });
    } catch (error) {
      throw toEmbedError(error, options.model);
    }
    const vector = response.data[0]?.embedding;
    if (!vector) throw new GatewayError('internal', `web-llm returned no embedding for model "${options.model}".`);
    const values = Float32Array.from(vector);
    embeddings.push(options.normalize ? unitLength(values) : values);
    // web-llm counts a text's tokens without padding: exact per text.
    inputTokens.push(response.usage.prompt_tokens);
  }
  return { embeddings, promptTokens: inputTokens.reduce((sum, n) => sum + n, 0), inputTokens };
}

function toEmbedError(error: unknown, model: string): GatewayError {
  if (isGatewayError(error)) return GatewayError.from(error);
  if (error instanceof Error && error.name === 'EmbeddingExceedContextWindowSizeError') {
    return new GatewayError('context_length_exceeded', `An input is too long for model "${model}": ${error.message}`, { param: 'input', cause: error });
  }
  return GatewayError.from(error);
}
