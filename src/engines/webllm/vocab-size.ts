/**
 * The number of logits a loaded web-llm model yields per step, so a `logit_bias` token id past it
 * is a 400 instead of a write outside web-llm's logits buffer (web-llm checks only the bias range).
 * web-llm keeps it as the pipeline's `fullVocabSize` (its mlc-chat-config.json `vocab_size`); the
 * pipeline is internal (see prefill-tokens.ts), so the access is confined to this function, and
 * `vocab-size.test.ts` fails when the installed web-llm no longer has it.
 * @module
 */

import type { MLCEngineLike } from './mlc-engine-like.ts';

interface VocabStats {
  readonly loadedModelIdToPipeline?: { get?(modelId: string): { fullVocabSize?: unknown } | undefined };
}

/** Logits per step of `modelId`'s pipeline, or `undefined` when web-llm does not tell. */
export function vocabSize(engine: MLCEngineLike, modelId: string): number | undefined {
  try {
    const size = (engine as VocabStats).loadedModelIdToPipeline?.get?.(modelId)?.fullVocabSize;
    return typeof size === 'number' && Number.isInteger(size) && size > 0 ? size : undefined;
  } catch {
    return undefined;
  }
}
