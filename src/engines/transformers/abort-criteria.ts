/**
 * Stops `generate` at the next step once a signal fires. transformers.js checks its stopping
 * criteria after every token, so an abort costs at most one more forward pass.
 * @module
 */

import { StoppingCriteria } from '@huggingface/transformers';

export class AbortCriteria extends StoppingCriteria {
  private readonly signal: AbortSignal;

  constructor(signal: AbortSignal) {
    super();
    this.signal = signal;
  }

  override _call(inputIds: number[][]): boolean[] {
    return inputIds.map(() => this.signal.aborted);
  }
}
