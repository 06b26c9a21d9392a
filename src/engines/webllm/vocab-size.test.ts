// @vitest-environment node
/**
 * vocab-size.ts reads an internal of web-llm. These tests run against the INSTALLED package and
 * fail when an upgrade drops or changes that internal, so a `logit_bias` id past the vocabulary
 * does not silently go unchecked (see prefill-tokens.test.ts for the same approach).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { MLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { MLCEngineLike } from './mlc-engine-like.ts';
import { vocabSize } from './vocab-size.ts';

const source = () => readFile(createRequire(import.meta.url).resolve('@mlc-ai/web-llm'), 'utf8');

/** The body of `class Name { … }` in web-llm's bundle, up to the next top-level class. */
function classBody(text: string, name: string): string {
  const start = text.indexOf(`\nclass ${name} {`);
  expect(start, `class ${name} in web-llm's bundle`).toBeGreaterThan(-1);
  const next = text.indexOf('\nclass ', start + 1);
  return text.slice(start, next === -1 ? undefined : next);
}

describe('the web-llm internal behind the logit_bias vocabulary check', () => {
  it('reads fullVocabSize from the pipeline a real MLCEngine keeps for the model', () => {
    const engine = new MLCEngine({});
    const asLike = engine as unknown as MLCEngineLike;
    expect(vocabSize(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBeUndefined();
    const pipelines = (engine as unknown as { loadedModelIdToPipeline: Map<string, unknown> }).loadedModelIdToPipeline;
    pipelines.set('Qwen2.5-0.5B-Instruct-q4f32_1-MLC', { fullVocabSize: 151_936 });
    expect(vocabSize(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(151_936);
  });

  it("the pipeline's fullVocabSize is the width of the logits that logit_bias is added to", async () => {
    const pipeline = classBody(await source(), 'LLMChatPipeline');
    expect(pipeline).toMatch(/this\.fullVocabSize = this\.config\.vocab_size;/);
    expect(pipeline).toMatch(/this\.fapplyLogitBias\(logitsOnGPU\.view\(\[1, this\.fullVocabSize\]\)/);
  });
});
