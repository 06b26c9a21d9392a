/**
 * `logit_bias` as a logits processor: each biased token's logit gets its bias added before the
 * grammar mask and the sampler run, so a masked token stays masked (a grammar still wins) and the
 * sampler sees the biased scores. A model's logits span some tens at most, so -100 is in effect a
 * ban and 100 in effect the only choice (among what the grammar allows), as OpenAI describes them.
 * @module
 */

import { LogitsProcessor, type Tensor } from '@huggingface/transformers';

export class LogitBias extends LogitsProcessor {
  private readonly entries: readonly (readonly [number, number])[];

  constructor(bias: ReadonlyMap<number, number>) {
    super();
    this.entries = [...bias];
  }

  override _call(_inputIds: bigint[][], logits: Tensor): Tensor {
    const vocab = logits.dims.at(-1)!;
    const data = logits.data as Float32Array;
    for (let row = 0; row < data.length / vocab; row++) {
      for (const [id, bias] of this.entries) if (id < vocab) data[row * vocab + id]! += bias;
    }
    return logits;
  }
}
