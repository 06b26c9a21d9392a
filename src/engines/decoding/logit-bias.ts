/**
 * What every engine that applies `logit_bias` checks: the parser knows the ids are non-negative
 * integers, only the engine knows how many logits its model has.
 * @module
 */
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
