/**
 * The two ways in without the product's service worker: the fetch shim, and msw handlers in an
 * app that already runs msw. Both must pass the same SDK calls.
 */
import { expect, SDK_PAGE, test } from './fixtures.ts';

async function sdkRound() {
  const { OpenAI, Anthropic } = window.harness;
  const oa = new OpenAI({ apiKey: 'k', baseURL: `${location.origin}/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 });
  const an = new Anthropic({ apiKey: 'k', baseURL: location.origin, dangerouslyAllowBrowser: true, maxRetries: 0 });
  const chat = await oa.chat.completions.create({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 });
  let streamed = '';
  for await (const c of await oa.chat.completions.create({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5, stream: true })) streamed += c.choices[0]?.delta.content ?? '';
  const embedding = await oa.embeddings.create({ model: 'tiny-embed', input: 'hello' });
  const message = await an.messages.stream({ model: 'tiny-chat', max_tokens: 5, messages: [{ role: 'user', content: 'Hi' }] }).finalMessage();
  const models = await oa.models.list();
  const bad = await oa.embeddings.create({ model: 'tiny-embed', input: [] }).catch((e: { status: number }) => e.status);
  return { chat: chat.choices[0]!.message.content, streamed, dims: embedding.data[0]!.embedding.length, message: message.usage.output_tokens, models: models.data.length, bad };
}

function expectRound(result: Awaited<ReturnType<typeof sdkRound>>) {
  expect(result.chat!.length).toBeGreaterThan(0);
  expect(result.streamed).toBe(result.chat);
  expect(result.dims).toBe(32);
  expect(result.message).toBe(5);
  expect(result.models).toBeGreaterThan(2);
  expect(result.bad).toBe(400);
}

test('installFetchShim answers the SDKs without a service worker', async ({ page }) => {
  await page.goto(SDK_PAGE);
  const result = await page.evaluate(async (round) => {
    const shim = window.harness.installFetchShim({ engine: window.harness.createWorkerEngine({ device: 'wasm' }) });
    const outcome = await (0, eval)(`(${round})`)();
    shim.uninstall();
    return { ...outcome, controlled: navigator.serviceWorker.controller !== null };
  }, sdkRound.toString());
  expect(result.controlled).toBe(false);
  expectRound(result);
});

test('the msw handlers answer the SDKs in an app that runs msw', async ({ page }) => {
  await page.goto(SDK_PAGE);
  const result = await page.evaluate(async (round) => {
    const { setupWorker, createHandlers, createWorkerEngine } = window.harness;
    const worker = setupWorker(...createHandlers({ engine: createWorkerEngine({ device: 'wasm' }) }));
    await worker.start({ quiet: true, onUnhandledFrame: 'bypass' });
    return (0, eval)(`(${round})`)();
  }, sdkRound.toString());
  expectRound(result);
});
