/**
 * The real engines inside the engine worker, driven through comlink from the page (no service
 * worker in between): transformers.js on the WASM backend and on WebGPU (SwiftShader here), each
 * checked against the same models run by onnxruntime-node in this test process.
 */
import { createModelHost } from '../src/engines/hosting/model-host.ts';
import { tinyModelSpecs } from '../src/engines/catalog/tiny-model-specs.ts';
import { createTransformersAdapter } from '../src/engines/transformers/index.ts';
import { expect, SDK_PAGE, test } from './fixtures.ts';
import { tinyModelDir } from '../test/support/engines.ts';

const PROMPT = [{ role: 'user' as const, content: 'Tell me about the river.' }];
const TEXTS = ['The cat sleeps under the tree.', 'Stock markets fell sharply today.'];

/** The reference: the same generated models, run in Node by onnxruntime-node. */
async function reference() {
  const host = createModelHost({ adapters: [createTransformersAdapter({ models: tinyModelSpecs, localModelPath: await tinyModelDir(), device: 'cpu' })] });
  const signal = new AbortController().signal;
  let text = '';
  for await (const event of host.chat({ model: 'tiny-chat', messages: PROMPT, maxTokens: 12, stop: [] }, { signal })) if (event.type === 'token') text += event.text;
  const { embeddings } = await host.embed({ model: 'tiny-embed', input: TEXTS }, { signal });
  return { text, embeddings: embeddings.map((v) => Array.from(v)) };
}

for (const device of ['wasm', 'webgpu'] as const) {
  test(`transformers.js on ${device} in the worker: real embeddings and a streamed completion through comlink`, async ({ page }) => {
    await page.goto(SDK_PAGE);
    const result = await page.evaluate(
      async ({ device, prompt, texts }) => {
        const progress: { status: string; device?: string }[] = [];
        const engine = window.harness.createWorkerEngine({ device }, (p) => progress.push(p));
        const signal = new AbortController().signal;
        const events: { type: string; text?: string; promptTokens?: number }[] = [];
        const arrivals: number[] = [];
        for await (const event of engine.chat({ model: 'tiny-chat', messages: prompt, maxTokens: 12, stop: [] }, { signal })) {
          events.push(event);
          arrivals.push(performance.now());
        }
        const { embeddings, promptTokens } = await engine.embed({ model: 'tiny-embed', input: texts }, { signal });
        engine.terminate();
        return { progress, events, arrivals, embeddings: embeddings.map((v) => Array.from(v)), promptTokens };
      },
      { device, prompt: PROMPT, texts: TEXTS },
    );
    const expected = await reference();
    const tokens = result.events.filter((e) => e.type === 'token');
    // The model host says it has taken the request, then the engine has read the prompt.
    expect(result.events[0]).toEqual({ type: 'accepted' });
    expect(result.events[1]).toMatchObject({ type: 'start', promptTokens: expect.any(Number) });
    expect(tokens).toHaveLength(12);
    expect(tokens.map((t) => t.text).join('')).toBe(expected.text);
    // Streamed: tokens arrive one by one, not all at once at the end.
    expect(new Set(result.arrivals.slice(1, -1)).size).toBeGreaterThan(5);
    expect(result.progress.filter((p) => p.status === 'ready').map((p) => p.device)).toEqual([device, device]);
    for (const [i, vector] of result.embeddings.entries()) {
      expect(vector).toHaveLength(32);
      vector.forEach((v, j) => expect(Math.abs(v - expected.embeddings[i]![j]!)).toBeLessThan(1e-4));
    }
    expect(result.promptTokens).toBeGreaterThan(0);
  });
}

test('web-llm runs up to the network boundary: a model whose files cannot be fetched is a clear 503', async ({ page }) => {
  await page.goto(SDK_PAGE);
  const result = await page.evaluate(async () => {
    const progress: { status: string; message?: string }[] = [];
    const engine = window.harness.createWorkerEngine({ webllmSelfHost: { modelBase: `${location.origin}/no-such-models`, libBase: `${location.origin}/no-such-libs` } }, (p) => progress.push(p));
    const error = await (async () => {
      try {
        for await (const _ of engine.chat({ model: 'Qwen2.5-0.5B-Instruct', messages: [{ role: 'user', content: 'hi' }], maxTokens: 4, stop: [] }, { signal: new AbortController().signal }));
      } catch (e) {
        return e as { code: string; message: string };
      }
    })();
    engine.terminate();
    return { code: error?.code, message: error?.message, progress };
  });
  expect(result.code).toBe('model_unavailable');
  // SwiftShader has no shader-f16, so the q4f32 variant is the one fetched.
  expect(result.message).toContain('/no-such-models/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/');
  expect(result.progress[0]).toMatchObject({ status: 'initiate' });
  expect(result.progress.at(-1)).toMatchObject({ status: 'error' });
});
