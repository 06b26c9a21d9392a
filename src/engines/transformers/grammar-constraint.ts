/**
 * Constrained decoding for transformers.js: a logits processor that masks every token the grammar
 * does not allow next (it runs before the sampler, so sampling only ever sees allowed tokens). The
 * decoding loop (decode-loop.ts) feeds each token to the grammar and appends the tokens it forces.
 * @module
 */
import { LogitsProcessor, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';
import { createConstraintCompiler, type ConstraintCompiler } from '../grammar/token-constraint.ts';
import type { TokenConstraint } from '../grammar/vocabulary.ts';
import { tokenizerVocabulary } from './tokenizer-vocabulary.ts';
import type { XGrammar } from '../grammar/xgrammar.ts';

export class GrammarMask extends LogitsProcessor {
  private readonly constraint: TokenConstraint;

  constructor(constraint: TokenConstraint) {
    super();
    this.constraint = constraint;
  }

  override _call(_inputIds: bigint[][], logits: Tensor): Tensor {
    const mask = this.constraint.mask();
    // Never decode unconstrained: a mask that is not ready is a failure, not a free step.
    if (!mask) throw new GatewayError('internal', 'The output grammar fell behind decoding.');
    const vocab = logits.dims.at(-1)!;
    const data = logits.data as Float32Array;
    for (let row = 0; row < data.length / vocab; row++) {
      const scores = data.subarray(row * vocab, (row + 1) * vocab);
      for (let id = 0; id < vocab; id++) if (((mask[id >> 5] ?? 0) & (1 << (id & 31))) === 0) scores[id] = -Infinity;
    }
    return logits;
  }
}

/** Per xgrammar instance (a fresh one replaces any that fails), per tokenizer. */
const compilers = new WeakMap<XGrammar, WeakMap<object, Promise<ConstraintCompiler>>>();

/** The constraint compiler for a tokenizer (built once per loaded model and xgrammar instance). */
export function constraintCompilerFor(xgrammar: XGrammar, tokenizer: PreTrainedTokenizer, logitsSize: number | undefined, stopTokenIds: Iterable<number>): Promise<ConstraintCompiler> {
  let byTokenizer = compilers.get(xgrammar);
  if (!byTokenizer) compilers.set(xgrammar, (byTokenizer = new WeakMap()));
  let compiler = byTokenizer.get(tokenizer);
  if (!compiler) {
    const made = createConstraintCompiler(xgrammar, tokenizerVocabulary(tokenizer, logitsSize, stopTokenIds));
    made.catch(() => byTokenizer.delete(tokenizer));
    byTokenizer.set(tokenizer, (compiler = made));
  }
  return compiler;
}
