/**
 * What the gateway reads from a loaded model's web-llm pipeline, which web-llm keeps private
 * (`loadedModelIdToPipeline` is private in its types and the pipeline class is not exported). The
 * access is confined to this file, every step optional, as a future web-llm may drop it, and
 * `pipeline-internals.test.ts` fails when the installed web-llm no longer has what is read here.
 *
 * - The exact number of prompt tokens just prefilled, read before web-llm's usage chunk. web-llm
 *   reports `prompt_tokens` only in the last chunk of a stream, and a generation the gateway closes
 *   early (a token cap, a stop sequence, a client gone) never reads that chunk. The figure it
 *   reports there is `pipeline.getCurRoundPrefillTotalTokens()`, which the pipeline sets during
 *   prefill, and the first chunk is streamed only after prefill; so once the first chunk is here
 *   the exact count can be read. Present, with the same meaning, in 0.2.79 (the oldest version the
 *   project runs on) through 0.2.86.
 * - The reply it just finished, read when its stream's final chunk arrives (the pipeline keeps it
 *   until the next request's prefill): the text of every token it kept (`tokenizer.decode(outputIds)`)
 *   and the message it recorded in its conversation (`getMessage()`, cut before the stop string it
 *   found). Stopping at a stop string, web-llm streams at most the text before it, so only this
 *   says whether and where a stop string ended the reply (see reply-tokens.ts). Present, with the
 *   same meaning, in 0.2.79 through 0.2.86.
 * - The number of logits a step yields (`fullVocabSize`, its mlc-chat-config.json `vocab_size`),
 *   so a `logit_bias` token id past it is a 400 instead of a write outside web-llm's logits buffer
 *   (web-llm checks only the bias range).
 * - The pipeline's xgrammar compiler (`grammarCompiler`, which it makes on its first grammar and
 *   disposes on unload), to keep compiled grammars across requests (compiled-grammar-cache.ts):
 *   web-llm itself keeps only the last one. Present, with the same meaning, in 0.2.79 through 0.2.86.
 * @module
 */

import { cachingCompiler, type GrammarCompilerLike } from './compiled-grammar-cache.ts';
import type { MLCEngineLike } from './mlc-engine-like.ts';
import type { FinishedReply } from './reply-tokens.ts';

/** The part of web-llm's LLMChatPipeline read here. */
interface Pipeline {
  getCurRoundPrefillTotalTokens?(): unknown;
  readonly fullVocabSize?: unknown;
  readonly outputIds?: unknown;
  readonly tokenizer?: { decode?(ids: Int32Array): unknown };
  getMessage?(): unknown;
}

/** The part of web-llm's MLCEngine internals read here. */
interface PipelineInternals {
  readonly loadedModelIdToPipeline?: { get?(modelId: string): Pipeline | undefined };
}

function pipelineOf(engine: MLCEngineLike, modelId: string): Pipeline | undefined {
  try {
    return (engine as PipelineInternals).loadedModelIdToPipeline?.get?.(modelId);
  } catch {
    return undefined;
  }
}

/** `read` applied to `modelId`'s pipeline: a positive integer, or `undefined` when web-llm does not tell. */
function readPipeline(engine: MLCEngineLike, modelId: string, read: (pipeline: Pipeline) => unknown): number | undefined {
  try {
    const pipeline = pipelineOf(engine, modelId);
    const value = pipeline && read(pipeline);
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Prompt tokens of the current round of `modelId`'s pipeline, or `undefined` when web-llm does not
 * tell (every prompt has at least one token: 0 means the pipeline did not count this round).
 */
export function prefillTokens(engine: MLCEngineLike, modelId: string): number | undefined {
  return readPipeline(engine, modelId, (pipeline) => pipeline.getCurRoundPrefillTotalTokens?.());
}

/** Logits per step of `modelId`'s pipeline, or `undefined` when web-llm does not tell. */
export function vocabSize(engine: MLCEngineLike, modelId: string): number | undefined {
  return readPipeline(engine, modelId, (pipeline) => pipeline.fullVocabSize);
}

/** Whether the reply `modelId`'s pipeline finishes can be read (see `finishedReply`). */
export function readsFinishedReply(engine: MLCEngineLike, modelId: string): boolean {
  const pipeline = pipelineOf(engine, modelId);
  return Array.isArray(pipeline?.outputIds) && typeof pipeline.tokenizer?.decode === 'function' && typeof pipeline.getMessage === 'function';
}

/** The reply `modelId`'s pipeline just finished, or `undefined` when web-llm does not tell. */
export function finishedReply(engine: MLCEngineLike, modelId: string): FinishedReply | undefined {
  try {
    const pipeline = pipelineOf(engine, modelId);
    if (!pipeline || !readsFinishedReply(engine, modelId)) return undefined;
    const decoded = pipeline.tokenizer!.decode!(Int32Array.from(pipeline.outputIds as number[]));
    const message = pipeline.getMessage!();
    return typeof decoded === 'string' && typeof message === 'string' ? { decoded, message } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes `modelId`'s pipeline keep the grammars it compiles (compiled-grammar-cache.ts), whenever
 * it makes its compiler. False where web-llm does not have the pipeline (then it keeps one grammar,
 * as before).
 */
export function keepCompiledGrammars(engine: MLCEngineLike, modelId: string): boolean {
  try {
    const pipeline = pipelineOf(engine, modelId) as Record<string, unknown> | undefined;
    if (!pipeline) return false;
    const own = Object.getOwnPropertyDescriptor(pipeline, 'grammarCompiler');
    // Already an accessor: installed before.
    if (own && !('value' in own)) return true;
    const cached = (value: unknown) => (isCompiler(value) ? cachingCompiler(value) : value);
    let compiler = cached(pipeline.grammarCompiler);
    Object.defineProperty(pipeline, 'grammarCompiler', {
      configurable: true,
      enumerable: true,
      get: () => compiler,
      set: (value: unknown) => {
        compiler = cached(value);
      },
    });
    return true;
  } catch {
    return false;
  }
}

function isCompiler(value: unknown): value is GrammarCompilerLike {
  const compiler = value as Partial<GrammarCompilerLike> | null | undefined;
  return typeof compiler?.compileGrammar === 'function' && typeof compiler.dispose === 'function';
}
