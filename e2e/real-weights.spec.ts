/**
 * Real trained weights in the browser (the real-weights folder, converted by test/support/real-weights):
 * stories260K's published greedy story and model2vec-bge-vq's reference vector, through the
 * service worker and through the page's own link, transformers.js on WASM in the engine worker
 * (and on WebGPU through SwiftShader). A wrong position, cache, prompt or decoding step in the
 * browser's path shows as another story. The models are served hub-style from a server of their
 * own, as an app's models from the hub would be. Skips, naming the path, where the real-weights folder (INPAGE_REAL_WEIGHTS_DIR)
 * is missing.
 *
 * Checked to fail, each planted in the conversion: rotary positions one ahead on decoding steps
 * (the WASM tests; the text parts after token ~190, past WebGPU's 32), the KV cache losing the
 * previous step's entry and the template without BOS (all three tests).
 */
import type { Page } from '@playwright/test';
import type { ChatMessage } from '../src/core/engine.ts';
import { createTransformersAdapter } from '../src/engines/transformers/index.ts';
import {
  EMBEDDER_ID,
  greedyStoryTokens,
  readReferenceVector,
  readStoryContinuation,
  REAL_WEIGHT_ENTRIES,
  REFERENCE_TEXT,
  realWeightsDir,
  removeRealWeightsDir,
  sharedModelsMissing,
  STORIES_ID,
  STORY_PROMPT,
  STORY_PROMPT_IDS,
  STORY_TOKENS,
  storiesSpec,
} from '../test/support/real-weights/index.ts';
import { expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';
import { hubRepo, serveFolderHub, type FolderHub } from './folder-hub.ts';

const missing = sharedModelsMissing();
test.skip(missing !== undefined, missing);

let hub: FolderHub;
/** The text of the story's first n tokens (the whole story is compared with the published text itself). */
let storyPrefix: (n: number) => string;
let continuation: string;
let reference: number[];
let dir: string;
test.beforeAll(async () => {
  dir = await realWeightsDir();
  hub = await serveFolderHub(dir);
  storyPrefix = (await greedyStoryTokens(dir)).prefix;
  continuation = await readStoryContinuation();
  reference = await readReferenceVector();
});
test.afterAll(async () => {
  await hub?.close();
  await removeRealWeightsDir();
});

const models = () => REAL_WEIGHT_ENTRIES.map((entry) => ({ ...entry, source: hubRepo(entry.source) }));

/** The story's first `tokens` tokens whole and streamed, and the reference text's vector as float and as base64, asked from the page. */
function askInPage(page: Page, tokens: number) {
  return page.evaluate(async ({ chat, embed, prompt, tokens, text }) => {
    const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
    const request = { model: chat, messages: [{ role: 'user' as const, content: prompt }], max_tokens: tokens, temperature: 0 };
    const whole = await client.chat.completions.create(request);
    let streamed = '';
    for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    const float = await client.embeddings.create({ model: embed, input: text, encoding_format: 'float' });
    // The SDK's default: base64 on the wire, decoded by the client.
    const decoded = await client.embeddings.create({ model: embed, input: text });
    return {
      whole: whole.choices[0]!.message.content,
      finish: whole.choices[0]!.finish_reason,
      usage: whole.usage,
      streamed,
      float: float.data[0]!.embedding,
      decoded: decoded.data[0]!.embedding,
      embedTokens: float.usage.prompt_tokens,
    };
  }, { chat: STORIES_ID, embed: EMBEDDER_ID, prompt: STORY_PROMPT, tokens, text: REFERENCE_TEXT });
}

function expectExact(out: Awaited<ReturnType<typeof askInPage>>, tokens: number) {
  expect(out.whole).toBe(tokens === STORY_TOKENS ? continuation : storyPrefix(tokens));
  expect(continuation.startsWith(out.whole!)).toBe(true);
  expect(out.finish).toBe('length');
  expect(out.usage).toMatchObject({ prompt_tokens: STORY_PROMPT_IDS.length, completion_tokens: tokens });
  expect(out.streamed).toBe(out.whole);
  expect(out.embedTokens).toBe(1000);
  for (const vector of [out.float, out.decoded]) {
    expect(vector).toHaveLength(reference.length);
    expect(Math.max(...vector.map((v, i) => Math.abs(v - reference[i]!)))).toBeLessThan(1e-6);
  }
}

for (const inPage of [false, true]) {
  test(`the published story and the reference vector on WASM, ${inPage ? 'through the page\'s own link' : 'through the service worker'}`, async ({ page }) => {
    const fromServiceWorker: boolean[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/v1/')) fromServiceWorker.push(response.fromServiceWorker());
    });
    await startRuntime(page, { device: 'wasm', inPage, transformersRemoteHost: hub.url, models: models() });
    expectExact(await askInPage(page, STORY_TOKENS), STORY_TOKENS);
    // Through the service worker, each of the four answers came from it; the page's own link is no fetch at all.
    expect(fromServiceWorker).toEqual(inPage ? [] : [true, true, true, true]);
  });
}

// Predicted outputs in the browser's engine worker: a prediction of the story, exact or edited, and
// one of something else, change how many passes the story takes, never the story (drafted tokens
// are checked in one pass and the rejected ones cut from the cache on WASM as in Node).
test('the published story with a prediction of it, of it edited and of something else, on WASM through the service worker', async ({ page }) => {
  await startRuntime(page, { device: 'wasm', inPage: false, transformersRemoteHost: hub.url, models: models() });
  const tokens = 96;
  const story = storyPrefix(tokens);
  const predictions = [story, story.replace(/\bthe\b/g, 'a').replace(/\bwas\b/g, 'is'), 'Quarterly revenue rose by 4.2% in the northern region.'];
  const got = await page.evaluate(async ({ model, prompt, tokens, predictions }) => {
    const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
    const out: { text: string; details: unknown }[] = [];
    for (const content of predictions) {
      const reply = await client.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], max_tokens: tokens, temperature: 0, prediction: { type: 'content', content } });
      out.push({ text: reply.choices[0]!.message.content!, details: reply.usage!.completion_tokens_details });
    }
    return out;
  }, { model: STORIES_ID, prompt: STORY_PROMPT, tokens, predictions });
  console.log(`predictions on WASM: ${JSON.stringify(got.map((answer) => answer.details))}`);
  for (const answer of got) expect(answer.text).toBe(story);
  const [exact, edited, other] = got.map((answer) => answer.details as { accepted_prediction_tokens: number; rejected_prediction_tokens: number });
  expect(exact!.accepted_prediction_tokens).toBeGreaterThan(tokens * 0.8);
  expect(exact!.rejected_prediction_tokens).toBe(0);
  expect(edited!.accepted_prediction_tokens).toBeGreaterThan(tokens / 2);
  expect(edited!.rejected_prediction_tokens).toBeGreaterThan(0);
  expect(other!.accepted_prediction_tokens).toBe(0);
});

// The CPU path as a cross-origin-isolated page runs it: onnxruntime-web on every core. Threads
// split the matrix products, not their sums: the same greedy story, byte for byte.
test('the published story and the reference vector on WASM on every core, the page made cross-origin isolated', async ({ page }) => {
  await page.goto(SDK_PAGE);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const engine = { device: 'wasm' as const, transformersRemoteHost: hub.url, models: models() };
  // The first call reloads the page (the service worker now adds COOP/COEP); the second resolves.
  await Promise.all([page.waitForEvent('load'), page.evaluate((engine) => void window.harness.startInference({ crossOriginIsolation: true, engine }), engine)]);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await page.evaluate((engine) => window.harness.startInference({ crossOriginIsolation: true, engine }).then(() => undefined), engine);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expectExact(await askInPage(page, STORY_TOKENS), STORY_TOKENS);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const local = await page.evaluate(async (id) => ((await (await fetch(`/v1/models/${id}`)).json()) as { local: { cpu?: { threads: number } } }).local, STORIES_ID);
  expect(local.cpu?.threads).toBe(Math.min(cores, 4));
});

// SwiftShader runs the story at about 4 tokens a second: its first 32 tokens show the same arithmetic.
test('the published story\'s first 32 tokens and the reference vector on WebGPU (SwiftShader), through the service worker', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu', inPage: false, transformersRemoteHost: hub.url, models: models() });
  expectExact(await askInPage(page, 32), 32);
  await expect.poll(() => page.evaluate(() => window.log.progress.filter((p) => p.status === 'ready').map((p) => p.device))).toEqual(['webgpu', 'webgpu']);
});

/**
 * A conversation as an app holds one: each turn sends the history with the replies as they came
 * back; then a regeneration of the last turn and an edit of the first message. Each answer must be
 * the one transformers.js gives in Node with no prefix cache (onnxruntime-node, the same greedy
 * arithmetic as WASM and WebGPU on these weights), while the browser's engine reads each turn's
 * earlier tokens from its cache: `cached_tokens` says how many.
 */
const TURNS = [' Lily saw a big ball', ' She was happy', ' Then her mom said', ' They went home'];

async function uncachedAnswers(tokens: number): Promise<{ messages: ChatMessage[]; text: string }[]> {
  const engine = createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu', prefixCacheBytes: 0 });
  const ask = async (messages: ChatMessage[]) => {
    let text = '';
    for await (const event of engine.chat({ model: STORIES_ID, messages, maxTokens: tokens, stop: [] }, { signal: new AbortController().signal })) if (event.type === 'token') text += event.text;
    return { messages, text };
  };
  const out: { messages: ChatMessage[]; text: string }[] = [];
  let history: ChatMessage[] = [{ role: 'user', content: STORY_PROMPT }];
  for (const turn of ['', ...TURNS]) {
    if (turn) history = [...history, { role: 'user', content: turn }];
    const answer = await ask(history);
    out.push(answer);
    history = [...history, { role: 'assistant', content: answer.text }];
  }
  out.push(await ask(out.at(-1)!.messages));
  out.push(await ask([{ role: 'user', content: ' Tom had a dog' }, ...out.at(-1)!.messages.slice(1)]));
  return out;
}

for (const device of ['wasm', 'webgpu'] as const) {
  test(`a conversation's turns on ${device === 'wasm' ? 'WASM' : 'WebGPU (SwiftShader)'} read earlier tokens from the prefix cache and answer as without it`, async ({ page }) => {
    // SwiftShader writes about 4 tokens a second.
    const tokens = device === 'wasm' ? 24 : 6;
    const expected = await uncachedAnswers(tokens);
    await startRuntime(page, { device, inPage: false, transformersRemoteHost: hub.url, models: models() });
    const got = await page.evaluate(async ({ steps, model, tokens }) => {
      const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
      const out: { text: string; prompt: number; cached: number }[] = [];
      for (const messages of steps) {
        const reply = await client.chat.completions.create({ model, messages, max_tokens: tokens, temperature: 0 });
        out.push({ text: reply.choices[0]!.message.content!, prompt: reply.usage!.prompt_tokens, cached: reply.usage!.prompt_tokens_details!.cached_tokens! });
      }
      return out;
    }, { steps: expected.map((step) => step.messages.map(({ role, content }) => ({ role: role as 'user' | 'assistant', content }))), model: STORIES_ID, tokens });
    expect(got.map((answer) => answer.text)).toEqual(expected.map((step) => step.text));
    const [first, ...later] = got;
    const regenerated = got.at(-2)!;
    const edited = got.at(-1)!;
    expect(first!.cached).toBe(0);
    // Each later turn read at least the previous turn's prompt from the cache, and never all of its own.
    for (const [i, answer] of later.slice(0, TURNS.length).entries()) {
      expect(answer.cached, `turn ${i + 2}`).toBeGreaterThanOrEqual(got[i]!.prompt);
      expect(answer.cached).toBeLessThan(answer.prompt);
    }
    expect(regenerated.cached).toBe(regenerated.prompt - 1);
    // An edited first message shares only BOS with what was read.
    expect(edited.cached).toBe(1);
  });
}

/**
 * A prompt longer than a prefill piece (chunked-prefill.ts) is read in pieces in the browser, the
 * keys and values of each piece (GPU buffers on WebGPU) carried into the next: the answer is the
 * one Node gives reading the prompt in one pass. Pieces of 16 tokens here (the default is 256):
 * twenty-odd passes, each on the cache the last one left. A piece that drops that cache or
 * misplaces its mask fails here, as does one whose GPU buffers are released too early; this small
 * model's next words hardly depend on tokens a hundred back, so the keys and values themselves
 * are checked against one pass in Node (chunked-prefill.test.ts).
 */
const LONG_PROMPT = Array.from({ length: 30 }, (_, i) => `${TURNS[i % TURNS.length]} and ${['the dog ran', 'the sun was warm', 'they played'][i % 3]}.`).join('') + ' One day, Lily';

for (const device of ['wasm', 'webgpu'] as const) {
  test(`a prompt longer than a prefill piece on ${device === 'wasm' ? 'WASM' : 'WebGPU (SwiftShader)'} answers as one pass does`, async ({ page }) => {
    const tokens = device === 'wasm' ? 24 : 6;
    const engine = createTransformersAdapter({ models: [storiesSpec], localModelPath: dir, device: 'cpu', prefixCacheBytes: 0, prefillChunkTokens: 100_000 });
    const content = `${STORY_PROMPT}${LONG_PROMPT}`;
    let expected = '';
    for await (const event of engine.chat({ model: STORIES_ID, messages: [{ role: 'user', content }], maxTokens: tokens, stop: [] }, { signal: new AbortController().signal })) if (event.type === 'token') expected += event.text;
    expect(expected.length).toBeGreaterThan(10);
    await startRuntime(page, { device, inPage: false, transformersRemoteHost: hub.url, models: models(), prefillChunkTokens: 16 });
    const got = await page.evaluate(async ({ content, model, tokens }) => {
      const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
      const reply = await client.chat.completions.create({ model, messages: [{ role: 'user', content }], max_tokens: tokens, temperature: 0 });
      return { text: reply.choices[0]!.message.content!, prompt: reply.usage!.prompt_tokens };
    }, { content, model: STORIES_ID, tokens });
    // About twenty pieces, then the last one for generate.
    expect(got.prompt).toBeGreaterThan(300);
    expect(got.prompt).toBeLessThan(512 - tokens);
    expect(got.text).toBe(expected);
  });
}
