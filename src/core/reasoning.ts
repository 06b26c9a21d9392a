/**
 * Thinking models (Qwen3, DeepSeek-R1 distills) write their reasoning between two markers before
 * the answer. One splitter, fed the generated text token by token, tells the two apart while
 * streaming, with a marker split across tokens held back until it is known, so the thinking never
 * passes for the answer. Each wire format renders the two its own way (src/protocol).
 * See docs/decisions/thinking-apart-from-the-answer.md.
 * @module
 */

/** How a model writes its thinking: what `ModelInfo.reasoning` says. */
export interface ReasoningFormat {
  /** The marker that opens the thinking, e.g. `<think>`. */
  readonly open: string;
  /** The marker that closes it, e.g. `</think>`. */
  readonly close: string;
  /** The chat template opens the thinking in the prompt (DeepSeek-R1's ends in `<think>\n`): the output begins inside it. */
  readonly startsInside?: boolean;
  /**
   * How a request can turn the thinking off: `enable_thinking`, the chat-template switch of
   * Qwen3's template (the prompt then carries an empty thinking block). Absent: it always thinks.
   */
  readonly switch?: 'enable_thinking';
  /**
   * The thinking budget (tokens, `ChatRequest.thinkingBudget`) each `reasoning_effort` asks of
   * this model; a level left out takes `DEFAULT_THINKING_BUDGETS`' (`high`: none, the model
   * thinks as long as it does). For a model whose context window is small, say: 1024 tokens of
   * thinking leave little of a 2048-token window for the answer.
   */
  readonly budgets?: ThinkingBudgets;
}

/** Thinking budgets by effort, in tokens (positive integers); absent: no budget. */
export interface ThinkingBudgets {
  readonly low?: number;
  readonly medium?: number;
  readonly high?: number;
}

/**
 * The budgets of a model that names none: `low` is Anthropic's smallest `budget_tokens`, so
 * the least thinking either API can ask for is the same; `medium` four times that; `high` none
 * (the model's own thinking, `max_tokens` capping it with the answer).
 * See docs/decisions/thinking-budget.md.
 */
export const DEFAULT_THINKING_BUDGETS: ThinkingBudgets = { low: 1024, medium: 4096 };

/** The budget an effort asks of a model that writes its thinking so, or none (no cap on the thinking). */
export function thinkingBudgetFor(format: ReasoningFormat, effort: 'low' | 'medium' | 'high'): number | undefined {
  return format.budgets?.[effort] ?? DEFAULT_THINKING_BUDGETS[effort];
}

/** What one piece of generated text was: thinking, answer, or both (a piece with the closing marker). */
export interface ReasoningSplit {
  readonly reasoning: string;
  readonly answer: string;
  /** Generated tokens now known to belong to the thinking (markers included). */
  readonly reasoningTokens: number;
}

type State = 'start' | 'inside' | 'after-close' | 'answer';

/**
 * Splits one reply. Whitespace right after the opening marker, before the closing one, and
 * between the thinking and the answer is dropped (the template writes it, not the model's
 * thought). A reply that does not open with the marker is all answer, unchanged; thinking that
 * never closes (cut by the token cap) stays thinking.
 */
export class ReasoningSplitter {
  readonly #format: ReasoningFormat;
  #state: State;
  /** Text not yet known to be thinking or answer (a marker's start), or trailing whitespace of the thinking. */
  #held = '';
  /** Tokens pushed while it was not yet known whether the reply opens with thinking. */
  #undecided = 0;
  /** Whether any thinking text has been given out (leading whitespace is dropped until then). */
  #thought = false;

  constructor(format: ReasoningFormat) {
    this.#format = format;
    this.#state = format.startsInside ? 'inside' : 'start';
  }

  /** Whether the reply is in its thinking now. */
  get thinking(): boolean {
    return this.#state === 'inside';
  }

  /** One generated token's text. */
  push(text: string): ReasoningSplit {
    if (this.#state === 'answer') return { reasoning: '', answer: text, reasoningTokens: 0 };
    const wasInside = this.#state === 'inside';
    let reasoningTokens = 0;
    if (this.#state === 'start') {
      this.#undecided++;
      const { open } = this.#format;
      const buffer = this.#held + text;
      const lead = buffer.trimStart();
      if (open.startsWith(lead)) {
        this.#held = buffer;
        return { reasoning: '', answer: '', reasoningTokens: 0 };
      }
      if (!lead.startsWith(open)) {
        this.#state = 'answer';
        this.#held = '';
        this.#undecided = 0;
        return { reasoning: '', answer: buffer, reasoningTokens: 0 };
      }
      this.#state = 'inside';
      this.#held = '';
      reasoningTokens = this.#undecided;
      this.#undecided = 0;
      text = lead.slice(open.length);
    } else if (wasInside) {
      reasoningTokens = 1;
    }
    let reasoning = '';
    let answer = '';
    if (this.#state === 'inside') {
      const { close, open } = this.#format;
      let buffer = this.#held + text;
      // A template that opens the thinking itself may still see the model write the marker again.
      if (this.#format.startsInside && !this.#thought) {
        const lead = buffer.trimStart();
        if (lead.startsWith(open)) buffer = lead.slice(open.length);
        else if (lead.length < open.length && open.startsWith(lead)) {
          this.#held = buffer;
          return { reasoning: '', answer: '', reasoningTokens };
        }
      }
      const at = buffer.indexOf(close);
      if (at === -1) {
        // Held: a start of the closing marker, and the whitespace before it (dropped if it closes).
        const partial = partialSuffix(buffer, close);
        const head = buffer.slice(0, buffer.length - partial);
        const keep = partial + head.length - head.trimEnd().length;
        this.#held = buffer.slice(buffer.length - keep);
        reasoning = this.#think(buffer.slice(0, buffer.length - keep));
        return { reasoning, answer: '', reasoningTokens };
      }
      reasoning = this.#think(buffer.slice(0, at).trimEnd());
      this.#held = '';
      this.#state = 'after-close';
      text = buffer.slice(at + close.length);
    }
    if (this.#state === 'after-close') {
      const rest = text.trimStart();
      if (rest) {
        this.#state = 'answer';
        answer = rest;
      }
    }
    return { reasoning, answer, reasoningTokens };
  }

  /** The end of the reply: what was held back. */
  flush(): { reasoning: string; answer: string } {
    const held = this.#held;
    this.#held = '';
    if (this.#state === 'start') return { reasoning: '', answer: held };
    if (this.#state === 'inside') return { reasoning: this.#think(held.trimEnd()), answer: '' };
    return { reasoning: '', answer: '' };
  }

  #think(text: string): string {
    const out = this.#thought ? text : text.trimStart();
    if (out) this.#thought = true;
    return out;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
