/**
 * web-llm on a real model, when one is provided: model libraries and weights cannot be downloaded
 * on the machines these tests usually run on, so this runs only when WEBLLM_MODEL_DIR points at a
 * local folder laid out as
 *   <dir>/<model_id>/mlc-chat-config.json, tokenizer.json, tensor-cache.json, params_shard_*.bin
 *   <dir>/libs/<model library>.wasm          (the file name of the library in web-llm's prebuilt list)
 * e.g. WEBLLM_MODEL_DIR=~/mlc WEBLLM_MODEL=Qwen2.5-0.5B-Instruct npx playwright test e2e/webllm.real.spec.ts
 * On a CPU (SwiftShader) expect minutes: loading compiles shaders and each token takes seconds.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { expect, SDK_PAGE, test } from './fixtures.ts';

const dir = process.env.WEBLLM_MODEL_DIR;
const model = process.env.WEBLLM_MODEL ?? 'Qwen2.5-0.5B-Instruct';

test.describe('web-llm on a real local model', () => {
  test.skip(!dir, 'needs a local MLC model folder: set WEBLLM_MODEL_DIR (see the comment at the top of this file and the README)');
  test.setTimeout(30 * 60_000);
  let server: Server;
  let origin: string;

  test.beforeAll(async () => {
    // Serves <dir> with CORS; `<model_id>/resolve/main/<file>` maps to `<dir>/<model_id>/<file>`.
    server = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url!, 'http://x').pathname).replace('/resolve/main/', '/'));
      const file = join(dir!, path);
      res.setHeader('access-control-allow-origin', '*');
      if (!file.startsWith(normalize(dir!)) || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': statSync(file).size });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('loads the model and streams a real completion', async ({ page }) => {
    await page.goto(SDK_PAGE);
    const result = await page.evaluate(
      async ({ origin, model }) => {
        const progress: string[] = [];
        const engine = window.harness.createWorkerEngine({ webllmSelfHost: { modelBase: origin, libBase: `${origin}/libs` } }, (p) => progress.push(p.status));
        const events = [];
        for await (const e of engine.chat({ model, messages: [{ role: 'user', content: 'Say hello.' }], maxTokens: 3, temperature: 0, stop: [] }, { signal: new AbortController().signal })) events.push(e);
        engine.terminate();
        return { events, progress };
      },
      { origin, model },
    );
    expect(result.progress).toContain('ready');
    expect(result.events[0]).toMatchObject({ type: 'start' });
    expect(result.events.filter((e) => e.type === 'token').length).toBeGreaterThan(0);
    expect(result.events.at(-1)).toMatchObject({ type: 'end', promptTokens: expect.any(Number) });
    // The count sent with `start` (read from web-llm's pipeline after prefill) is the engine's own,
    // which a reply the gateway closes early (max_tokens, a stop sequence) never gets to see in `end`.
    expect((result.events[0] as { promptTokens: number }).promptTokens).toBe((result.events.at(-1) as { promptTokens: number }).promptTokens);
  });
});
