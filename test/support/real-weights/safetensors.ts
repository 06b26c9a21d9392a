/**
 * Reads a safetensors file (an 8-byte little-endian header length, a JSON header of tensors with
 * dtype, shape and byte offsets, then the data), for the dtypes the shared models use.
 * @module
 */

export type SafetensorsArray = Float64Array | Float32Array | Int32Array;
export interface SafetensorsTensor {
  readonly shape: readonly number[];
  readonly data: SafetensorsArray;
}

const TYPES = { F64: Float64Array, F32: Float32Array, I32: Int32Array } as const;

export function readSafetensors(bytes: Uint8Array): Map<string, SafetensorsTensor> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const base = 8 + headerLength;
  const tensors = new Map<string, SafetensorsTensor>();
  for (const [name, { dtype, shape, data_offsets: [from, to] }] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const Type = TYPES[dtype as keyof typeof TYPES];
    if (!Type) throw new Error(`safetensors: ${name} is ${dtype}, not one of ${Object.keys(TYPES).join(', ')}`);
    // Copied (a Buffer's own slice would not copy): the data's offset in the file need not be
    // aligned for a typed array over it.
    const data = new Type(Uint8Array.prototype.slice.call(bytes, base + from, base + to).buffer);
    if (data.length !== shape.reduce((a, b) => a * b, 1)) throw new Error(`safetensors: ${name} has ${data.length} elements for shape [${shape}]`);
    tensors.set(name, { shape, data });
  }
  return tensors;
}
