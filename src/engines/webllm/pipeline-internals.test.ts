// @vitest-environment node
/**
 * pipeline-internals.ts reads internals of web-llm. These tests run against the INSTALLED package
 * and fail when an upgrade drops or changes one, so the exact prompt count does not silently fall
 * back to an estimate and a `logit_bias` id past the vocabulary does not silently go unchecked. A
 * real MLCEngine can be constructed in Node (not loaded: no WebGPU and no model library here), and
 * the pipeline class is not exported, so its part is read from the package's own source.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { MLCEngine } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import type { MLCEngineLike } from './mlc-engine-like.ts';
import { finishedReply, keepCompiledGrammars, prefillTokens, readsFinishedReply, vocabSize } from './pipeline-internals.ts';

const source = () => readFile(createRequire(import.meta.url).resolve('@mlc-ai/web-llm'), 'utf8');

/** The body of `class Name { … }` in web-llm's bundle, up to the next top-level class. */
function classBody(text: string, name: string): string {
  const start = text.indexOf(`\nclass ${name} {`);
  expect(start, `class ${name} in web-llm's bundle`).toBeGreaterThan(-1);
  const next = text.indexOf('\nclass ', start + 1);
  return text.slice(start, next === -1 ? undefined : next);
}

describe('the web-llm internal behind the exact prompt count', () => {
  it("a real MLCEngine keeps its pipelines in loadedModelIdToPipeline, which prefillTokens reads", () => {
    const engine = new MLCEngine({});
    const internal = (engine as unknown as { loadedModelIdToPipeline: unknown }).loadedModelIdToPipeline;
    expect(internal).toBeInstanceOf(Map);
    const asLike = engine as unknown as MLCEngineLike;
    expect(prefillTokens(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBeUndefined();
    // What reload() puts there is an LLMChatPipeline (checked below); one that has counted a prompt:
    (internal as Map<string, unknown>).set('Qwen2.5-0.5B-Instruct-q4f32_1-MLC', { getCurRoundPrefillTotalTokens: () => 53 });
    expect(prefillTokens(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(53);
  });

  it('reload() registers the LLMChatPipeline under the model id, and the pipeline exposes the prefill count', async () => {
    const text = await source();
    expect(classBody(text, 'MLCEngine')).toMatch(/this\.loadedModelIdToPipeline\.set\(modelId, newPipeline\)/);
    const pipeline = classBody(text, 'LLMChatPipeline');
    expect(pipeline).toMatch(/getCurRoundPrefillTotalTokens\(\) \{\s*return this\.curRoundPrefillTotalTokens;\s*\}/);
    // Counted during prefill (and reset at the start of each round's prefill).
    expect(pipeline).toMatch(/this\.curRoundPrefillTotalTokens \+= promptLen;/);
    expect(pipeline).toMatch(/this\.curRoundPrefillTotalTokens = 0;/);
  });

  it("the usage chunk's prompt_tokens is that same figure, and a stream prefills before its first chunk", async () => {
    const engine = classBody(await source(), 'MLCEngine');
    expect(engine).toMatch(/const promptTokens = pipeline\.getCurRoundPrefillTotalTokens\(\);[\s\S]*?prompt_tokens: promptTokens,/);
    const stream = engine.slice(engine.indexOf('asyncGenerate(request, model, pipeline'));
    const prefill = stream.indexOf('this.prefill(request, pipeline');
    expect(prefill).toBeGreaterThan(-1);
    expect(prefill).toBeLessThan(stream.indexOf('this.streamCurrentGeneration('));
  });
});

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

describe('the web-llm internals behind stopping at stop strings in web-llm', () => {
  it("reads the finished reply from the pipeline a real MLCEngine keeps for the model", () => {
    const engine = new MLCEngine({});
    const asLike = engine as unknown as MLCEngineLike;
    expect(readsFinishedReply(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(false);
    expect(finishedReply(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBeUndefined();
    const pipelines = (engine as unknown as { loadedModelIdToPipeline: Map<string, unknown> }).loadedModelIdToPipeline;
    const texts = ['Hello', ' E', 'ND!'];
    pipelines.set('Qwen2.5-0.5B-Instruct-q4f32_1-MLC', {
      outputIds: [0, 1, 2],
      tokenizer: { decode: (ids: Int32Array) => Array.from(ids, (id) => texts[id]).join('') },
      getMessage: () => 'Hello',
    });
    expect(readsFinishedReply(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(true);
    expect(finishedReply(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toEqual({ decoded: 'Hello END!', message: 'Hello' });
  });

  it('the pipeline keeps the token that completes a stop string in outputIds, and its message is their text cut before the stop string', async () => {
    const pipeline = classBody(await source(), 'LLMChatPipeline');
    expect(pipeline).toMatch(/getMessage\(\) \{\s*return this\.outputMessage;\s*\}/);
    const step = pipeline.slice(pipeline.indexOf('processNextToken('));
    // Only a stop token is left out of outputIds...
    expect(step).toMatch(/if \(stopTokens\.includes\(nextToken\)\) \{[\s\S]*?if \(!this\.stopTriggered\) \{\s*this\.outputIds\.push\(nextToken\);/);
    // ...the message is the text of all of them, cut before the first stop string found, by its last occurrence.
    expect(step).toMatch(/let outputMessage = this\.tokenizer\.decode\(new Int32Array\(this\.outputIds\)\);/);
    expect(step).toMatch(/stopPos = outputMessage\.lastIndexOf\(stopStr\);\s*if \(stopPos != -1\) \{\s*outputMessage = outputMessage\.substring\(0, stopPos\);/);
    // ...and the request's stop strings come after the template's.
    expect(step).toMatch(/stopStrs = stopStrs\.concat\(genConfig\.stop\);/);
  });

  it("the stream slices each delta from the length of the message last streamed, and the request's stop strings reach the pipeline", async () => {
    const engine = classBody(await source(), 'MLCEngine');
    expect(engine).toMatch(/const deltaMessage = curMessage\.slice\((state\.)?prevMessageLength\);\s*(state\.)?prevMessageLength = curMessage\.length;/);
    expect(engine).toMatch(/stop: request\.stop,/);
  });
});

describe('the web-llm internal behind keeping compiled grammars', () => {
  it("wraps the compiler a pipeline makes, so a grammar compiled once is not compiled again", async () => {
    const engine = new MLCEngine({});
    const asLike = engine as unknown as MLCEngineLike;
    expect(keepCompiledGrammars(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(false);
    const pipeline: Record<string, unknown> = { grammarCompiler: undefined };
    (engine as unknown as { loadedModelIdToPipeline: Map<string, unknown> }).loadedModelIdToPipeline.set('Qwen2.5-0.5B-Instruct-q4f32_1-MLC', pipeline);
    expect(keepCompiledGrammars(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(true);
    expect(keepCompiledGrammars(asLike, 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC')).toBe(true);
    let compiles = 0;
    // What the pipeline does on its first grammar: makes its compiler, then compiles with it.
    pipeline.grammarCompiler = { compileGrammar: async (grammar: string) => ({ handle: grammar, dispose: () => {}, n: ++compiles }), dispose: () => {} };
    const compiler = pipeline.grammarCompiler as { compileGrammar(grammar: string): Promise<{ handle: string; dispose(): void }> };
    for (const grammar of ['root ::= "a"', 'root ::= "b"', 'root ::= "a"', 'root ::= "b"']) {
      const compiled = await compiler.compileGrammar(grammar);
      expect(compiled.handle).toBe(grammar);
      compiled.dispose();
    }
    expect(compiles).toBe(2);
  });

  it("the pipeline makes grammarCompiler on its first grammar, compiles each new grammar with it, and disposes what it compiled once its matcher is made", async () => {
    const pipeline = classBody(await source(), 'LLMChatPipeline');
    expect(pipeline).toMatch(/this\.grammarCompiler =\s*yield libExports\$1\.GrammarCompiler\.createGrammarCompiler\(this\.xgTokenizerInfo\);/);
    expect(pipeline).toMatch(/yield this\.grammarCompiler\.compileGrammar\(responseFormat\.grammar\)/);
    expect(pipeline).toMatch(/this\.grammarMatcher =\s*yield libExports\$1\.GrammarMatcher\.createGrammarMatcher\(grammar\);\s*\}\s*finally \{\s*grammar\.dispose\(\);/);
    // Its own cache is the last grammar alone: a different one compiles again.
    expect(pipeline).toMatch(/if \(curResponseFormatKey === this\.responseFormatCacheKey &&\s*this\.grammarMatcher\)/);
  });
});
