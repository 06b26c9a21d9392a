/**
 * Real trained weights in the browser (../shared/models, converted by test/support/real-weights):
 * stories260K's published greedy story and model2vec-bge-vq's reference vector, through the
 * service worker and through the page's own link, transformers.js on WASM in the engine worker
 * (and on WebGPU through SwiftShader). A wrong position, cache, prompt or decoding step in the
 * browser's path shows as another story. The models are served hub-style from a server of their
 * own, as an app's models from the hub would be. Skips, naming the path, where ../shared/models
 * is missing.
 *
 * Checked to fail, each planted in the conversion: rotary positions one ahead on decoding steps
 * (the WASM tests; the text parts after token ~190, past WebGPU's 32), the KV cache losing the
 * previous step's entry and the template without BOS (all three tests).
 */
import type { Page } from '@playwright/test';
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
} from '../test/support/real-weights/index.ts';
import { expect, startRuntime, test } from './fixtures.ts';
import { hubRepo, serveFolderHub, type FolderHub } from './folder-hub.ts';

const missing = sharedModelsMissing();
test.skip(missing !== undefined, missing);

let hub: FolderHub;
/** The text of the story's first n tokens (the whole story is compared with the published text itself). */
let storyPrefix: (n: number) => string;
let continuation: string;
let reference: number[];
test.beforeAll(async () => {
  const dir = await realWeightsDir();
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

// SwiftShader runs the story at about 4 tokens a second: its first 32 tokens show the same arithmetic.
test('the published story\'s first 32 tokens and the reference vector on WebGPU (SwiftShader), through the service worker', async ({ page }) => {
  await startRuntime(page, { device: 'webgpu', inPage: false, transformersRemoteHost: hub.url, models: models() });
  expectExact(await askInPage(page, 32), 32);
  await expect.poll(() => page.evaluate(() => window.log.progress.filter((p) => p.status === 'ready').map((p) => p.device))).toEqual(['webgpu', 'webgpu']);
});
