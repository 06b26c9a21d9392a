/**
 * `POST /embeddings`: input validation, Matryoshka `dimensions`, and the float / base64 encodings.
 * openai-node asks for base64 by default and decodes it itself, so both must be exact.
 * @see https://platform.openai.com/docs/api-reference/embeddings
 * @module
 */
import type { EmbedResult, ModelInfo } from '../../core/engine.ts';
import { describe, invalid, optionalNumber } from '../../core/fields.ts';
import { float32ToBase64, truncateAndNormalize } from '../../core/vectors.ts';

export interface ParsedEmbeddings {
  readonly input: string[];
  readonly encoding: 'float' | 'base64';
  /** Output length when the caller asked for fewer than the model's native dimensions. */
  readonly dimensions?: number;
}

/** OpenAI's own per-request cap on the number of inputs. */
export const MAX_EMBEDDING_INPUTS = 2048;

export function parseEmbeddings(body: Readonly<Record<string, unknown>>, model: ModelInfo): ParsedEmbeddings {
  const encoding = body.encoding_format ?? 'float';
  if (encoding !== 'float' && encoding !== 'base64') {
    throw invalid('encoding_format', `Invalid value for 'encoding_format' = ${describe(encoding)}. Supported values: ['float', 'base64'].`);
  }
  const dimensions = optionalNumber(body, 'dimensions', { integer: true, min: 1 });
  const native = model.dimensions;
  if (dimensions !== undefined && dimensions !== native) {
    if (!model.supportsDimensions) {
      throw invalid('dimensions', `This model does not support specifying dimensions: '${model.id}' always returns ${native ?? 'its native'} dimensions.`);
    }
    if (native !== undefined && dimensions > native) {
      throw invalid('dimensions', `Invalid 'dimensions': ${dimensions}. '${model.id}' supports at most ${native}.`);
    }
  }
  return { input: parseInput(body.input), encoding, ...(dimensions !== undefined && dimensions !== native ? { dimensions } : {}) };
}

function parseInput(input: unknown): string[] {
  if (input === undefined || input === null) throw invalid('input', `Missing required parameter: 'input'.`);
  if (typeof input === 'string') {
    if (!input) throw invalid('input', `Invalid 'input': empty string. Expected a string with minimum length 1.`);
    return [input];
  }
  if (!Array.isArray(input)) throw invalid('input', `Invalid type for 'input': expected a string or an array of strings, but got ${describe(input)}.`);
  if (input.length === 0) throw invalid('input', `Invalid 'input': empty array. Expected an array with minimum length 1.`);
  if (input.length > MAX_EMBEDDING_INPUTS) {
    throw invalid('input', `Invalid 'input': array too long. Expected an array with maximum length ${MAX_EMBEDDING_INPUTS}, but got ${input.length}.`);
  }
  return input.map((item, i) => {
    if (typeof item === 'number' || (Array.isArray(item) && item.every((t) => typeof t === 'number'))) {
      throw invalid(`input[${i}]`, `Token-id input is not supported by this server: send the text instead.`);
    }
    if (typeof item !== 'string') throw invalid(`input[${i}]`, `Invalid type for 'input[${i}]': expected a string, but got ${describe(item)}.`);
    if (!item) throw invalid(`input[${i}]`, `Invalid 'input[${i}]': empty string. Expected a string with minimum length 1.`);
    return item;
  });
}

export function toEmbeddingsResponse(result: EmbedResult, request: ParsedEmbeddings, model: string) {
  return {
    object: 'list',
    model,
    data: result.embeddings.map((vector, index) => {
      const shaped = request.dimensions === undefined ? vector : truncateAndNormalize(vector, request.dimensions);
      return { object: 'embedding', index, embedding: request.encoding === 'base64' ? float32ToBase64(shaped) : Array.from(shaped) };
    }),
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
  };
}
