// The real-shaped decoder (Qwen2.5-0.5B-Instruct's sizes, q4 MatMulNBits) run by transformers.js on
// onnxruntime-node. By default at a small shape through the same code (about 2 s); at the real
// shape (about 800 MB, 3 GB of memory, 11–25 s on 2 cores plus 4–7 s to make it) with REAL_MODELS=1.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { env, pipeline, type TextGenerationPipeline } from '@huggingface/transformers';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/core/engine.ts';
import { createTransformersAdapter } from '../../src/engines/transformers/index.ts';
import { createPrng } from '../../src/tiny-models/prng.ts';
import { buildDecoder } from '../../src/tiny-models/tiny-chat.ts';
import { buildRealChat, chatTextOfTokens, QWEN2_5_0_5B, QWEN2_Q8_LAYOUT, SMALL_CHAT, type RealChatShape } from './real-chat.ts';
import { DEFAULT_REAL_MODELS_DIR, generateRealModels, REAL_MODEL_IDS } from './real-models.ts';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

/** Greedy text of `tokens` new tokens; only word tokens (" word") can win, so n tokens are n words. */
async function generate(pipe: TextGenerationPipeline, tokens: number, prompt = chatTextOfTokens(20)): Promise<string> {
  const [output] = (await pipe([{ role: 'user', content: prompt }], { max_new_tokens: tokens, do_sample: false })) as { generated_text: { content: string }[] }[];
  return output!.generated_text.at(-1)!.content;
}

const words = (count: number) => new RegExp(`^( [a-z]+){${count}}$`);

describe('real-shaped decoder at a small shape (same code and layout)', () => {
  let root: string;
  let pipe: TextGenerationPipeline;
  const id = 'small-chat';

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'real-chat-small-'));
    roots.push(root);
    for (const [path, content] of buildRealChat(createPrng(3), SMALL_CHAT)) {
      await mkdir(dirname(join(root, id, path)), { recursive: true });
      await writeFile(join(root, id, path), content);
    }
    env.localModelPath = root;
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    pipe = await pipeline('text-generation', id, { device: 'cpu', dtype: 'q4' });
  });

  afterAll(() => pipe?.dispose());

  it('writes printable words and stops only by max_new_tokens', async () => {
    const eight = await generate(pipe, 8);
    expect(eight).toMatch(words(8));
    expect(await generate(pipe, 8)).toBe(eight);
    // Well past tiny-chat's 40-token stop: the end token never wins.
    expect(await generate(pipe, 100)).toMatch(words(100));
  });

  it('runs the whole graph in onnxruntime-web (wasm) with the logits onnxruntime-node gives', async () => {
    const model = await readFile(join(root, id, 'onnx/model_q4.onnx'));
    const logits = async (ort: typeof ortNode, options: ortNode.InferenceSession.SessionOptions) => {
      const session = await ort.InferenceSession.create(model, options);
      const S = 6;
      const ids = (values: number[]) => new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, S]);
      const feeds: Record<string, ortNode.Tensor> = { input_ids: ids([1, 300, 400, 500, 600, 700]), attention_mask: ids(new Array(S).fill(1)), position_ids: ids([0, 1, 2, 3, 4, 5]) };
      for (let l = 0; l < SMALL_CHAT.layers; l++) {
        for (const kind of ['key', 'value']) feeds[`past_key_values.${l}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [1, SMALL_CHAT.kvHeads, 0, SMALL_CHAT.headDim]);
      }
      const out = await session.run(feeds);
      await session.release();
      return out.logits!.data as Float32Array;
    };
    ortWeb.env.wasm.numThreads = 1;
    const [node, web] = [await logits(ortNode, {}), await logits(ortWeb as unknown as typeof ortNode, { executionProviders: ['wasm'] })];
    expect(web).toHaveLength(6 * SMALL_CHAT.vocabSize);
    let maxDiff = 0;
    for (let i = 0; i < node.length; i++) maxDiff = Math.max(maxDiff, Math.abs(node[i]! - web[i]!));
    expect(maxDiff).toBeLessThan(1e-3);
  });
});

describe('real-shaped decoder (Qwen2.5-0.5B-Instruct q4 sizes)', () => {
  const shape: RealChatShape = QWEN2_5_0_5B;

  it('is generated into .models/real, loads, and decodes exactly the tokens asked for, through the engine too', async (context) => {
    context.skip(
      !process.env.REAL_MODELS,
      'writes ~790 MB to .models/real (kept for later runs), needs ~3 GB of memory and 15-30 s on 2 cores: run with REAL_MODELS=1 npm run test:unit -- bench/real-models/real-chat.test.ts',
    );
    const { manifest } = await generateRealModels(DEFAULT_REAL_MODELS_DIR, { only: ['chat'] });
    const entry = manifest.models[REAL_MODEL_IDS.chat]!;
    expect(entry.shape).toEqual(shape);
    expect(entry.files['onnx/model_q4.onnx']!.bytes).toBeGreaterThan(780e6);

    env.localModelPath = DEFAULT_REAL_MODELS_DIR;
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    let start = performance.now();
    const pipe = await pipeline('text-generation', REAL_MODEL_IDS.chat, { device: 'cpu', dtype: 'q4' });
    const loadSeconds = (performance.now() - start) / 1000;
    expect(await generate(pipe, 8)).toMatch(words(8));
    start = performance.now();
    expect(await generate(pipe, 32)).toMatch(words(32));
    const perSecond = 32 / ((performance.now() - start) / 1000);
    console.log(`real-shaped Qwen2.5-0.5B q4: load ${loadSeconds.toFixed(1)} s, 32 tokens after a 28-token prompt, prefill included, at ${perSecond.toFixed(1)} tokens/s`);
    await pipe.dispose();

    // The engine's own chat path (ChatML template, token stream, end reason) on the same files.
    const adapter = createTransformersAdapter({
      models: [{
        info: { id: 'real-chat', kind: 'chat', engine: 'transformers', displayName: 'real-shaped', created: 0, contextWindow: 4096, maxOutputTokens: 2048 },
        source: REAL_MODEL_IDS.chat,
        dtype: 'q4',
        files: entry.files,
      }],
      localModelPath: DEFAULT_REAL_MODELS_DIR,
      device: 'cpu',
    });
    const events: ChatEvent[] = [];
    const request = { model: 'real-chat', messages: [{ role: 'user' as const, content: chatTextOfTokens(16) }], maxTokens: 8, stop: [] };
    for await (const event of adapter.chat(request, { signal: new AbortController().signal })) events.push(event);
    expect(events.filter((e) => e.type === 'token')).toHaveLength(8);
    expect(events.at(-1)).toEqual({ type: 'end', reason: 'length' });
    await adapter.unload('real-chat');
  }, 300_000);
});

describe('real-shaped decoder with 8-bit weights at a small shape (transformers.js q8)', () => {
  it('runs on onnxruntime-node and in onnxruntime-web (wasm), writing words to max_new_tokens', async () => {
    const root = await mkdtemp(join(tmpdir(), 'real-chat-q8-'));
    roots.push(root);
    const id = 'small-chat-q8';
    for (const [path, content] of buildDecoder(createPrng(3), SMALL_CHAT, QWEN2_Q8_LAYOUT)) {
      await mkdir(dirname(join(root, id, path)), { recursive: true });
      await writeFile(join(root, id, path), content);
    }
    env.localModelPath = root;
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    const pipe = (await pipeline('text-generation', id, { device: 'cpu', dtype: 'q8' })) as TextGenerationPipeline;
    try {
      expect(await generate(pipe, 12)).toMatch(words(12));
    } finally {
      await pipe.dispose();
    }
    const model = await readFile(join(root, id, 'onnx/model_quantized.onnx'));
    // One int8 table serves the embedding and lm_head: the file is about a byte a weight, beside the
    // float32 RoPE tables (a float32 table would add 3 bytes a vocabulary weight, 786 KB here).
    const params = SMALL_CHAT.vocabSize * SMALL_CHAT.hiddenSize + SMALL_CHAT.layers * (SMALL_CHAT.hiddenSize * (SMALL_CHAT.heads + 2 * SMALL_CHAT.kvHeads) * SMALL_CHAT.headDim + SMALL_CHAT.heads * SMALL_CHAT.headDim * SMALL_CHAT.hiddenSize + 3 * SMALL_CHAT.hiddenSize * SMALL_CHAT.intermediateSize);
    const rope = 2 * SMALL_CHAT.maxPositions * SMALL_CHAT.headDim * 4;
    expect(model.byteLength).toBeLessThan(params + rope + 100_000);
    ortWeb.env.wasm.numThreads = 1;
    const session = await (ortWeb as unknown as typeof ortNode).InferenceSession.create(model, { executionProviders: ['wasm'] });
    await session.release();
  });
});
