/** Embedding vectors as the API sends them, and how alike they are. @module */

/** A base64 embedding: the vector's float32 values, little-endian, as openai-node decodes them. */
export function decodeBase64Float32(base64: string): Float32Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (bytes.length % 4 !== 0) throw new Error(`A base64 embedding of ${bytes.length} bytes is not whole float32 values.`);
  const view = new DataView(bytes.buffer);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** The embedding of either encoding as numbers. */
export function toVector(embedding: unknown): Float32Array {
  if (typeof embedding === 'string') return decodeBase64Float32(embedding);
  if (Array.isArray(embedding)) return Float32Array.from(embedding as number[]);
  throw new Error('An embedding is neither a number array nor a base64 string.');
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The full matrix (symmetric, ones on the diagonal up to rounding). */
export function cosineMatrix(vectors: readonly Float32Array[]): number[][] {
  return vectors.map((a) => vectors.map((b) => cosine(a, b)));
}
