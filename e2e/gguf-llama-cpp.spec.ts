/**
 * The GGUF writer (src/tiny-models/gguf.ts) on real weights: stories260K written as a GGUF
 * (test/support/real-weights/stories260k-gguf.ts) and run by llama.cpp itself, compiled to
 * WebAssembly (@wllama/wllama), gives the published greedy story of `Once upon a time`, byte for
 * byte, with its 5 prompt tokens. A wrong tensor layout, rotary, norm, vocabulary, score or token
 * type shows as another story. Skips, naming the path, where the real-weights folder (INPAGE_REAL_WEIGHTS_DIR) is missing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { readStoryContinuation, sharedModelsMissing, STORY_PROMPT, STORY_PROMPT_IDS, STORY_TOKENS } from '../test/support/real-weights/index.ts';
import { buildStories260kGguf, STORIES_GGUF } from '../test/support/real-weights/stories260k-gguf.ts';
import { hubRepo, serveFolderHub, type FolderHub } from './folder-hub.ts';

const missing = sharedModelsMissing();
test.skip(missing !== undefined, missing);

let hub: FolderHub;
let dir: string;
test.beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-gguf-'));
  await mkdir(join(dir, 'stories260K-gguf'));
  await writeFile(join(dir, 'stories260K-gguf', STORIES_GGUF), await buildStories260kGguf());
  hub = await serveFolderHub(dir);
});
test.afterAll(async () => {
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

test('llama.cpp in WebAssembly runs the generated stories260K GGUF to the published greedy story', async ({ page }) => {
  await page.goto('/e2e/pages/llama-cpp.html');
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const url = `${hub.url}${hubRepo('stories260K-gguf')}/resolve/main/${STORIES_GGUF}`;
  const out = await page.evaluate(({ url, prompt, tokens }) => window.llamaCpp.complete(url, prompt, tokens), { url, prompt: STORY_PROMPT, tokens: STORY_TOKENS });
  expect(out.promptTokens).toBe(STORY_PROMPT_IDS.length);
  expect(out.completionTokens).toBe(STORY_TOKENS);
  expect(out.text).toBe(await readStoryContinuation());
});
