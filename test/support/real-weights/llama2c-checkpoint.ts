/**
 * Reads a llama2.c "legacy" checkpoint (Karpathy's `run.c` format): a header of seven int32, then
 * the float32 weights in a fixed order, row-major [out, in]. A positive vocab_size means the token
 * embedding is also the output layer (tied); the trailing rotary tables are not read (the graph
 * computes its own from the positions).
 * @module
 */

export interface Llama2cConfig {
  readonly dim: number;
  readonly hiddenDim: number;
  readonly layers: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly vocabSize: number;
  readonly seqLen: number;
}

/** Per-layer weights are stacked over layers, as the file stores them. */
export interface Llama2cWeights {
  readonly config: Llama2cConfig;
  readonly tokenEmbedding: Float32Array; // [vocab, dim]
  readonly rmsAtt: Float32Array; // [layers, dim]
  readonly wq: Float32Array; // [layers, dim, dim]
  readonly wk: Float32Array; // [layers, kvDim, dim]
  readonly wv: Float32Array; // [layers, kvDim, dim]
  readonly wo: Float32Array; // [layers, dim, dim]
  readonly rmsFfn: Float32Array; // [layers, dim]
  readonly w1: Float32Array; // [layers, hidden, dim]
  readonly w2: Float32Array; // [layers, dim, hidden]
  readonly w3: Float32Array; // [layers, hidden, dim]
  readonly rmsFinal: Float32Array; // [dim]
}

const HEADER_BYTES = 7 * 4;

export function readLlama2cCheckpoint(bytes: Uint8Array): Llama2cWeights {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [dim, hiddenDim, layers, heads, kvHeads, signedVocab, seqLen] = Array.from({ length: 7 }, (_, i) => view.getInt32(i * 4, true)) as [number, number, number, number, number, number, number];
  if (signedVocab <= 0) throw new Error('llama2.c checkpoint: an untied output layer (negative vocab_size) is not supported here');
  const config: Llama2cConfig = { dim, hiddenDim, layers, heads, kvHeads, vocabSize: signedVocab, seqLen };
  const headSize = dim / heads;
  const kvDim = kvHeads * headSize;
  // Copied out of the file's buffer: the header leaves the floats at an offset a Float32Array
  // can view only if it is a multiple of 4 from the buffer's start, which a Buffer does not promise.
  let offset = HEADER_BYTES;
  const take = (count: number): Float32Array => {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(offset + i * 4, true);
    offset += count * 4;
    return out;
  };
  const weights: Llama2cWeights = {
    config,
    tokenEmbedding: take(signedVocab * dim),
    rmsAtt: take(layers * dim),
    wq: take(layers * dim * dim),
    wk: take(layers * kvDim * dim),
    wv: take(layers * kvDim * dim),
    wo: take(layers * dim * dim),
    rmsFfn: take(layers * dim),
    w1: take(layers * hiddenDim * dim),
    w2: take(layers * dim * hiddenDim),
    w3: take(layers * hiddenDim * dim),
    rmsFinal: take(dim),
  };
  // What follows is the legacy freq_cis tables: seq_len × head_size/2 × 2 floats.
  const expected = offset + seqLen * headSize * 4;
  if (bytes.byteLength !== expected) throw new Error(`llama2.c checkpoint: ${bytes.byteLength} bytes, expected ${expected} for this header`);
  return weights;
}
