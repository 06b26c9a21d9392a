/**
 * web-llm on a real model, when one is provided: model libraries and weights cannot be downloaded
 * on the machines these tests usually run on, so this runs only when WEBLLM_MODEL_DIR points at a
 * local folder laid out as
 *   <dir>/<model_id>/mlc-chat-config.json, tokenizer.json, tensor-cache.json, params_shard_*.bin
 *   <dir>/libs/<model library>.wasm          (the file name of the library in web-llm's prebuilt list)
 * e.g. WEBLLM_MODEL_DIR=~/mlc WEBLLM_MODEL=Qwen2.5-0.5B-Instruct npx playwright test e2e/webllm.real.spec.ts
 * On a CPU (SwiftShader) expect minutes: loading compiles shaders and each token takes seconds.
 * The model may have any weights (random ones included): the constrained tests assert only what
 * the grammar forces. The tool-call one also needs WEBLLM_TOOLS=1 (its long prompt is slow to
 * prefill on a CPU).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, SDK_PAGE, test } from './fixtures.ts';

const dir = process.env.WEBLLM_MODEL_DIR;
const model = process.env.WEBLLM_MODEL ?? 'Qwen2.5-0.5B-Instruct';

test.describe('web-llm on a real local model', () => {
  test.skip(!dir, 'needs a real MLC model library, which cannot be downloaded here: run with WEBLLM_MODEL_DIR=<folder with <model_id>/ and libs/> WEBLLM_MODEL=<model id> npx playwright test e2e/webllm.real.spec.ts (see the header of this file and the README)');
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
    // Taken (after the load), then `start` once web-llm has prefilled and counted the prompt.
    expect(result.events[0]).toEqual({ type: 'accepted' });
    expect(result.events[1]).toMatchObject({ type: 'start' });
    expect(result.events.filter((e) => e.type === 'token').length).toBeGreaterThan(0);
    expect(result.events.at(-1)).toMatchObject({ type: 'end', promptTokens: expect.any(Number) });
    // The count sent with `start` (read from web-llm's pipeline after prefill) is the engine's own,
    // which a reply the gateway closes early (max_tokens, a stop sequence) never gets to see in `end`.
    expect((result.events[1] as { promptTokens: number }).promptTokens).toBe((result.events.at(-1) as { promptTokens: number }).promptTokens);
  });

  /** One streamed chat completion through the gateway (the fetch shim) on the engine worker. */
  async function askStreamed(page: Page, body: object) {
    await page.goto(SDK_PAGE);
    return page.evaluate(
      async ({ origin, model, body }) => {
        const { installFetchShim, createWorkerEngine } = window.harness;
        const engine = createWorkerEngine({ webllmSelfHost: { modelBase: origin, libBase: `${origin}/libs` } });
        const shim = installFetchShim({ engine });
        const started = performance.now();
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, temperature: 0, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Weather in Paris?' }], ...body }),
        });
        let content = '';
        let finish: string | null = null;
        let completionTokens: number | null = null;
        const calls: string[] = [];
        for (const line of (await response.text()).split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const chunk = JSON.parse(line.slice(6));
          const choice = chunk.choices[0];
          content += choice?.delta?.content ?? '';
          for (const call of choice?.delta?.tool_calls ?? []) if (call.function?.name) calls.push(call.function.name);
          finish = choice?.finish_reason ?? finish;
          completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
        }
        const ms = Math.round(performance.now() - started);
        shim.uninstall();
        engine.terminate();
        return { status: response.status, content, finish, completionTokens, calls, ms };
      },
      { origin, model, body },
    );
  }

  const CITY = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  // A few tokens: enough to show the forced opening, at seconds per token on a CPU.
  const MAX_TOKENS = 3;

  test('writes JSON under the grammar web-llm is given for a json_schema response format', async ({ page }) => {
    const result = await askStreamed(page, { max_tokens: MAX_TOKENS, response_format: { type: 'json_schema', json_schema: { name: 'city', schema: CITY, strict: true } } });
    console.log(`web-llm json_schema: ${JSON.stringify(result)}`);
    // Free text from random weights never opens with `{`: only the grammar's mask makes it.
    expect(result).toMatchObject({ status: 200, finish: 'length', completionTokens: MAX_TOKENS });
    expect(result.content.length).toBeGreaterThan(0);
    expect('{"city":"'.startsWith(result.content) || result.content.startsWith('{"city":"')).toBe(true);
  });

  test('opens a required tool call as the grammar forces it', async ({ page }) => {
    test.skip(!process.env.WEBLLM_TOOLS, 'prefilling the tool prompt (about 450 tokens) takes about 20 minutes on a CPU: run with WEBLLM_TOOLS=1 as well as WEBLLM_MODEL_DIR and WEBLLM_MODEL (see the skip above)');
    const result = await askStreamed(page, { max_tokens: MAX_TOKENS, tools: [{ type: 'function', function: { name: 'get_weather', parameters: CITY } }], tool_choice: 'required' });
    console.log(`web-llm tool_choice required: ${JSON.stringify(result)}`);
    // Its first tokens are forced; cut before the name is complete, the opening comes back as text.
    expect(result).toMatchObject({ status: 200, finish: 'length', completionTokens: MAX_TOKENS, calls: [] });
    expect(result.content.length).toBeGreaterThan(0);
    expect('<tool_call>\n{"name": "get_weather", "arguments": {"city": "'.startsWith(result.content)).toBe(true);
  });
});
