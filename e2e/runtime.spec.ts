/**
 * The product as users meet it: the official SDKs, bundled into a page, call the base URL and are
 * answered in the page (the default) or by the service worker, then by the engine worker (real
 * transformers.js inference on the tiny generated models, WASM backend).
 */
import { expect, startRuntime, test } from './fixtures.ts';

for (const inPage of [true, false]) {
  const route = inPage ? 'in the page' : 'through the service worker';

  test(`the openai SDK chats, streams, embeds and lists models ${route}`, async ({ page }) => {
    await startRuntime(page, { inPage });
    // Requests answered in the page never reach the browser's network stack; the service worker's do.
    const seen: boolean[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/')) seen.push(response.fromServiceWorker());
    });
    const result = await page.evaluate(async () => {
      const { OpenAI } = window.harness;
      const oa = new OpenAI({ apiKey: 'k', baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const chat = await oa.chat.completions.create({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 });
      const chunks: string[] = [];
      const stream = await oa.chat.completions.create({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true });
      for await (const chunk of stream) chunks.push(chunk.choices[0]?.delta.content ?? '');
      const base64 = await oa.embeddings.create({ model: 'tiny-embed', input: ['a cat', 'a dog'] });
      const float = await oa.embeddings.create({ model: 'tiny-embed', input: ['a cat', 'a dog'], encoding_format: 'float' });
      const models = await oa.models.list();
      const error = await oa.chat.completions
        .create({ model: 'tiny-chat', messages: [] })
        .catch((e: InstanceType<typeof OpenAI.APIError>) => ({ status: e.status, type: e.type, typed: e instanceof OpenAI.BadRequestError }));
      return {
        chat: chat.choices[0]!.message.content,
        finish: chat.choices[0]!.finish_reason,
        usage: chat.usage,
        streamed: chunks.join(''),
        dims: base64.data.map((d) => d.embedding.length),
        sameAsFloat: base64.data.every((d, i) => d.embedding.every((v, j) => v === Math.fround(float.data[i]!.embedding[j]!))),
        models: models.data.map((m) => m.id),
        error,
      };
    });
    expect(result.chat!.length).toBeGreaterThan(0);
    expect(result.finish).toBe('length');
    expect(result.usage!.completion_tokens).toBe(8);
    expect(result.streamed).toBe(result.chat);
    expect(result.dims).toEqual([32, 32]);
    expect(result.sameAsFloat).toBe(true);
    expect(result.models).toEqual(expect.arrayContaining(['tiny-chat', 'tiny-embed']));
    expect(result.error).toEqual({ status: 400, type: 'invalid_request_error', typed: true });
    if (inPage) expect(seen).toEqual([]);
    else expect(seen.length >= 6 && seen.every(Boolean)).toBe(true);
  });

  test(`the anthropic SDK sends messages and streams events ${route}`, async ({ page }) => {
    await startRuntime(page, { inPage });
    const result = await page.evaluate(async () => {
      const { Anthropic } = window.harness;
      const an = new Anthropic({ apiKey: 'k', baseURL: location.origin, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const message = await an.messages.create({ model: 'tiny-chat', max_tokens: 6, messages: [{ role: 'user', content: 'Hi' }] });
      const stream = an.messages.stream({ model: 'tiny-chat', max_tokens: 6, messages: [{ role: 'user', content: 'Hi' }] });
      const final = await stream.finalMessage();
      const legacy = await an.messages.create({ model: 'tiny-chat', max_tokens: 2, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'anthropic-version': '2023-06-01' } });
      const missing = await an.messages
        .create({ model: 'tiny-chat', max_tokens: 2, messages: [{ role: 'user', content: 'Hi' }] }, { headers: { 'anthropic-version': null } })
        .catch((e: InstanceType<typeof Anthropic.APIError>) => ({ status: e.status, typed: e instanceof Anthropic.BadRequestError }));
      const models = await an.models.list();
      return { message, final, legacyType: legacy.type, missing, models: models.data.map((m) => m.type) };
    });
    expect(result.message.stop_reason).toBe('max_tokens');
    expect(result.final.content).toEqual(result.message.content);
    expect(result.legacyType).toBe('message');
    expect(result.missing).toEqual({ status: 400, typed: true });
    expect(new Set(result.models)).toEqual(new Set(['model']));
  });
}

test('plain fetch reads an SSE stream, and aborting it stops generation so the next request is served', async ({ runtimePage: page }) => {
  const result = await page.evaluate(async () => {
    const controller = new AbortController();
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Go' }], max_tokens: 200, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const next = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Again' }], max_tokens: 3 }),
    });
    return { type: response.headers.get('content-type'), first, next: await next.json() };
  });
  expect(result.type).toMatch(/^text\/event-stream/);
  expect(result.first).toMatch(/^data: \{/);
  expect(result.next.usage.completion_tokens).toBe(3);
});
