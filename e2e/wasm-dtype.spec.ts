/**
 * A model's weight variant on the CPU: `wasmDtype` is what the engine loads on the WASM backend
 * (the catalog's Qwen2.5 chat model: q4 on WebGPU, q8 on WASM, docs/decisions/cpu-path.md). The
 * bundled tiny-chat folder holds only `onnx/model.onnx` (fp32): asked for q4 everywhere it has no
 * file to load; asked for q4 with fp32 on WASM it loads and answers.
 */
import { expect, test } from '@playwright/test';
import { startRuntime } from './fixtures.ts';

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 6 });

test('on WASM the engine loads the wasmDtype variant, not dtype', async ({ page }) => {
  await startRuntime(page, {
    device: 'wasm',
    models: [
      { engine: 'transformers', id: 'tiny-q4-only', kind: 'chat', source: '/inpage-llm/models/tiny-chat', dtype: 'q4' },
      { engine: 'transformers', id: 'tiny-q4-fp32-on-wasm', kind: 'chat', source: '/inpage-llm/models/tiny-chat', dtype: 'q4', wasmDtype: 'fp32' },
    ],
  });
  const post = (body: object) =>
    page.evaluate(async (body) => {
      const res = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { choices?: { message: { content: string } }[]; error?: { message: string } } };
    }, body);
  const answered = await post(chat('tiny-q4-fp32-on-wasm'));
  expect(answered.status).toBe(200);
  expect(answered.body.choices![0]!.message.content.trim().length).toBeGreaterThan(0);
  const missing = await post(chat('tiny-q4-only'));
  expect(missing.status).toBeGreaterThanOrEqual(400);
  expect(missing.body.error!.message).toMatch(/model_q4\.onnx|q4/);
});
