import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { MAX_EMBEDDING_INPUTS, parseEmbeddings, toEmbeddingsResponse } from './embeddings.ts';

const FLEX: ModelInfo = { id: 'embed-flex', kind: 'embedding', engine: 'test', contextWindow: 128, dimensions: 4, supportsDimensions: true };
const FIXED: ModelInfo = { id: 'embed-fixed', kind: 'embedding', engine: 'test', contextWindow: 128, dimensions: 4 };

function paramOf(body: Record<string, unknown>, model = FLEX): string | undefined {
  try {
    parseEmbeddings({ model: model.id, input: 'hello', ...body }, model);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    return (error as GatewayError).param;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

function decodeLittleEndian(base64: string): number[] {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

const VECTORS = [new Float32Array([0.5, -0.5, 0.5, -0.5]), new Float32Array([0.1, 0.2, 0.3, 0.4])];

describe('parseEmbeddings', () => {
  it('reads one string, float by default', () => {
    expect(parseEmbeddings({ model: 'embed-flex', input: 'hello' }, FLEX)).toEqual({ input: ['hello'], encoding: 'float' });
  });

  it('reads an array of strings and base64', () => {
    expect(parseEmbeddings({ model: 'x', input: ['a', 'b'], encoding_format: 'base64' }, FLEX)).toEqual({ input: ['a', 'b'], encoding: 'base64' });
  });

  it('treats a null encoding_format as float', () => {
    expect(parseEmbeddings({ model: 'x', input: 'a', encoding_format: null }, FLEX).encoding).toBe('float');
  });

  it('keeps dimensions below native for a model that supports them', () => {
    expect(parseEmbeddings({ model: 'x', input: 'a', dimensions: 2 }, FLEX).dimensions).toBe(2);
  });

  it('ignores dimensions equal to native, even on a fixed model', () => {
    const parsed = parseEmbeddings({ model: 'x', input: 'a', dimensions: 4 }, FIXED);
    expect(parsed).toEqual({ input: ['a'], encoding: 'float' });
  });

  it('accepts exactly the maximum number of inputs', () => {
    expect(parseEmbeddings({ model: 'x', input: Array(MAX_EMBEDDING_INPUTS).fill('a') }, FLEX).input).toHaveLength(MAX_EMBEDDING_INPUTS);
  });

  it.each([
    ['encoding_format unknown', { encoding_format: 'hex' }, 'encoding_format'],
    ['encoding_format a number', { encoding_format: 5 }, 'encoding_format'],
    ['encoding_format in capitals', { encoding_format: 'FLOAT' }, 'encoding_format'],
    ['input missing', { input: undefined }, 'input'],
    ['input null', { input: null }, 'input'],
    ['input empty string', { input: '' }, 'input'],
    ['input empty array', { input: [] }, 'input'],
    ['input a number', { input: 5 }, 'input'],
    ['input an object', { input: { text: 'a' } }, 'input'],
    ['input too many items', { input: Array(MAX_EMBEDDING_INPUTS + 1).fill('a') }, 'input'],
    ['input a token array', { input: [1, 2, 3] }, 'input[0]'],
    ['input token arrays', { input: [[1, 2], [3]] }, 'input[0]'],
    ['input with an empty second string', { input: ['a', ''] }, 'input[1]'],
    ['input with a null item', { input: ['a', null] }, 'input[1]'],
    ['input with an object item', { input: ['a', 'b', {}] }, 'input[2]'],
    ['dimensions 0', { dimensions: 0 }, 'dimensions'],
    ['dimensions fractional', { dimensions: 1.5 }, 'dimensions'],
    ['dimensions a string', { dimensions: '2' }, 'dimensions'],
    ['dimensions above native', { dimensions: 5 }, 'dimensions'],
  ])('rejects %s', (_, body, param) => {
    expect(paramOf(body)).toBe(param);
  });

  it('rejects dimensions other than native on a model without support', () => {
    expect(paramOf({ dimensions: 2 }, FIXED)).toBe('dimensions');
  });

  it('uses the documented wording for a bad encoding_format', () => {
    expect(() => parseEmbeddings({ model: 'x', input: 'a', encoding_format: 'hex' }, FLEX)).toThrow(
      "Invalid value for 'encoding_format' = 'hex'. Supported values: ['float', 'base64'].",
    );
  });
});

describe('toEmbeddingsResponse', () => {
  it('shapes a float response with exactly the documented keys, in input order', () => {
    const body = toEmbeddingsResponse({ embeddings: VECTORS, promptTokens: 6 }, { input: ['a', 'b'], encoding: 'float' }, 'embed-flex');
    expect(Object.keys(body).sort()).toEqual(['data', 'model', 'object', 'usage']);
    expect(body.object).toBe('list');
    expect(body.model).toBe('embed-flex');
    expect(body.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
    expect(body.data).toHaveLength(2);
    body.data.forEach((item, i) => {
      expect(Object.keys(item).sort()).toEqual(['embedding', 'index', 'object']);
      expect(item.object).toBe('embedding');
      expect(item.index).toBe(i);
      expect(item.embedding).toEqual(Array.from(VECTORS[i]!));
    });
  });

  it('encodes base64 as little-endian float32 that decodes to the float values', () => {
    const floats = toEmbeddingsResponse({ embeddings: VECTORS, promptTokens: 6 }, { input: ['a', 'b'], encoding: 'float' }, 'm');
    const base64 = toEmbeddingsResponse({ embeddings: VECTORS, promptTokens: 6 }, { input: ['a', 'b'], encoding: 'base64' }, 'm');
    base64.data.forEach((item, i) => {
      expect(typeof item.embedding).toBe('string');
      expect(decodeLittleEndian(item.embedding as string)).toEqual(floats.data[i]!.embedding);
    });
  });

  it('truncates to the requested dimensions and renormalises', () => {
    const body = toEmbeddingsResponse({ embeddings: [new Float32Array([3, 4, 1, 1])], promptTokens: 1 }, { input: ['a'], encoding: 'float', dimensions: 2 }, 'm');
    const vector = body.data[0]!.embedding as number[];
    expect(vector).toHaveLength(2);
    expect(vector[0]).toBeCloseTo(0.6, 6);
    expect(vector[1]).toBeCloseTo(0.8, 6);
  });

  it('truncates base64 output too (4 bytes per dimension)', () => {
    const body = toEmbeddingsResponse({ embeddings: [new Float32Array([3, 4, 1, 1])], promptTokens: 1 }, { input: ['a'], encoding: 'base64', dimensions: 2 }, 'm');
    const decoded = decodeLittleEndian(body.data[0]!.embedding as string);
    expect(decoded).toHaveLength(2);
    expect(decoded[0]).toBeCloseTo(0.6, 6);
  });
});
