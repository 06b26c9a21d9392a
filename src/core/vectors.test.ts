import { afterEach, describe, expect, it } from 'vitest';
import { float32ToBase64, truncateAndNormalize } from './vectors.ts';

/** What openai-node does with a base64 embedding: bytes → little-endian float32s. */
function decodeLittleEndian(base64: string): number[] {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  expect(bytes.byteLength % 4).toBe(0);
  const view = new DataView(bytes.buffer);
  return Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

function norm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}

describe('float32ToBase64', () => {
  it('encodes little-endian float32 bytes (hand-computed vector)', () => {
    // 0.5 = 0x3F000000, -1.25 = 0xBFA00000, 3 = 0x40400000, each written low byte first.
    expect(float32ToBase64(new Float32Array([0.5, -1.25, 3]))).toBe('AAAAPwAAoL8AAEBA');
  });

  it('is not the big-endian encoding', () => {
    expect(float32ToBase64(new Float32Array([0.5]))).not.toBe(btoa(String.fromCharCode(0x3f, 0, 0, 0)));
    expect(float32ToBase64(new Float32Array([0.5]))).toBe(btoa(String.fromCharCode(0, 0, 0, 0x3f)));
  });

  it('round-trips through a little-endian decode to the float32-rounded values', () => {
    const values = [0.1, -0.2, 1 / 3, 1e-8, -123456.789, 0, -0];
    const decoded = decodeLittleEndian(float32ToBase64(new Float32Array(values)));
    expect(decoded).toEqual(values.map((v) => Math.fround(v)));
  });

  it('encodes an empty vector as the empty string', () => {
    expect(float32ToBase64(new Float32Array(0))).toBe('');
  });

  it('encodes long vectors (several encoder chunks) exactly', () => {
    const vector = Float32Array.from({ length: 20_000 }, (_, i) => Math.sin(i) * 10);
    const base64 = float32ToBase64(vector);
    expect(base64).toBe(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64'));
    expect(decodeLittleEndian(base64)).toEqual(Array.from(vector));
  });

  describe('with a native Uint8Array.prototype.toBase64', () => {
    const proto = Uint8Array.prototype as Uint8Array & { toBase64?: () => string };
    const original = Object.getOwnPropertyDescriptor(proto, 'toBase64');
    afterEach(() => {
      if (original) Object.defineProperty(proto, 'toBase64', original);
      else delete proto.toBase64;
    });

    it('uses it and gets the same result', () => {
      let used = 0;
      Object.defineProperty(proto, 'toBase64', {
        configurable: true,
        writable: true,
        value(this: Uint8Array) {
          used++;
          return Buffer.from(this.buffer, this.byteOffset, this.byteLength).toString('base64');
        },
      });
      expect(float32ToBase64(new Float32Array([0.5, -1.25, 3]))).toBe('AAAAPwAAoL8AAEBA');
      expect(used).toBe(1);
    });
  });
});

describe('truncateAndNormalize', () => {
  it('keeps the first components and scales them to unit length', () => {
    const out = truncateAndNormalize(new Float32Array([3, 4, 12]), 2);
    expect(out).toHaveLength(2);
    expect(out[0]).toBeCloseTo(0.6, 6);
    expect(out[1]).toBeCloseTo(0.8, 6);
    expect(norm(out)).toBeCloseTo(1, 6);
  });

  it('returns unit vectors for arbitrary inputs and lengths', () => {
    const vector = Float32Array.from({ length: 64 }, (_, i) => Math.cos(i * 1.7) * (i + 1));
    for (const k of [1, 2, 7, 32, 64]) {
      const out = truncateAndNormalize(vector, k);
      expect(out).toHaveLength(k);
      expect(norm(out)).toBeCloseTo(1, 5);
      // Same direction: every component keeps its sign.
      for (let i = 0; i < k; i++) expect(Math.sign(out[i]!)).toBe(Math.sign(vector[i]!));
    }
  });

  it('does not modify its input', () => {
    const vector = new Float32Array([3, 4, 12]);
    truncateAndNormalize(vector, 2);
    expect(Array.from(vector)).toEqual([3, 4, 12]);
  });

  it('leaves an all-zero prefix as zeros instead of NaN', () => {
    expect(Array.from(truncateAndNormalize(new Float32Array([0, 0, 5]), 2))).toEqual([0, 0]);
  });
});
