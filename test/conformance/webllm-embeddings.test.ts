/**
 * web-llm's embedding models (snowflake-arctic-embed, from its own list) behind `/v1/embeddings`,
 * through the official `openai` client, with the guarantees transformers.js embeddings give:
 * float and base64 carry the same vectors, batching (in one request, or across concurrent ones
 * merged by the model host) does not change a vector, and usage is the exact token count.
 *
 * web-llm runs on a TEST DOUBLE of MLCEngine (test/support/webllm-double.ts): no real embedding
 * library can run here (it needs WebGPU and a compiled model library). The double plays what
 * matters: like web-llm, it right-pads a batch and a padded member's vector then differs from the
 * text embedded alone, and its usage counts tokens without the padding.
 */
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webllmModels } from '../../src/engines/catalog/catalog.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { createWebLLMAdapter } from '../../src/engines/webllm/webllm-adapter.ts';
import { unitLength } from '../../src/core/vectors.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { doubleEmbedding, doubleEmbedTokens, TestDoubleMLCEngine } from '../support/webllm-double.ts';

const MODEL = 'snowflake-arctic-embed-s-q0f32-MLC-b4';
const TEXTS = ['one', 'two short words', 'and a somewhat longer third text here'];

let harness: Harness;
let oa: OpenAI;
let engines: TestDoubleMLCEngine[];
beforeEach(() => {
  engines = [];
  const adapter = createWebLLMAdapter({
    models: webllmModels,
    gpu: async () => ({ hasShaderF16: false }),
    createEngine: (options) => {
      const engine = new TestDoubleMLCEngine(options);
      engines.push(engine);
      return engine;
    },
  });
  harness = createHarness('fetch option', { engine: createModelHost({ adapters: [adapter] }) });
  oa = harness.openai();
});
afterEach(() => harness.close());

const alone = (text: string) => [...unitLength(Float32Array.from(doubleEmbedding(text)))];

describe("web-llm's embedding models through the openai client", () => {
  it('are listed from web-llm\'s own list as embedding models', async () => {
    const models = await oa.models.list();
    const arctic = models.data.filter((m) => m.id.startsWith('snowflake-arctic-embed'));
    expect(arctic.map((m) => m.id).sort()).toEqual(['snowflake-arctic-embed-m-q0f32-MLC-b32', 'snowflake-arctic-embed-m-q0f32-MLC-b4', 'snowflake-arctic-embed-s-q0f32-MLC-b32', 'snowflake-arctic-embed-s-q0f32-MLC-b4']);
    expect(arctic[0]).toMatchObject({ kind: 'embedding', engine: 'webllm', context_window: 512 });
  });

  it('give each text of a batch the vector it has alone, unit length, with exact usage', async () => {
    const res = await oa.embeddings.create({ model: MODEL, input: TEXTS, encoding_format: 'float' });
    expect(res.data.map((d) => d.index)).toEqual([0, 1, 2]);
    for (const [i, text] of TEXTS.entries()) {
      expect(res.data[i]!.embedding).toEqual(alone(text));
      expect(Math.hypot(...res.data[i]!.embedding)).toBeCloseTo(1, 6);
    }
    const tokens = TEXTS.reduce((sum, text) => sum + doubleEmbedTokens(text), 0);
    expect(res.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    // One text per web-llm call: the padding that would change a vector never happens.
    expect(engines[0]!.embedInputs).toEqual(TEXTS.map((text) => [text]));
  });

  it('carry the same float32 values as base64 (what the SDK decodes by default) and as float', async () => {
    const base64 = await oa.embeddings.create({ model: MODEL, input: TEXTS });
    const float = await oa.embeddings.create({ model: MODEL, input: TEXTS, encoding_format: 'float' });
    expect(base64.data.map((d) => d.embedding)).toEqual(float.data.map((d) => d.embedding.map(Math.fround)));
    const raw = await harness.fetch(`${oa.baseURL}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, input: 'one', encoding_format: 'base64' }) });
    const text = ((await raw.json()) as { data: { embedding: string }[] }).data[0]!.embedding;
    expect([...new Float32Array(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)).buffer)]).toEqual(alone('one').map(Math.fround));
  });

  it('give concurrent requests, merged into one batch by the model host, their own vectors and usage', async () => {
    const replies = await Promise.all(TEXTS.map((text) => oa.embeddings.create({ model: MODEL, input: text, encoding_format: 'float' })));
    for (const [i, text] of TEXTS.entries()) {
      expect(replies[i]!.data[0]!.embedding).toEqual(alone(text));
      expect(replies[i]!.usage.prompt_tokens).toBe(doubleEmbedTokens(text));
    }
  });
});
