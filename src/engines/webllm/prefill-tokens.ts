/**
 * The exact number of prompt tokens web-llm has just prefilled, read before its usage chunk.
 *
 * web-llm reports `prompt_tokens` only in the last chunk of a stream, and a generation the gateway
 * closes early (a token cap, a stop sequence, a client gone) never reads that chunk. The figure it
 * reports there is `pipeline.getCurRoundPrefillTotalTokens()`, which the pipeline sets during
 * prefill, and the first chunk is streamed only after prefill; so once the first chunk is here the
 * exact count can be read from the pipeline. That pipeline is internal (`loadedModelIdToPipeline`
 * is private in web-llm's types and the pipeline class is not exported): the access is confined to
 * this function, and `prefill-tokens.test.ts` fails when the installed web-llm no longer has it.
 * Present, with the same meaning, in 0.2.79 (the oldest version the project runs on) through 0.2.86.
 * @module
 */

import type { MLCEngineLike } from './mlc-engine-like.ts';

/** The part of web-llm's MLCEngine internals read here; every step is optional, as a future web-llm may drop it. */
interface PrefillStats {
  readonly loadedModelIdToPipeline?: { get?(modelId: string): { getCurRoundPrefillTotalTokens?(): unknown } | undefined };
}

/** Prompt tokens of the current round of `modelId`'s pipeline, or `undefined` when web-llm does not tell. */
export function prefillTokens(engine: MLCEngineLike, modelId: string): number | undefined {
  try {
    const pipeline = (engine as PrefillStats).loadedModelIdToPipeline?.get?.(modelId);
    const count = pipeline?.getCurRoundPrefillTotalTokens?.();
    // Every prompt has at least one token: 0 means the pipeline did not count this round.
    return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : undefined;
  } catch {
    return undefined;
  }
}
