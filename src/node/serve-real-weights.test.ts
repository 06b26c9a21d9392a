/**
 * The Node server on real trained weights (the real-weights folder, converted by
 * test/support/real-weights): `serveGateway` over HTTP with the official SDKs, and the
 * `npx inpage-llm serve` command given the converted folder and the models as a `--config` file,
 * as a user runs it. The published greedy story of stories260K byte for byte, and
 * model2vec-bge-vq's reference vector. Skips, naming the folder and
 * files it needs (INPAGE_REAL_WEIGHTS_DIR), where they are missing.
 */
import Anthropic from '@anthropic-ai/sdk';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  EMBEDDER_ID,
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
} from '../../test/support/real-weights/index.ts';
import { createNodeEngine, serveGateway, type GatewayServer } from './index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const missing = sharedModelsMissing();
const story = { model: STORIES_ID, messages: [{ role: 'user' as const, content: STORY_PROMPT }], max_tokens: STORY_TOKENS, temperature: 0 };
const maxDiff = (a: readonly number[], b: readonly number[]) => Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));

let dir: string;
let continuation: string;
let reference: number[];
beforeAll(async () => {
  if (missing) return;
  dir = await realWeightsDir();
  continuation = await readStoryContinuation();
  reference = await readReferenceVector();
});
afterAll(removeRealWeightsDir);
beforeEach((context) => context.skip(missing !== undefined, missing));

describe('serveGateway over HTTP on real weights', () => {
  let server: GatewayServer;
  beforeAll(async () => {
    if (missing) return;
    server = await serveGateway({ engine: createNodeEngine({ localModelPath: dir, models: REAL_WEIGHT_ENTRIES }), port: 0 });
  });
  afterAll(() => server?.close());

  it('writes the published story, whole and streamed, to the OpenAI and Anthropic clients', async () => {
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'sk-local', maxRetries: 0 });
    const whole = await openai.chat.completions.create(story);
    expect(whole.choices[0]!.message.content).toBe(continuation);
    expect(whole.usage).toMatchObject({ prompt_tokens: STORY_PROMPT_IDS.length, completion_tokens: STORY_TOKENS });
    let streamed = '';
    for await (const chunk of await openai.chat.completions.create({ ...story, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(continuation);
    const anthropic = new Anthropic({ baseURL: server.url.replace(/\/v1$/, ''), apiKey: 'sk-ant-local', maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: STORIES_ID, max_tokens: STORY_TOKENS, messages: story.messages });
    let text = '';
    stream.on('text', (delta) => void (text += delta));
    const { usage } = await stream.finalMessage();
    // The whole prompt: Anthropic counts what came from the prefix cache apart from input_tokens.
    expect(usage.input_tokens + (usage.cache_read_input_tokens ?? 0)).toBe(STORY_PROMPT_IDS.length);
    expect(text).toBe(continuation);
  });

  it('embeds the reference text as the reference vector, as float and as base64', async () => {
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'sk-local', maxRetries: 0 });
    const float = await openai.embeddings.create({ model: EMBEDDER_ID, input: REFERENCE_TEXT, encoding_format: 'float' });
    expect(maxDiff(float.data[0]!.embedding, reference)).toBeLessThan(1e-6);
    // The SDK's default asks for base64 and decodes it.
    const decoded = await openai.embeddings.create({ model: EMBEDDER_ID, input: REFERENCE_TEXT });
    expect(maxDiff(decoded.data[0]!.embedding, reference)).toBeLessThan(1e-6);
  });
});

describe('npx inpage-llm serve --models <folder> --config <models> on real weights', () => {
  let configDir: string;
  afterAll(async () => {
    if (configDir) await rm(configDir, { recursive: true, force: true });
  });

  it('serves the story and the reference vector, and exits 0 on SIGTERM', async () => {
    configDir = await mkdtemp(join(tmpdir(), 'inpage-real-serve-'));
    const config = join(configDir, 'models.json');
    await writeFile(config, JSON.stringify({ models: REAL_WEIGHT_ENTRIES }));
    const child = spawn(join(ROOT, 'node_modules/.bin/node'), ['src/cli/main.ts', 'serve', '--models', dir, '--config', config, '--port', '0'], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INPAGE_LLM_API_KEY: undefined },
    });
    try {
      let output = '';
      child.stdout!.on('data', (data: Buffer) => (output += data.toString('utf8')));
      child.stderr!.on('data', (data: Buffer) => (output += data.toString('utf8')));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL in 20 s: ${output}`)), 20_000);
        child.stdout!.on('data', () => {
          const found = /listening on (http:\/\/\S+\/v1)$/m.exec(output)?.[1];
          if (found) resolve(found), clearTimeout(timer);
        });
      });
      const openai = new OpenAI({ baseURL: url, apiKey: 'sk-local', maxRetries: 0 });
      expect((await openai.models.list()).data.map((m) => m.id)).toEqual(expect.arrayContaining([STORIES_ID, EMBEDDER_ID]));
      expect((await openai.chat.completions.create(story)).choices[0]!.message.content).toBe(continuation);
      const vector = (await openai.embeddings.create({ model: EMBEDDER_ID, input: REFERENCE_TEXT, encoding_format: 'float' })).data[0]!.embedding;
      expect(maxDiff(vector, reference)).toBeLessThan(1e-6);
      child.kill('SIGTERM');
      expect((await once(child, 'exit'))[0]).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
