/**
 * web-llm's whole list behind `/v1/models` on this browser's real WebGPU adapter (SwiftShader in
 * the test browser: no shader-f16): which builds say they run and which say why not, and a
 * request to one that cannot run refused before any byte of it is fetched.
 */
import { expect, test } from '@playwright/test';
import { startRuntime } from './fixtures.ts';

interface Listed {
  id: string;
  engine: string;
  kind: string;
  context_window: number;
  family?: string;
  featured?: boolean;
  local?: { runnable: boolean; reason?: string; requires: string[]; variant?: string; vram_required_MB?: number; downloaded: boolean };
}

test("lists web-llm's models with what this GPU runs, and refuses one it cannot before fetching anything", async ({ page, context }) => {
  const offsite: string[] = [];
  await context.route(/^https?:\/\/(?!localhost)/, async (route) => {
    offsite.push(route.request().url());
    await route.abort();
  });
  await startRuntime(page);
  const adapter = await page.evaluate(async () => {
    const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<{ features: Set<string>; info?: { description?: string; vendor?: string } } | null> } }).gpu;
    const found = await gpu?.requestAdapter();
    return found ? { f16: found.features.has('shader-f16'), name: `${found.info?.vendor ?? ''} ${found.info?.description ?? ''}` } : null;
  });
  test.skip(adapter === null, 'needs a WebGPU adapter, which this browser did not offer (the test browser has SwiftShader\'s: see e2e/chromium.ts): run with CHROMIUM_PATH=<a Chromium with WebGPU> npx playwright test e2e/webllm-models.spec.ts');

  const listing = await page.evaluate(async () => {
    const timed = async () => {
      const started = performance.now();
      const body = (await (await fetch('/v1/models')).json()) as { data: Listed[] };
      return { body, ms: performance.now() - started };
    };
    const first = await timed();
    const second = await timed();
    return { data: first.body.data, firstMs: first.ms, secondMs: second.ms };
  });
  const webllm = listing.data.filter((m) => m.engine === 'webllm');
  console.log(`GET /v1/models: ${listing.data.length} models (${webllm.length} web-llm), first ${listing.firstMs.toFixed(0)} ms, then ${listing.secondMs.toFixed(0)} ms; adapter ${adapter!.name}, shader-f16 ${adapter!.f16}`);
  expect(webllm.length).toBeGreaterThan(160);
  expect(listing.secondMs).toBeLessThan(1000);
  const byId = new Map(listing.data.map((m) => [m.id, m]));
  expect(byId.get('Qwen3-0.6B')).toMatchObject({ featured: true, family: 'Qwen3', context_window: 4096 });
  expect(byId.get('snowflake-arctic-embed-s-q0f32-MLC-b4')).toMatchObject({ kind: 'embedding', context_window: 512 });

  const f32 = byId.get('Qwen3-0.6B-q4f32_1-MLC')!.local!;
  expect(f32).toMatchObject({ runnable: true, requires: ['webgpu'], variant: 'Qwen3-0.6B-q4f32_1-MLC', downloaded: false });
  expect(f32.vram_required_MB).toBeGreaterThan(100);
  const f16 = byId.get('Qwen3-0.6B-q4f16_1-MLC')!.local!;
  if (adapter!.f16) {
    expect(f16).toMatchObject({ runnable: true, requires: ['webgpu', 'shader-f16'] });
    return;
  }
  expect(f16).toMatchObject({ runnable: false, requires: ['webgpu', 'shader-f16'], reason: expect.stringContaining('shader-f16') });
  // The short id picks the build this GPU runs.
  expect(byId.get('Qwen3-0.6B')!.local).toMatchObject({ runnable: true, variant: 'Qwen3-0.6B-q4f32_1-MLC' });

  const refused = await page.evaluate(async () => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen3-0.6B-q4f16_1-MLC', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
    });
    return { status: response.status, body: (await response.json()) as { error: { message: string; type: string } } };
  });
  expect(refused.status).toBe(503);
  expect(refused.body.error.message).toMatch(/"Qwen3-0.6B-q4f16_1-MLC" cannot run on this device: .*shader-f16/);
  expect(offsite).toEqual([]);
});
