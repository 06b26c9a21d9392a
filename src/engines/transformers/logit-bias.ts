/**
 * `logit_bias` as a logits processor: each biased token's logit gets its bias added before the
 * grammar mask and the sampler run, so a masked token stays masked (a grammar still wins) and the
 * sampler sees the biased scores. The model's logits are roughly unit-scaled, so -100 is in effect
 * a ban and 100 in effect the only choice, as OpenAI describes them.
 * @module
 */

import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';

/** Refuses a token id the model has no logit for (a 400 naming `logit_bias`). */
export function checkLogitBias(bias: ReadonlyMap<number, number>, logitsSize: number): void {
  for (const id of bias.keys()) {
    if (id >= logitsSize) {
      throw new GatewayError('invalid_request', `Invalid 'logit_bias': token id ${id} is not in this model's vocabulary, whose ids run from 0 to ${logitsSize - 1}.`, {
        param: 'logit_bias',
      });
    }
  }
}

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
