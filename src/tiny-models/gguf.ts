/**
 * A GGUF writer (version 3, llama.cpp's model file), beside the ONNX one (onnx-proto.ts): a header,
 * typed metadata, tensor descriptions, then each tensor's bytes at a 32-byte boundary. Enough for
 * the generated models llama.cpp loads (the real-shaped benchmark decoder, stories260K's
 * conversion): float32 tensors and the two block formats the CPU benchmark compares, Q4_0 and
 * Q8_0, whose blocks are built here from codes and scales (see `q4_0Blocks`, `q8_0Blocks`).
 *
 * Dimensions are given as ggml orders them, the fastest first: a linear layer of K inputs and N
 * outputs is `[K, N]`, its bytes N rows of K (PyTorch's [out, in] row-major).
 * @module
 */

/** ggml's tensor types used here (ggml.h `enum ggml_type`). */
export const GgmlType = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 8 } as const;
export type GgmlType = (typeof GgmlType)[keyof typeof GgmlType];

/** Elements per block, and bytes per block, of each type. */
const BLOCK: Record<GgmlType, { elements: number; bytes: number }> = {
  [GgmlType.F32]: { elements: 1, bytes: 4 },
  [GgmlType.F16]: { elements: 1, bytes: 2 },
  [GgmlType.Q4_0]: { elements: 32, bytes: 18 },
  [GgmlType.Q8_0]: { elements: 32, bytes: 34 },
};

/** GGUF metadata value types (gguf.h `enum gguf_type`). */
const T = { U8: 0, I8: 1, U16: 2, I16: 3, U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9, U64: 10, I64: 11, F64: 12 } as const;

/** A metadata value with its GGUF type; strings and booleans are typed by themselves. */
export type GgufValue =
  | string
  | boolean
  | { readonly u32: number }
  | { readonly i32: number }
  | { readonly f32: number }
  | readonly string[]
  | { readonly i32s: readonly number[] }
  | { readonly f32s: readonly number[] };

export const u32 = (v: number): GgufValue => ({ u32: v });
export const i32 = (v: number): GgufValue => ({ i32: v });
export const f32 = (v: number): GgufValue => ({ f32: v });

export interface GgufTensor {
  readonly name: string;
  /** ggml order: fastest-varying first. */
  readonly dims: readonly number[];
  readonly type: GgmlType;
  readonly data: Uint8Array;
}

const ALIGNMENT = 32;
const encoder = new TextEncoder();

/** The bytes a tensor of `dims` takes in `type`. */
export function tensorBytes(dims: readonly number[], type: GgmlType): number {
  const elements = dims.reduce((a, b) => a * b, 1);
  const { elements: per, bytes } = BLOCK[type];
  if (dims[0]! % per !== 0) throw new Error(`a row of ${dims[0]} elements is not whole blocks of ${per}`);
  return (elements / per) * bytes;
}

/** A GGUF file of the metadata (in order) and tensors. */
export function encodeGguf(metadata: ReadonlyArray<readonly [string, GgufValue]>, tensors: readonly GgufTensor[]): Uint8Array {
  const head = new ByteWriter();
  head.u32(0x46554747); // "GGUF"
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.length);
  for (const [key, value] of metadata) {
    head.string(key);
    writeValue(head, value);
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    const bytes = tensorBytes(t.dims, t.type);
    if (bytes !== t.data.byteLength) throw new Error(`${t.name}: ${t.data.byteLength} bytes for ${bytes}`);
    head.string(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(t.type);
    head.u64(offset);
    offsets.push(offset);
    offset = align(offset + bytes);
  }
  const headBytes = head.bytes();
  const dataStart = align(headBytes.byteLength);
  const out = new Uint8Array(dataStart + offset);
  out.set(headBytes, 0);
  tensors.forEach((t, i) => out.set(t.data, dataStart + offsets[i]!));
  return out;
}

const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

function writeValue(w: ByteWriter, value: GgufValue): void {
  if (typeof value === 'string') return (w.u32(T.STRING), w.string(value));
  if (typeof value === 'boolean') return (w.u32(T.BOOL), w.u8(value ? 1 : 0));
  if (Array.isArray(value)) {
    w.u32(T.ARRAY);
    w.u32(T.STRING);
    w.u64(value.length);
    for (const s of value as readonly string[]) w.string(s);
    return;
  }
  const v = value as Exclude<GgufValue, string | boolean | readonly string[]>;
  if ('u32' in v) return (w.u32(T.U32), w.u32(v.u32));
  if ('i32' in v) return (w.u32(T.I32), w.i32(v.i32));
  if ('f32' in v) return (w.u32(T.F32), w.f32(v.f32));
  w.u32(T.ARRAY);
  if ('i32s' in v) {
    w.u32(T.I32);
    w.u64(v.i32s.length);
    for (const n of v.i32s) w.i32(n);
  } else {
    w.u32(T.F32);
    w.u64(v.f32s.length);
    for (const n of v.f32s) w.f32(n);
  }
}

/** A growable little-endian buffer for the header. */
class ByteWriter {
  private buf = new Uint8Array(1 << 16);
  private view = new DataView(this.buf.buffer);
  private at = 0;
  private room(n: number): void {
    if (this.at + n <= this.buf.byteLength) return;
    const next = new Uint8Array(Math.max(this.buf.byteLength * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.room(1);
    this.view.setUint8(this.at, v);
    this.at += 1;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }
  i32(v: number): void {
    this.room(4);
    this.view.setInt32(this.at, v, true);
    this.at += 4;
  }
  f32(v: number): void {
    this.room(4);
    this.view.setFloat32(this.at, v, true);
    this.at += 4;
  }
  u64(v: number): void {
    this.room(8);
    this.view.setBigUint64(this.at, BigInt(v), true);
    this.at += 8;
  }
  string(s: string): void {
    const bytes = encoder.encode(s);
    this.u64(bytes.byteLength);
    this.room(bytes.byteLength);
    this.buf.set(bytes, this.at);
    this.at += bytes.byteLength;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.at);
  }
}

/** float32 → IEEE half (round to nearest even), as ggml stores block scales. */
export function toHalf(value: number): number {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  // A carry out of the mantissa rounds up into the exponent, as it should.
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** IEEE half → number (the tests' reference for a block's scale). */
export function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/**
 * Q4_0 blocks from codes and one scale per block: a block is the scale as a half, then 16 bytes
 * holding elements 0–15 in the low nibbles and 16–31 in the high ones; element = (code − 8) · scale.
 * `codes` are 0–15, one per element, in row order.
 */
export function q4_0Blocks(codes: Uint8Array, scales: Float32Array): Uint8Array {
  const blocks = scales.length;
  if (codes.length !== blocks * 32) throw new Error(`Q4_0: ${codes.length} codes for ${blocks} blocks`);
  const out = new Uint8Array(blocks * 18);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    const at = b * 18;
    view.setUint16(at, toHalf(scales[b]!), true);
    const c = b * 32;
    for (let j = 0; j < 16; j++) out[at + 2 + j] = (codes[c + j]! & 15) | ((codes[c + j + 16]! & 15) << 4);
  }
  return out;
}

/** Q8_0 blocks: the scale as a half, then 32 signed bytes; element = value · scale. */
export function q8_0Blocks(values: Int8Array, scales: Float32Array): Uint8Array {
  const blocks = scales.length;
  if (values.length !== blocks * 32) throw new Error(`Q8_0: ${values.length} values for ${blocks} blocks`);
  const out = new Uint8Array(blocks * 34);
  const view = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    const at = b * 34;
    view.setUint16(at, toHalf(scales[b]!), true);
    out.set(new Uint8Array(values.buffer, values.byteOffset + b * 32, 32), at + 2);
  }
  return out;
}

/** float32 values as a tensor's bytes. */
export function f32Bytes(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}
