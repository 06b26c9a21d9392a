/**
 * Constrained decoding for transformers.js: a logits processor that masks every token the grammar
 * does not allow next (it runs before the sampler, so sampling only ever sees allowed tokens), and
 * a stopping criterion that feeds each generated token to the grammar. The criterion runs right
 * after a token is chosen, so the next mask is computed while the model runs its next forward pass.
 * @module
 */
import { LogitsProcessor, StoppingCriteria, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';
import { createConstraintCompiler, type ConstraintCompiler, type TokenConstraint, type VocabType } from '../grammar/token-constraint.ts';
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

export class GrammarProgress extends StoppingCriteria {
  private readonly constraint: TokenConstraint;
  private readonly promptLength: number;

  constructor(constraint: TokenConstraint, promptLength: number) {
    super();
    this.constraint = constraint;
    this.promptLength = promptLength;
  }

  override _call(inputIds: (number | bigint)[][]): boolean[] {
    const ids = inputIds[0] ?? [];
    if (ids.length > this.promptLength && !this.constraint.terminated) {
      const token = Number(ids.at(-1));
      if (!this.constraint.accept(token)) throw new GatewayError('internal', `The output grammar refused token ${token}, which its mask allowed.`);
    }
    return inputIds.map(() => this.constraint.terminated);
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
    const vocabulary = vocabularyOf(tokenizer);
    // The logits may be padded past the vocabulary; without the model's size, the vocabulary's.
    const size = Math.max(logitsSize ?? 0, vocabulary.tokens.length);
    // Special tokens (added tokens marked `special`) are never text, whatever their spelling.
    const made = createConstraintCompiler(xgrammar, { ...vocabulary, size, stopTokenIds: [...stopTokenIds], specialTokenIds: [...tokenizer.all_special_ids] });
    made.catch(() => byTokenizer.delete(tokenizer));
    byTokenizer.set(tokenizer, (compiler = made));
  }
  return compiler;
}

interface TokenizerJson {
  readonly decoder?: { readonly type?: string; readonly decoders?: readonly { readonly type?: string }[] } | null;
  readonly model?: { readonly byte_fallback?: boolean };
  readonly normalizer?: { readonly type?: string; readonly prepend?: string; readonly normalizers?: readonly { readonly type?: string }[] } | null;
}

/** The tokens by id and how they spell bytes, read from the tokenizer's own tokenizer.json. */
function vocabularyOf(tokenizer: PreTrainedTokenizer): { tokens: string[]; type: VocabType; prependSpace: boolean } {
  const vocab = (tokenizer as unknown as { get_vocab(): Map<string, number> | Record<string, number> }).get_vocab();
  const tokens: string[] = [];
  for (const [token, id] of vocab instanceof Map ? vocab : Object.entries(vocab)) tokens[id] = token;
  for (let id = 0; id < tokens.length; id++) tokens[id] ??= '';
  const json = (tokenizer as unknown as { _tokenizerJSON?: TokenizerJson })._tokenizerJSON ?? {};
  const decoders = [json.decoder?.type, ...(json.decoder?.decoders ?? []).map((d) => d.type)];
  const type: VocabType = decoders.includes('ByteLevel') ? 'byte_level' : decoders.includes('ByteFallback') || json.model?.byte_fallback ? 'byte_fallback' : 'raw';
  const normalizers = [json.normalizer, ...(json.normalizer?.normalizers ?? [])];
  const prependSpace = normalizers.some((n) => n?.type === 'Prepend') || decoders.includes('Metaspace');
  return { tokens, type, prependSpace };
}
