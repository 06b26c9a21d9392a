/**
 * A thinking budget kept: a logits processor that, once the reply's thinking has taken the
 * request's `thinkingBudget` of generated tokens without closing, leaves only the closing
 * marker's tokens possible, one a step, then lets the model answer. It reads the reply as the
 * gateway does (core/reasoning.ts's splitter, fed each generated token's text), so its count of
 * thinking tokens is the one usage reports. It runs before the grammar's mask and the sampler:
 * the grammar sees the marker as the next token (a grammar for a thinking model allows the
 * closing marker anywhere in the thinking, ebnf.ts), and the sampler finds one finite logit.
 * See docs/decisions/thinking-budget.md.
 * @module
 */

import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import { ReasoningSplitter, type ReasoningFormat } from '../../core/reasoning.ts';

export interface ThinkingBudgetOptions {
  /** Thinking tokens (the opening marker and anything before it included) before the close is forced; at least 1. */
  readonly budget: number;
  readonly format: ReasoningFormat;
  /** The closing marker in the model's tokens (Qwen3's `</think>` is one added token). */
  readonly closeIds: readonly number[];
  /** Tokens of the prompt: `input_ids` carries them before the generated ones. */
  readonly promptLength: number;
  /** One token's text, as the streamer gives it (special tokens skipped). */
  readonly decode: (id: number) => string;
}

export class ThinkingBudget extends LogitsProcessor {
  private readonly options: ThinkingBudgetOptions;
  private readonly splitter: ReasoningSplitter;
  private readonly texts = new Map<number, string>();
  /** Generated tokens read so far. */
  private seen = 0;
  /** Of them, those known to be thinking. */
  private thinkingTokens = 0;
  /** How many of the closing marker's tokens were forced (undefined: none yet). */
  private forced: number | undefined;

  constructor(options: ThinkingBudgetOptions) {
    super();
    if (!(Number.isInteger(options.budget) && options.budget >= 1)) throw new Error(`A thinking budget is a whole number of tokens, at least 1: ${options.budget}.`);
    if (options.closeIds.length === 0) throw new Error('The closing marker has no tokens.');
    this.options = options;
    this.splitter = new ReasoningSplitter(options.format);
  }

  /** Whether the processor has forced (or is forcing) the close. */
  get closedByBudget(): boolean {
    return this.forced !== undefined;
  }

  override _call(inputIds: bigint[][], logits: Tensor): Tensor {
    const { promptLength, closeIds, budget } = this.options;
    const ids = inputIds[0] ?? [];
    for (; promptLength + this.seen < ids.length; this.seen++) {
      this.thinkingTokens += this.splitter.push(this.textOf(Number(ids[promptLength + this.seen]))).reasoningTokens;
    }
    let next: number | undefined;
    if (this.forced !== undefined) {
      if (this.forced < closeIds.length) next = closeIds[this.forced++];
    } else if (this.splitter.thinking && this.thinkingTokens >= budget) {
      next = closeIds[0];
      this.forced = 1;
    }
    if (next === undefined) return logits;
    const vocab = logits.dims.at(-1)!;
    const data = logits.data as Float32Array;
    for (let row = 0; row < data.length / vocab; row++) {
      const scores = data.subarray(row * vocab, (row + 1) * vocab);
      scores.fill(-Infinity);
      scores[next] = 0;
    }
    return logits;
  }

  private textOf(id: number): string {
    let text = this.texts.get(id);
    if (text === undefined) this.texts.set(id, (text = this.options.decode(id)));
    return text;
  }
}
