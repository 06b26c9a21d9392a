/**
 * A minimal, dependency-free encoder for the subset of the ONNX protobuf schema the tiny models need
 * (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto).
 * Field numbers follow onnx/onnx.proto. Output is a pure function of the input, so the same model
 * description always gives the same bytes.
 * @module
 */

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT64: 7, BOOL: 9 } as const;
export type DataType = (typeof DataType)[keyof typeof DataType];

/** ONNX Runtime's contrib operator set (MatMulNBits and friends). */
export const CONTRIB_OPSET = { domain: 'com.microsoft', version: 1 } as const;

export interface Tensor {
  readonly name: string;
  readonly dataType: DataType;
  readonly dims: readonly number[];
  /** Little-endian element bytes (TensorProto.raw_data). */
  readonly raw: Uint8Array;
}

/** Tagged so an integer attribute is never mistaken for a float one. */
export type Attribute =
  | { readonly name: string; readonly i: number }
  | { readonly name: string; readonly f: number }
  | { readonly name: string; readonly ints: readonly number[] }
  | { readonly name: string; readonly s: string };

export interface Node {
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name: string;
  readonly attributes?: readonly Attribute[];
  /** The operator set the op comes from; omitted for the default ONNX domain. */
  readonly domain?: string;
}

/** A dimension is a fixed size or a symbolic name (dim_param). */
export type Dim = number | string;

export interface ValueInfo {
  readonly name: string;
  readonly elemType: DataType;
  readonly shape: readonly Dim[];
}

export interface Graph {
  readonly name: string;
  readonly nodes: readonly Node[];
  readonly initializers: readonly Tensor[];
  readonly inputs: readonly ValueInfo[];
  readonly outputs: readonly ValueInfo[];
}

export interface ModelOptions {
  readonly irVersion?: number;
  readonly opset?: number;
  readonly producer?: string;
  /** Operator sets beyond the default domain's, e.g. `{ domain: 'com.microsoft', version: 1 }` for contrib ops. */
  readonly extraOpsets?: readonly { readonly domain: string; readonly version: number }[];
}

/** Serialises a model: ir_version 8 and the default-domain opset 17 unless told otherwise. */
export function encodeModel(graph: Graph, options: ModelOptions = {}): Uint8Array {
  const w = new Writer();
  w.varintField(1, options.irVersion ?? 8);
  w.stringField(2, options.producer ?? 'inpage-llm tiny-models');
  w.messageField(7, encodeGraph(graph));
  for (const { domain, version } of [{ domain: '', version: options.opset ?? 17 }, ...(options.extraOpsets ?? [])]) {
    const opset = new Writer();
    opset.stringField(1, domain);
    opset.varintField(2, version);
    w.messageField(8, opset);
  }
  return w.finish();
}

function encodeGraph(graph: Graph): Writer {
  const w = new Writer();
  for (const node of graph.nodes) w.messageField(1, encodeNode(node));
  w.stringField(2, graph.name);
  for (const tensor of graph.initializers) w.messageField(5, encodeTensor(tensor));
  for (const input of graph.inputs) w.messageField(11, encodeValueInfo(input));
  for (const output of graph.outputs) w.messageField(12, encodeValueInfo(output));
  return w;
}

function encodeNode(node: Node): Writer {
  const w = new Writer();
  for (const input of node.inputs) w.stringField(1, input);
  for (const output of node.outputs) w.stringField(2, output);
  w.stringField(3, node.name);
  w.stringField(4, node.opType);
  for (const attribute of node.attributes ?? []) w.messageField(5, encodeAttribute(attribute));
  if (node.domain) w.stringField(7, node.domain);
  return w;
}

// AttributeProto.AttributeType: FLOAT=1, INT=2, STRING=3, INTS=7.
function encodeAttribute(attribute: Attribute): Writer {
  const w = new Writer();
  w.stringField(1, attribute.name);
  if ('f' in attribute) {
    w.float32Field(2, attribute.f);
    w.varintField(20, 1);
  } else if ('i' in attribute) {
    w.varintField(3, attribute.i);
    w.varintField(20, 2);
  } else if ('s' in attribute) {
    w.stringField(4, attribute.s);
    w.varintField(20, 3);
  } else {
    for (const value of attribute.ints) w.varintField(8, value);
    w.varintField(20, 7);
  }
  return w;
}

function encodeTensor(tensor: Tensor): Writer {
  const w = new Writer();
  for (const dim of tensor.dims) w.varintField(1, dim);
  w.varintField(2, tensor.dataType);
  w.stringField(8, tensor.name);
  w.bytesField(9, tensor.raw);
  return w;
}

function encodeValueInfo(info: ValueInfo): Writer {
  const shape = new Writer();
  for (const dim of info.shape) {
    const d = new Writer();
    if (typeof dim === 'number') d.varintField(1, dim);
    else d.stringField(2, dim);
    shape.messageField(1, d);
  }
  const tensorType = new Writer();
  tensorType.varintField(1, info.elemType);
  tensorType.messageField(2, shape);
  const type = new Writer();
  type.messageField(1, tensorType);
  const w = new Writer();
  w.stringField(1, info.name);
  w.messageField(2, type);
  return w;
}

/** Byte strings at least this long are kept by reference, not copied, until `finish`. */
const BY_REFERENCE = 1 << 16;

/**
 * Protobuf wire-format writer. Repeated scalars are written unpacked, which every parser accepts.
 * A message is a list of byte runs: small fields go into a growing buffer, large byte strings
 * (weights) and large nested messages are appended by reference, so a model of hundreds of MB is
 * copied once, by `finish`.
 */
class Writer {
  private readonly runs: Uint8Array[] = [];
  private runsLength = 0;
  private buffer = new Uint8Array(256);
  private length = 0;

  get byteLength(): number {
    return this.runsLength + this.length;
  }

  varintField(field: number, value: number): void {
    this.tag(field, 0);
    this.varint(value);
  }

  float32Field(field: number, value: number): void {
    this.tag(field, 5);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.raw(bytes);
  }

  stringField(field: number, value: string): void {
    this.bytesField(field, new TextEncoder().encode(value));
  }

  messageField(field: number, message: Writer): void {
    this.tag(field, 2);
    this.varint(message.byteLength);
    const small = message.byteLength < BY_REFERENCE;
    if (!small) this.flush();
    for (const run of message.takeRuns()) {
      if (small) this.raw(run);
      else this.append(run);
    }
  }

  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, 2);
    this.varint(bytes.length);
    if (bytes.length < BY_REFERENCE) {
      this.raw(bytes);
      return;
    }
    this.flush();
    this.append(bytes);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.byteLength);
    let at = 0;
    for (const run of this.takeRuns()) {
      out.set(run, at);
      at += run.length;
    }
    return out;
  }

  /** The message's bytes as runs, in order; the writer is spent afterwards. */
  private takeRuns(): Uint8Array[] {
    this.flush();
    return this.runs;
  }

  private append(run: Uint8Array): void {
    this.runs.push(run);
    this.runsLength += run.length;
  }

  /** Moves the buffered bytes into a run of their own. */
  private flush(): void {
    if (this.length === 0) return;
    this.append(this.buffer.subarray(0, this.length));
    this.buffer = new Uint8Array(256);
    this.length = 0;
  }

  private tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  /** Negative values are int64 two's complement (ten bytes), as protobuf requires. */
  private varint(value: number): void {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
    let v = BigInt.asUintN(64, BigInt(value));
    do {
      const byte = Number(v & 0x7fn);
      v >>= 7n;
      this.byte(v === 0n ? byte : byte | 0x80);
    } while (v !== 0n);
  }

  private byte(value: number): void {
    this.ensure(1);
    this.buffer[this.length++] = value;
  }

  private raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }
}
