/**
 * Builds an ONNX graph node by node with generated, deterministic value names, so the model files
 * read like the math they implement.
 * @module
 */

import { CONTRIB_OPSET, DataType, type Attribute, type Graph, type Node, type Tensor, type ValueInfo } from './onnx-proto.ts';

export class GraphBuilder {
  readonly nodes: Node[] = [];
  readonly initializers: Tensor[] = [];
  private counter = 0;

  /** A named float32 initializer (a trained-looking weight). */
  weight(name: string, dims: readonly number[], data: Float32Array): string {
    if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`${name}: size mismatch`);
    this.initializers.push({ name, dataType: DataType.FLOAT, dims, raw: float32Bytes(data) });
    return name;
  }

  /** A named uint8 initializer (packed quantized weights), kept by reference. */
  bytes(name: string, dims: readonly number[], data: Uint8Array): string {
    if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`${name}: size mismatch`);
    this.initializers.push({ name, dataType: DataType.UINT8, dims, raw: data });
    return name;
  }

  /** A named int8 initializer (8-bit quantized weights), kept by reference. */
  int8s(name: string, dims: readonly number[], data: Int8Array): string {
    if (data.length !== dims.reduce((a, b) => a * b, 1)) throw new Error(`${name}: size mismatch`);
    this.initializers.push({ name, dataType: DataType.INT8, dims, raw: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  }

  /** A float32 constant; `dims` [] makes a scalar. */
  floats(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.weight(this.fresh('const'), dims, Float32Array.from(values));
  }

  /** An int64 constant; `dims` [] makes a scalar. */
  int64s(values: readonly number[], dims: readonly number[] = [values.length]): string {
    const raw = new Uint8Array(values.length * 8);
    const view = new DataView(raw.buffer);
    values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
    const name = this.fresh('const');
    this.initializers.push({ name, dataType: DataType.INT64, dims, raw });
    return name;
  }

  /** Adds a one-output node and returns its output name. */
  op(opType: string, inputs: readonly string[], attributes: readonly Attribute[] = [], output?: string): string {
    const out = output ?? this.fresh(opType);
    this.nodes.push({ opType, inputs, outputs: [out], name: `${opType}_${this.counter++}`, attributes });
    return out;
  }

  /** A one-output node of ONNX Runtime's contrib operator set (`com.microsoft`, e.g. MatMulNBits). */
  contribOp(opType: string, inputs: readonly string[], attributes: readonly Attribute[] = []): string {
    const out = this.fresh(opType);
    this.nodes.push({ opType, inputs, outputs: [out], name: `${opType}_${this.counter++}`, attributes, domain: CONTRIB_DOMAIN });
    return out;
  }

  /** Whether any node uses the contrib operator set (the model must then import it). */
  get usesContribOps(): boolean {
    return this.nodes.some((node) => node.domain === CONTRIB_DOMAIN);
  }

  build(name: string, inputs: readonly ValueInfo[], outputs: readonly ValueInfo[]): Graph {
    return { name, nodes: this.nodes, initializers: this.initializers, inputs, outputs };
  }

  fresh(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }
}

const CONTRIB_DOMAIN = CONTRIB_OPSET.domain;

const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

/** Little-endian float32 bytes: the array's own memory where the machine is little-endian. */
function float32Bytes(data: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const raw = new Uint8Array(data.length * 4);
  const view = new DataView(raw.buffer);
  data.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return raw;
}

/** Attribute shorthands. */
export const attr = {
  i: (name: string, i: number): Attribute => ({ name, i }),
  f: (name: string, f: number): Attribute => ({ name, f }),
  ints: (name: string, ints: readonly number[]): Attribute => ({ name, ints }),
};
