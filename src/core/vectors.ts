/** Vector helpers for embeddings: Matryoshka truncation and the base64 wire encoding. @module */

/** The first `dimensions` components, scaled back to unit length. */
export function truncateAndNormalize(vector: Float32Array, dimensions: number): Float32Array {
  return unitLength(vector.slice(0, dimensions));
}

/** Scales `vector` in place to unit (L2) length, and returns it; a zero vector stays zero. */
export function unitLength(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}

/** Standard base64 of the vector's IEEE-754 float32 bytes, little-endian (what openai-node decodes). */
export function float32ToBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true);
  return bytesToBase64(bytes);
}

function bytesToBase64(bytes: Uint8Array): string {
  const native = (bytes as Uint8Array & { toBase64?: () => string }).toBase64;
  if (typeof native === 'function') return native.call(bytes);
  let binary = '';
  const step = 0x8000; // keeps String.fromCharCode's argument list well under engine limits
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}
