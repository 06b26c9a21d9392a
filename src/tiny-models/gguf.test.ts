import { describe, expect, it } from 'vitest';
import { createPrng } from './prng.ts';
import { buildGgufDecoder } from './gguf-decoder.ts';
import { encodeGguf, f32, f32Bytes, fromHalf, GgmlType, q4_0Blocks, q8_0Blocks, toHalf, u32 } from './gguf.ts';
import type { DecoderShape } from './tiny-chat.ts';

const SMALL_CHAT = { hiddenSize: 64, layers: 2, heads: 4, kvHeads: 2, headDim: 16, intermediateSize: 128, maxPositions: 2048, stopAfter: 2048, ropeTheta: 1e6, rmsNormEps: 1e-6, vocabSize: 4096 } as const satisfies DecoderShape;

/** A reader of what encodeGguf writes, written from the format's description (gguf.md), not from the writer. */
function readGguf(bytes: Uint8Array) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const u32r = () => ((at += 4), view.getUint32(at - 4, true));
  const u64r = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
  const str = () => {
    const n = u64r();
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const value = (type: number): unknown => {
    switch (type) {
      case 4: return u32r();
      case 5: return ((at += 4), view.getInt32(at - 4, true));
      case 6: return ((at += 4), view.getFloat32(at - 4, true));
      case 7: return ((at += 1), view.getUint8(at - 1) === 1);
      case 8: return str();
      case 9: {
        const inner = u32r();
        const n = u64r();
        return Array.from({ length: n }, () => value(inner));
      }
      default: throw new Error(`type ${type}`);
    }
  };
  expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('GGUF');
  at = 4;
  expect(u32r()).toBe(3);
  const tensorCount = u64r();
  const kvCount = u64r();
  const metadata = new Map<string, unknown>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    metadata.set(key, value(u32r()));
  }
  const tensors = Array.from({ length: tensorCount }, () => {
    const name = str();
    const dims = Array.from({ length: u32r() }, u64r);
    return { name, dims, type: u32r(), offset: u64r() };
  });
  const dataStart = Math.ceil(at / 32) * 32;
  return { metadata, tensors, dataStart };
}

describe('GGUF writer', () => {
  it('writes metadata and tensors a reader of the format reads back, each tensor at a 32-byte boundary', () => {
    const a = f32Bytes(Float32Array.from([1, 2, 3]));
    const b = q8_0Blocks(Int8Array.from({ length: 32 }, (_, i) => i - 16), Float32Array.of(0.5));
    const file = encodeGguf([['general.architecture', 'llama'], ['llama.block_count', u32(5)], ['x.eps', f32(1e-5)], ['tokenizer.ggml.tokens', ['a', 'bé']], ['flag', false], ['types', { i32s: [1, -3] }]], [
      { name: 'a', dims: [3], type: GgmlType.F32, data: a },
      { name: 'b', dims: [32, 1], type: GgmlType.Q8_0, data: b },
    ]);
    const { metadata, tensors, dataStart } = readGguf(file);
    expect(metadata.get('general.architecture')).toBe('llama');
    expect(metadata.get('llama.block_count')).toBe(5);
    expect(metadata.get('x.eps')).toBeCloseTo(1e-5, 10);
    expect(metadata.get('tokenizer.ggml.tokens')).toEqual(['a', 'bé']);
    expect(metadata.get('flag')).toBe(false);
    expect(metadata.get('types')).toEqual([1, -3]);
    expect(tensors).toEqual([{ name: 'a', dims: [3], type: 0, offset: 0 }, { name: 'b', dims: [32, 1], type: 8, offset: 32 }]);
    expect(new Float32Array(file.slice(dataStart, dataStart + 12).buffer)).toEqual(Float32Array.from([1, 2, 3]));
    expect(file.subarray(dataStart + 32, dataStart + 32 + 34)).toEqual(b);
    expect(file.byteLength).toBe(dataStart + 32 + 34 + (32 - 34 % 32));
  });

  it('refuses a tensor whose bytes do not match its type and dims', () => {
    expect(() => encodeGguf([], [{ name: 'w', dims: [32, 2], type: GgmlType.Q4_0, data: new Uint8Array(18) }])).toThrow(/18 bytes for 36/);
    expect(() => encodeGguf([], [{ name: 'w', dims: [30], type: GgmlType.Q4_0, data: new Uint8Array(18) }])).toThrow(/whole blocks/);
  });

  it('packs Q4_0 as ggml does: a half scale, elements 0-15 in the low nibbles, 16-31 in the high ones', () => {
    const codes = Uint8Array.from({ length: 32 }, (_, i) => i % 16);
    const block = q4_0Blocks(codes, Float32Array.of(0.25));
    expect(block.byteLength).toBe(18);
    expect(fromHalf(block[0]! | (block[1]! << 8))).toBe(0.25);
    for (let j = 0; j < 16; j++) {
      expect(block[2 + j]! & 15).toBe(codes[j]);
      expect(block[2 + j]! >> 4).toBe(codes[j + 16]);
    }
  });

  it('converts to IEEE half with round-to-nearest-even, subnormals and overflow included', () => {
    for (const v of [0, 1, -2, 0.1, 65504, 6.1e-5, 3e-7, 1e-3, 1 / 3]) expect(Math.abs(fromHalf(toHalf(v)) - v)).toBeLessThanOrEqual(Math.abs(v) * 2 ** -11 + 2 ** -25);
    expect(toHalf(1)).toBe(0x3c00);
    expect(toHalf(-2)).toBe(0xc000);
    expect(toHalf(1e6)).toBe(0x7c00);
    expect(toHalf(1 + 2 ** -11)).toBe(0x3c00); // a tie rounds to the even mantissa
    expect(toHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it('writes the decoder as llama.cpp names a qwen2 model: its tensors, shapes, vocabulary and template', () => {
    const file = buildGgufDecoder(createPrng(1), SMALL_CHAT, { weights: 'q4_0', architecture: 'qwen2', name: 'small' });
    const { metadata, tensors } = readGguf(file);
    expect(metadata.get('general.architecture')).toBe('qwen2');
    expect(metadata.get('qwen2.block_count')).toBe(SMALL_CHAT.layers);
    expect((metadata.get('tokenizer.ggml.tokens') as string[]).length).toBe(SMALL_CHAT.vocabSize);
    expect(metadata.get('tokenizer.ggml.eos_token_id')).toBe(2);
    const byName = new Map(tensors.map((t) => [t.name, t]));
    expect(byName.get('token_embd.weight')).toMatchObject({ dims: [64, 4096], type: GgmlType.Q8_0 });
    expect(byName.get('blk.1.attn_k.weight')).toMatchObject({ dims: [64, 32], type: GgmlType.Q4_0 });
    expect(byName.get('blk.1.attn_k.bias')).toMatchObject({ dims: [32], type: GgmlType.F32 });
    expect(byName.get('blk.0.ffn_down.weight')).toMatchObject({ dims: [128, 64], type: GgmlType.Q4_0 });
    expect(byName.has('output.weight')).toBe(false); // tied: llama.cpp reads token_embd
    expect(tensors.length).toBe(1 + SMALL_CHAT.layers * 12 + 1);
    // Same seed, same bytes.
    expect(buildGgufDecoder(createPrng(1), SMALL_CHAT, { weights: 'q4_0', architecture: 'qwen2', name: 'small' })).toEqual(file);
  });
});
