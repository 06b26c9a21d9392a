/**
 * Draft tokens for speculative decoding: guesses of what the model will write next, which the
 * decoder checks in one forward pass together with the token it just chose (decode-loop.ts keeps
 * the guesses the model agrees with and the first token where it does not). A draft never changes
 * the answer: every kept token is the one the model chose at its position. It only decides how
 * many positions one pass reads, so a good draft saves passes and a bad one costs the extra
 * positions of a pass (on a small model, a fraction of a step each).
 *
 * Two sources, engine-neutral, both n-gram lookups:
 * - **A prediction** (OpenAI's predicted outputs): the caller's guess of the whole answer, a file
 *   with a change in it. Followed from where the answer last matched it, re-found after an edit by
 *   the answer's last tokens.
 * - **Prompt lookup**: the prompt and the answer so far. Where the answer's last tokens occurred
 *   before, what followed them then is proposed (an answer quoting its passage, code edited in
 *   place, a document re-emitted). Adaptive: a lookup the model keeps rejecting backs off, so free
 *   chat, where matches are chance, pays next to nothing.
 * See docs/decisions/speculative-decoding.md.
 * @module
 */

/** Proposes tokens to check, and hears back how many of them the model kept. */
export interface Drafter {
  /**
   * Tokens guessed to follow `sequence` (the prompt, then every token generated so far, the one
   * just chosen last), at most `max`; empty for no guess.
   */
  propose(sequence: readonly number[], generatedFrom: number, max: number, cost?: PassCost): readonly number[];
  /**
   * Of the last proposal's `proposed` tokens, the model kept the first `accepted`. (`cost` above:
   * what a pass over a draft costs the model; see PassCost.)
   */
  settle(proposed: number, accepted: number): void;
}

/** What drafting did in one answer, for the usage and the figures. */
export interface DraftCounts {
  /** Guessed tokens the model kept. */
  readonly accepted: number;
  /** Guessed tokens the model was asked to check and did not keep. */
  readonly rejected: number;
}

/** The longest n-gram matched, and the shortest: one token matches by chance too often. */
const LOOKUP_NGRAM_MAX = 4;
const LOOKUP_NGRAM_MIN = 2;

/**
 * Where the last `n` tokens of `tokens` (for the longest n from `longest` down to `shortest`) occur
 * in `source` at an end no later than `before`, the latest such end; -1 where none does. The end
 * is the index in `source` just after the match: what follows the match is proposed from there.
 */
export function lastMatchEnd(source: readonly number[], before: number, tokens: readonly number[], longest: number, shortest: number): number {
  for (let n = Math.min(longest, tokens.length); n >= shortest; n--) {
    const tail = tokens.length - n;
    for (let end = Math.min(before, source.length); end >= n; end--) {
      let k = 0;
      while (k < n && source[end - n + k] === tokens[tail + k]) k++;
      if (k === n) return end;
    }
  }
  return -1;
}

/**
 * What a pass that reads a draft of k tokens costs, in one-token passes: 1 + `jump` + k ×
 * `perPosition`. The jump is real: onnxruntime's CPU kernels take another path for a product of
 * more than one row (the real-shaped Qwen, q4 on onnxruntime-node: 114 ms for one token, 177 for
 * two, 208 for eight, 430 for 32; q8: 55, 64, 91, 226), so a short draft can cost more than it
 * saves where a long one pays many times. The decoder measures both on each model's passes.
 */
export interface PassCost {
  readonly jump: number;
  readonly perPosition: number;
}

/** Until the decoder has measured the model's passes. */
export const DEFAULT_PASS_COST: PassCost = { jump: 0.4, perPosition: 0.05 };

/**
 * How many tokens to guess: the length that gives the most tokens per unit of time, by what the
 * model kept of this source's guesses so far. Each guessed token is taken to be kept with one
 * chance p (kept tokens over kept tokens and cuts, the older evidence fading), so k guesses keep
 * p + p² + … + p^k on average, one more token comes with the pass, and the pass costs as PassCost
 * says: guessing happens only where that beats a one-token pass by a tenth. Where no length
 * pays, one is tried every 32nd step (at the longest length the model would pay for were p
 * high), so that a source that starts to agree is heard again.
 */
class DraftLength {
  #kept: number;
  #cut = 1;
  #idle = 0;
  readonly #ceiling: number;

  constructor(prior: number, ceiling: number) {
    // The prior: as if `prior` of every guess had been kept (prior / (prior + 1) chance a token).
    this.#kept = prior;
    this.#ceiling = ceiling;
  }

  length(cost: PassCost, cap = Infinity): number {
    const p = this.#kept / (this.#kept + this.#cut);
    let best = 0;
    let bestRate = 1.1;
    let expected = 0;
    let pk = 1;
    for (let k = 1; k <= Math.min(this.#ceiling, cap); k++) {
      pk *= p;
      expected += pk;
      const rate = (1 + expected) / (1 + cost.jump + cost.perPosition * k);
      if (rate > bestRate) {
        bestRate = rate;
        best = k;
      }
    }
    if (best > 0) this.#idle = 0;
    else if (++this.#idle % 32 === 0) return Math.min(this.#ceiling, cap, 8);
    return best;
  }

  settle(proposed: number, accepted: number): void {
    if (proposed === 0) return;
    // Evidence fades by a tenth a guess: a prediction right again after an edit is believed again.
    this.#kept = this.#kept * 0.9 + accepted;
    this.#cut = this.#cut * 0.9 + (accepted < proposed ? 1 : 0);
  }
}

/**
 * The caller's predicted answer as a draft. The answer is expected to follow the prediction from
 * where they last agreed (`#next`); where the model wrote something else (an edit), the answer's
 * last few tokens find the place in the prediction again, the nearest one after the old place
 * first. Nothing is guessed while the answer is somewhere the prediction does not have.
 */
export class PredictionDrafter implements Drafter {
  readonly #prediction: readonly number[];
  readonly #length: DraftLength;
  /** Index in the prediction of the token expected next (after the last one the answer matched). */
  #next = 0;
  /** A replaced token was guessed since the answer last kept a guess: not again until it does. */
  #guessed = false;

  constructor(prediction: readonly number[], { prior = 2, ceiling = 32 }: { prior?: number; ceiling?: number } = {}) {
    this.#prediction = prediction;
    this.#length = new DraftLength(prior, ceiling);
  }

  propose(sequence: readonly number[], generatedFrom: number, max: number, cost = DEFAULT_PASS_COST): readonly number[] {
    const prediction = this.#prediction;
    const answer = sequence.slice(generatedFrom);
    const last = answer.at(-1);
    if (last === undefined) return [];
    let from: number;
    // A place found again is less sure than one followed: its guess is kept short until it holds.
    let cap = Infinity;
    if (prediction[this.#next] === last) from = this.#next + 1;
    else {
      cap = 16;
      // The answer left the prediction: find its last tokens there, after the old place first,
      // then its last token a little ahead (a token the answer left out), then, once, the place
      // after the old one (a token the answer replaced).
      from = matchAfter(prediction, this.#next, answer);
      if (from < 0) from = lastMatchEnd(prediction, prediction.length, answer, 8, 2);
      if (from < 0) {
        const at = prediction.indexOf(last, this.#next);
        if (at >= 0 && at < this.#next + 8) from = at + 1;
      }
      if (from < 0 && !this.#guessed) {
        from = this.#next + 1;
        this.#guessed = true;
        cap = 8;
      }
      if (from < 0 || from >= prediction.length) return [];
    }
    this.#next = from;
    return prediction.slice(from, from + Math.min(max, this.#length.length(cost, cap)));
  }

  settle(proposed: number, accepted: number): void {
    this.#length.settle(proposed, accepted);
    if (accepted > 0) this.#guessed = false;
    // The token after the kept ones is the model's own; the next proposal checks whether it is the prediction's.
    this.#next += accepted;
  }
}

/** The first end after `from` (inclusive) where the answer's last 2–8 tokens occur in `source`; -1 for none. */
function matchAfter(source: readonly number[], from: number, answer: readonly number[]): number {
  for (let n = Math.min(8, answer.length); n >= Math.min(2, answer.length); n--) {
    const tail = answer.length - n;
    for (let end = Math.max(n, from + 1); end <= source.length; end++) {
      let k = 0;
      while (k < n && source[end - n + k] === answer[tail + k]) k++;
      if (k === n) return end;
    }
  }
  return -1;
}

/**
 * Prompt lookup: the answer's last 2–4 tokens looked up in everything before them (the prompt
 * and the answer so far, the latest occurrence first), and what followed them there proposed.
 * A proposal the model rejects outright makes the lookup rest for a number of steps that doubles
 * each time (up to 64), and a kept one wakes it again: where matches are chance (free chat), at
 * most one pass in many reads a few extra positions.
 */
export class PromptLookupDrafter implements Drafter {
  readonly #length: DraftLength;
  #rest = 0;
  #restAfterMiss = 1;

  constructor({ prior = 2, ceiling = 16 }: { prior?: number; ceiling?: number } = {}) {
    this.#length = new DraftLength(prior, ceiling);
  }

  propose(sequence: readonly number[], _generatedFrom: number, max: number, cost = DEFAULT_PASS_COST): readonly number[] {
    if (this.#rest > 0) {
      this.#rest--;
      return [];
    }
    const tail = sequence.slice(-LOOKUP_NGRAM_MAX);
    // An earlier occurrence: one that ends before the tail itself begins to end.
    const end = lastMatchEnd(sequence, sequence.length - 1, tail, LOOKUP_NGRAM_MAX, LOOKUP_NGRAM_MIN);
    if (end < 0) return [];
    return sequence.slice(end, end + Math.min(max, this.#length.length(cost)));
  }

  settle(proposed: number, accepted: number): void {
    if (proposed === 0) return;
    this.#length.settle(proposed, accepted);
    if (accepted === 0) {
      this.#rest = this.#restAfterMiss;
      this.#restAfterMiss = Math.min(64, this.#restAfterMiss * 2);
    } else this.#restAfterMiss = 1;
  }
}

/**
 * The prediction's guesses first, prompt lookup's where the prediction has none; counts what the
 * prediction's guesses came to (the usage OpenAI reports), apart from the lookup's.
 */
export class Drafts implements Drafter {
  readonly #prediction: PredictionDrafter | undefined;
  readonly #lookup: PromptLookupDrafter | undefined;
  #last: Drafter | undefined;
  #counts = { prediction: { accepted: 0, rejected: 0 }, lookup: { accepted: 0, rejected: 0 } };

  constructor(prediction: PredictionDrafter | undefined, lookup: PromptLookupDrafter | undefined) {
    this.#prediction = prediction;
    this.#lookup = lookup;
  }

  propose(sequence: readonly number[], generatedFrom: number, max: number, cost = DEFAULT_PASS_COST): readonly number[] {
    this.#last = undefined;
    if (max <= 0) return [];
    for (const drafter of [this.#prediction, this.#lookup]) {
      if (!drafter) continue;
      const draft = drafter.propose(sequence, generatedFrom, max, cost);
      if (draft.length > 0) {
        this.#last = drafter;
        return draft;
      }
    }
    return [];
  }

  settle(proposed: number, accepted: number): void {
    const drafter = this.#last;
    this.#last = undefined;
    if (!drafter) return;
    drafter.settle(proposed, accepted);
    const counts = drafter === this.#prediction ? this.#counts.prediction : this.#counts.lookup;
    counts.accepted += accepted;
    counts.rejected += proposed - accepted;
  }

  /** The prediction's guesses kept and rejected (zero where there was none). */
  get prediction(): DraftCounts {
    return { ...this.#counts.prediction };
  }

  get lookup(): DraftCounts {
    return { ...this.#counts.lookup };
  }
}
