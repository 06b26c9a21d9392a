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
 * - The number of logits a step yields (`fullVocabSize`, its mlc-chat-config.json `vocab_size`),
 *   so a `logit_bias` token id past it is a 400 instead of a write outside web-llm's logits buffer
 *   (web-llm checks only the bias range).
 * @module
 */

import type { MLCEngineLike } from './mlc-engine-like.ts';

/** The part of web-llm's MLCEngine internals read here. */
interface PipelineInternals {
  readonly loadedModelIdToPipeline?: { get?(modelId: string): { getCurRoundPrefillTotalTokens?(): unknown; fullVocabSize?: unknown } | undefined };
}

/** `read` applied to `modelId`'s pipeline: a positive integer, or `undefined` when web-llm does not tell. */
function readPipeline(engine: MLCEngineLike, modelId: string, read: (pipeline: { getCurRoundPrefillTotalTokens?(): unknown; fullVocabSize?: unknown }) => unknown): number | undefined {
  try {
    const pipeline = (engine as PipelineInternals).loadedModelIdToPipeline?.get?.(modelId);
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
