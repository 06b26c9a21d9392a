// The shared model builders: the tiny models keep their exact bytes (the same code builds the
// bench's real-shaped ones, bench/real-models/builders.test.ts), and the 4-bit weights mean what
// ONNX Runtime (node and web) computes from them.
import { createHash } from 'node:crypto';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { tinyModelFiles } from './generate.ts';
import { GraphBuilder } from './graph-builder.ts';
import { CONTRIB_OPSET, DataType, encodeModel } from './onnx-proto.ts';
import { createPrng } from './prng.ts';
import { dequantizeQ4, q4Linear, randomQ4Weight } from './q4.ts';

const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex');

describe('tiny models', () => {
  it('are byte for byte what they were before the builders took shapes (default seed)', () => {
    // Changing any of these hashes changes every app's bundled test models: only on purpose.
    expect(Object.fromEntries(tinyModelFiles().map(([path, content]) => [path, sha256(content)]))).toEqual({
      'tiny-embed/config.json': 'f5c0f3152493c760b1eeb8fb67fea6d0e7a8260296ee8d8a3864fdb25ae044f8',
      'tiny-embed/tokenizer.json': 'a51e958673dcef097fda6ad7f5de5bdeed85f4e79670db10bcddf8aa1720d6d6',
      'tiny-embed/tokenizer_config.json': '4f1eea69ac1a15134f8b476d8d6c9c70317b63c07314023f5d80b98ba947baf0',
      'tiny-embed/onnx/model.onnx': 'bd9733145351ba96275441ae19a3437aba9e6c7ef30848c6ab31d81cee38204a',
      'tiny-chat/config.json': '7313f3dae9ee17522bdad768d695ad59d29c71f75c1da094b1a5a0e96415be73',
      'tiny-chat/generation_config.json': '5b326179b109aca701ee58452c03433d8374372c078ec4de9b0d54b0ecdbd31b',
      'tiny-chat/tokenizer.json': '292a5f825b2f94b7e6d6dfd167e97b785c2ca1fc7aebbe4997a3ca9cbeb3c26f',
      'tiny-chat/tokenizer_config.json': 'ecf47450d7a9edfe401e9a6548ad2587d5b48a6a6a54525b6a15d7ac05aab509',
      'tiny-chat/onnx/model.onnx': 'a06ed5432a946fbef8a56ae12dea6f3ea7b9e9ce77347d743217ee681146d500',
    });
  });
});

describe('4-bit weights (MatMulNBits)', () => {
  const K = 64;
  const N = 24;
  const rows = 3;
  const g = new GraphBuilder();
  g.op('Identity', [q4Linear(g, createPrng(5), 'x', 'w', K, N)], [], 'y');
  const model = encodeModel(g.build('q4', [{ name: 'x', elemType: DataType.FLOAT, shape: [1, rows, K] }], [{ name: 'y', elemType: DataType.FLOAT, shape: [1, rows, N] }]), { extraOpsets: [CONTRIB_OPSET] });
  const x = Float32Array.from({ length: rows * K }, (_, i) => Math.sin(i));
  // The same draws, dequantized by the layout q4.ts documents, multiplied in double precision.
  const w = dequantizeQ4(randomQ4Weight(createPrng(5), K, N), K, N);
  const expected = Array.from({ length: rows * N }, (_, i) => {
    const [r, n] = [Math.floor(i / N), i % N];
    let sum = 0;
    for (let k = 0; k < K; k++) sum += x[r * K + k]! * w[k * N + n]!;
    return sum;
  });

  it('has symmetric codes (never -8) and weights of variance about 1/K', () => {
    const big = randomQ4Weight(createPrng(9), 896, 256);
    for (const byte of big.codes) expect((byte & 15) !== 0 && byte >> 4 !== 0).toBe(true);
    const values = dequantizeQ4(big, 896, 256);
    const variance = values.reduce((sum, v) => sum + v * v, 0) / values.length;
    expect(variance * 896).toBeGreaterThan(0.9);
    expect(variance * 896).toBeLessThan(1.1);
  });

  it.each([
    ['onnxruntime-node', ortNode, {}],
    ['onnxruntime-web (wasm, the browser build)', ortWeb, { executionProviders: ['wasm'] }],
  ] as const)('computes x·W in %s as the documented layout says', async (_, ort, options) => {
    if (ort === ortWeb) ortWeb.env.wasm.numThreads = 1;
    const session = await (ort.InferenceSession as typeof ortNode.InferenceSession).create(model, options as ortNode.InferenceSession.SessionOptions);
    const { y } = await session.run({ x: new ort.Tensor('float32', x, [1, rows, K]) as ortNode.Tensor });
    const got = [...(y!.data as Float32Array)];
    got.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 4));
    await session.release();
  });
});
