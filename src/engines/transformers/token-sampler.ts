/**
 * Token choice as a logits processor, so generation itself always runs greedy.
 *
 * transformers.js samples with one global, unseeded PRNG and ignores `top_p`; doing the choice here
 * gives each request its own PRNG (so `seed` makes sampling reproducible, whatever else runs
 * concurrently), real top-k/top-p, and OpenAI-style presence/frequency penalties. The processor
 * leaves exactly one finite logit, which the greedy step then picks.
 * @module
 */

import { LogitsProcessor, type Tensor } from '@huggingface/transformers';
import type { ChatRequest } from '../../core/engine.ts';

/** Temperature 0 or absent is greedy; an absent seed is a random one. */
export type SamplingParams = Pick<ChatRequest, 'temperature' | 'topP' | 'topK' | 'seed' | 'presencePenalty' | 'frequencyPenalty'>;

/** Whether a request needs the processor at all (plain greedy does not). */
export function needsSampler(params: SamplingParams): boolean {
  return (params.temperature ?? 0) > 0 || !!params.presencePenalty || !!params.frequencyPenalty;
}

export class TokenSampler extends LogitsProcessor {
  private readonly params: SamplingParams;
  private readonly promptLength: number;
  private readonly random: () => number;

  constructor(params: SamplingParams, promptLength: number) {
    super();
    this.params = params;
    this.promptLength = promptLength;
    this.random = mulberry32(params.seed ?? crypto.getRandomValues(new Uint32Array(1))[0]!);
  }

  override _call(inputIds: bigint[][], logits: Tensor): Tensor {
    const rows = logits.dims[0] ?? 1;
    const vocab = logits.dims.at(-1)!;
    const data = logits.data as Float32Array;
    for (let row = 0; row < rows; row++) {
      const scores = data.subarray(row * vocab, (row + 1) * vocab);
      this.penalise(scores, inputIds[row]?.slice(this.promptLength) ?? []);
      const chosen = (this.params.temperature ?? 0) > 0 ? this.sample(scores) : argmax(scores);
      scores.fill(-Infinity);
      scores[chosen] = 0;
    }
    return logits;
  }

  /** Penalties count generated tokens only, as OpenAI-compatible servers do. */
  private penalise(scores: Float32Array, generated: bigint[]): void {
    const presence = this.params.presencePenalty ?? 0;
    const frequency = this.params.frequencyPenalty ?? 0;
    if (!presence && !frequency) return;
    const counts = new Map<number, number>();
    for (const id of generated) counts.set(Number(id), (counts.get(Number(id)) ?? 0) + 1);
    for (const [id, count] of counts) scores[id]! -= presence + frequency * count;
  }

  private sample(scores: Float32Array): number {
    const temperature = this.params.temperature!;
    const topK = this.params.topK ?? 0;
    const topP = this.params.topP ?? 1;
    let candidates: number[] = [];
    let max = -Infinity;
    for (let i = 0; i < scores.length; i++) {
      if (scores[i] === -Infinity) continue;
      candidates.push(i);
      if (scores[i]! > max) max = scores[i]!;
    }
    // Sorting (best first, ties by id) is only needed to cut the tail.
    if ((topK > 0 && topK < candidates.length) || topP < 1) {
      candidates.sort((a, b) => scores[b]! - scores[a]! || a - b);
      if (topK > 0) candidates = candidates.slice(0, topK);
    }
    let weights = candidates.map((i) => Math.exp((scores[i]! - max) / temperature));
    let total = weights.reduce((a, b) => a + b, 0);
    if (topP < 1) {
      // The smallest best-first prefix whose probability reaches topP.
      let kept = 0;
      let mass = 0;
      while (kept < weights.length && mass < topP * total) mass += weights[kept++]!;
      candidates = candidates.slice(0, kept);
      weights = weights.slice(0, kept);
      total = mass;
    }
    let r = this.random() * total;
    for (let k = 0; k < candidates.length; k++) {
      r -= weights[k]!;
      if (r < 0) return candidates[k]!;
    }
    return candidates.at(-1) ?? 0;
  }
}

function argmax(scores: Float32Array): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  return best;
}

/** Small seeded PRNG; quality is ample for picking tokens. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
