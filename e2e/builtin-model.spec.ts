/**
 * The browser's built-in model through the service worker and the page. No browser here has the
 * Prompt API, so the host page gets the TEST DOUBLE of `LanguageModel`
 * (test/support/language-model-double.ts, written from the IDL); with it removed, the same
 * requests fall back to tiny-chat and say so in the headers. The real API: builtin-model.real.spec.ts.
 */
import type { Page } from '@playwright/test';
import { expect, startRuntime, test } from './fixtures.ts';

const MODEL = 'browser-builtin';
const WEATHER = { type: 'object', properties: { city: { type: 'string', maxLength: 12 } }, required: ['city'], additionalProperties: false };

/** The double on the host page's `window` (the backend reads `LanguageModel` at each call). */
const installDouble = (page: Page) =>
  page.evaluate(() => Object.assign(window, { LanguageModel: window.harness.createLanguageModelDouble({ chunkMs: 2, reply: () => 'Hello from the built-in model.' }).LanguageModel }));

/** The four requests, with the SDKs, through the service worker (the browser's own fetch) or in the page. */
const ask = (page: Page, via: 'service worker' | 'page') =>
  page.evaluate(
    async ({ model, schema, via }) => {
      const h = window.harness;
      const fetch = via === 'service worker' ? h.networkFetch : globalThis.fetch.bind(globalThis);
      const served: Record<string, string | null>[] = [];
      const record = async (input: RequestInfo | URL, init?: RequestInit) => {
        const response = await fetch(input, init);
        served.push({ by: response.headers.get('x-inpage-llm-served-by'), from: response.headers.get('x-inpage-llm-fallback-from'), reason: response.headers.get('x-inpage-llm-fallback-reason') });
        return response;
      };
      const openai = new h.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true, maxRetries: 0, fetch: record });
      const anthropic = new h.Anthropic({ baseURL: location.origin, apiKey: 'k', dangerouslyAllowBrowser: true, maxRetries: 0, fetch: record });
      const chat = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 12 });
      let streamed = '';
      const stream = anthropic.messages.stream({ model, max_tokens: 12, messages: [{ role: 'user', content: 'hi' }] });
      stream.on('text', (t) => (streamed += t));
      await stream.finalMessage();
      const json = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Where?' }],
        max_tokens: 120,
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
      });
      const tools = await openai.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        max_tokens: 120,
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: schema } }],
        tool_choice: 'required',
      });
      const call = tools.choices[0]!.message.tool_calls?.[0];
      return {
        chat: chat.choices[0]!.message.content,
        streamed,
        json: json.choices[0]!.message.content,
        finish: tools.choices[0]!.finish_reason,
        call: call?.type === 'function' ? { name: call.function.name, args: call.function.arguments } : null,
        served,
      };
    },
    { model: MODEL, schema: WEATHER, via },
  );

const localOf = (page: Page) =>
  page.evaluate(async (model) => {
    const list = (await (await fetch('/v1/models')).json()) as { data: { id: string; local?: { runnable: boolean; reason?: string } }[] };
    return list.data.find((m) => m.id === model)?.local;
  }, MODEL);

for (const via of ['service worker', 'page'] as const) {
  test(`with the Prompt API (test double) in the host page, answered through the ${via}: chat, an Anthropic stream, a JSON schema, a tool call`, async ({ page }) => {
    await startRuntime(page, { fallbacks: { [MODEL]: 'tiny-chat' } });
    await installDouble(page);
    expect(await localOf(page)).toMatchObject({ runnable: true });
    const out = await ask(page, via);
    expect(out.chat).toBe('Hello from the built-in model.');
    expect(out.streamed).toBe('Hello from the built-in model.');
    expect(JSON.parse(out.json!)).toEqual({ city: 'Paris' });
    expect(out.finish).toBe('tool_calls');
    expect(out.call!.name).toBe('get_weather');
    expect(JSON.parse(out.call!.args)).toEqual({ city: 'Paris' });
    for (const served of out.served) expect(served).toEqual({ by: MODEL, from: null, reason: null });
  });
}

test("the browser's download of its model, as the product's load progress; a stream cut by its caller destroys its session", async ({ page }) => {
  await startRuntime(page);
  await page.evaluate(() => {
    const double = window.harness.createLanguageModelDouble({ availability: 'downloadable', chunkMs: 30, reply: () => 'one two three four five six seven eight nine ten eleven twelve' });
    Object.assign(window, { LanguageModel: double.LanguageModel, lmDouble: double });
  });
  expect(await localOf(page)).toMatchObject({ runnable: true, downloaded: false });
  await page.evaluate((model) => window.inference.load(model), MODEL);
  const progress = await page.evaluate((model) => window.log.progress.filter((p) => p.model === model), MODEL);
  expect(progress.map((p) => p.status)).toEqual(['initiate', 'progress', 'progress', 'progress', 'ready']);
  expect(progress.filter((p) => p.status === 'progress').map((p) => p.loaded)).toEqual([0, 0.5, 1]);
  expect(await localOf(page)).toMatchObject({ runnable: true, downloaded: true });

  const cut = await page.evaluate(async (model) => {
    const controller = new AbortController();
    const response = await window.harness.networkFetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'count' }], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const sessions = (window as unknown as { lmDouble: { sessions: { destroyed: boolean; prompts: unknown[] }[] } }).lmDouble.sessions;
    const session = sessions.at(-1)!;
    for (let i = 0; i < 100 && !session.destroyed; i++) await new Promise((r) => setTimeout(r, 20));
    return { destroyed: session.destroyed, prompted: session.prompts.length };
  }, MODEL);
  expect(cut).toEqual({ destroyed: true, prompted: 1 });
});

test('without the Prompt API, the model is listed as unavailable with the reason, and the same requests fall back to tiny-chat, saying so', async ({ page }) => {
  await startRuntime(page, { fallbacks: { [MODEL]: 'tiny-chat' } });
  // This Chromium has a `LanguageModel` that says "unavailable"; gone altogether, as in other browsers:
  await page.evaluate(() => delete (window as { LanguageModel?: unknown }).LanguageModel);
  expect(await localOf(page)).toMatchObject({ runnable: false, reason: expect.stringContaining('has no built-in language model') });
  const out = await ask(page, 'service worker');
  expect(out.finish).toBe('tool_calls');
  expect(out.call!.name).toBe('get_weather');
  expect(Object.keys(JSON.parse(out.json!))).toEqual(['city']);
  for (const served of out.served) expect(served).toEqual({ by: 'tiny-chat', from: MODEL, reason: 'model_unavailable' });
});

test('where the browser has no model to give (as this Chromium says) and there is no fallback: a 503 that says why', async ({ page }) => {
  await startRuntime(page);
  const answer = await page.evaluate(async (model) => {
    const response = await window.harness.networkFetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) });
    return { status: response.status, body: await response.text() };
  }, MODEL);
  expect(answer.status).toBe(503);
  expect(answer.body).toContain('Prompt API');
});

test('the playground shows whether this browser has a built-in model', async ({ page, context }) => {
  await page.goto('/?device=wasm&preload=none#models');
  const row = page.locator('tr[data-model="browser-builtin"]');
  // This Chromium's own answer: it has the API, but no model.
  await expect(row).toHaveAttribute('data-state', 'unsupported');
  await expect(row.locator('td[data-label="Backend"]')).toHaveText('needs a browser model');
  await expect(row.locator('td[data-label="State"]')).toContainText('Prompt API');

  const other = await context.newPage();
  // TEST DOUBLE: a `LanguageModel` whose availability() says the model is there (the listing asks nothing else).
  await other.addInitScript(() => Object.assign(window, { LanguageModel: { availability: async () => 'available', create: async () => Promise.reject(new DOMException('stub', 'NotSupportedError')) } }));
  await page.close();
  await other.goto('/?device=wasm&preload=none#models');
  const listed = other.locator('tr[data-model="browser-builtin"]');
  await expect(listed.locator('td[data-label="Backend"]')).toHaveText('Browser');
  await expect(listed.locator('td[data-label="State"]')).toContainText('In this browser');
});
