/**
 * The decoding loop: transformers.js's greedy `generate`, step for step (the same model inputs,
 * the same cache updates, the model's own logits processors from its generation config before
 * ours), with one difference: a step may append more than the token it chose. Where the output's
 * grammar fixes the tokens that follow (forced tokens: a member's name, the `":` after it, a
 * closing brace), they are appended without a sampling step and read by the next forward pass
 * together with the chosen token, one pass for all of them: reading k tokens costs about what
 * reading one does on a small model. Without forced tokens the tokens, the cache and the stream
 * are those of `generate` (checked on real weights, decode-loop.test.ts).
 *
 * Sampling happens in the processors (TokenSampler leaves one finite logit), so the loop only
 * ever takes the best logit, the first of equals, as `generate`'s greedy sampler does.
 * See docs/decisions/decode-loop.md.
 * @module
 */
import { DynamicCache, ones, Tensor, type GenerationConfig, type LogitsProcessorList, type PreTrainedModel } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';
import { DEFAULT_PASS_COST, type Drafter, type PassCost } from '../decoding/drafts.ts';
import type { TokenConstraint } from '../grammar/vocabulary.ts';

/** What the loop streams to: `generate`'s streamer contract (the prompt first, then each token). */
export interface TokenSink {
  put(value: bigint[][]): void;
  end(): void;
}

export interface DecodeLoopOptions {
  /** The prompt: ids and attention mask, [1, length]. */
  readonly inputs: { readonly input_ids: Tensor; readonly attention_mask: Tensor };
  /** Keys and values of the prompt's first tokens (a prefix cache's entry, a prefill's pieces), or none. */
  readonly past: DynamicCache | undefined;
  readonly maxNewTokens: number;
  /** Ours, run after the model's own (repetition penalty and the like, as its generation config says). */
  readonly processors: LogitsProcessorList;
  readonly streamer: TokenSink;
  /** Ends the loop before its next forward pass. */
  readonly signal: AbortSignal;
  /** The ids that end the output (the model's end-of-sequence tokens). */
  readonly endTokenIds: ReadonlySet<number>;
  /** Takes every token; where it tells forced tokens, they are appended without sampling. */
  readonly constraint?: TokenConstraint;
  /** Whether a forward pass may read several new tokens (false: forced tokens and drafts are not used). */
  readonly multiToken: boolean;
  /** Guesses of the next tokens, checked in the pass that reads the token chosen before them. */
  readonly drafts?: Drafter;
  /** What a pass over a draft costs, as the drafts reckon it, fixed (reproducible drafts); default: measured on this model's passes. */
  readonly passCost?: PassCost;
}

export interface Decoded {
  /** The prompt and every token generated, as `generate` returns its `sequences` row. */
  readonly sequence: bigint[];
  /** The cache after the last forward pass (holding all but the last token), to keep or dispose. */
  readonly past: DynamicCache | undefined;
  /** Tokens appended without sampling. */
  readonly forced: number;
  /** Forward passes after the prompt's. */
  readonly steps: number;
  /** Drafted tokens the model kept, and those it was asked to check and did not keep. */
  readonly drafted: { readonly accepted: number; readonly rejected: number };
}

/** transformers.js's generation internals the loop drives, as `generate` itself calls them. */
interface GenerationInternals {
  _prepare_generation_config(config: GenerationConfig | null, kwargs: Record<string, unknown>): GenerationConfig;
  _get_logits_processor(config: GenerationConfig, inputLength: number, processors: LogitsProcessorList): (ids: bigint[][], logits: Tensor) => Tensor;
  prepare_inputs_for_generation(ids: bigint[][], inputs: ModelInputs, config: GenerationConfig): ModelInputs;
  _update_model_kwargs_for_generation(args: { generated_input_ids: bigint[][]; outputs: Record<string, Tensor>; model_inputs: ModelInputs; is_encoder_decoder: boolean }): ModelInputs;
  forward(inputs: ModelInputs): Promise<Record<string, Tensor>>;
}

type ModelInputs = Record<string, unknown> & { past_key_values?: DynamicCache | null; num_logits_to_keep?: Tensor };

/**
 * One pass reads the tokens chosen since the last (the one chosen, the forced ones after it) and
 * any draft after them. The logits at the draft's positions are then read in order, each as if the
 * step before had been a pass of its own (the processors see the sequence as it stands there, the
 * grammar has taken every token before): the model's choice where it equals the draft's token
 * keeps that token and goes on; the first choice that differs is kept as the step's token and ends
 * the checking. The keys and values of draft tokens not kept are cut from the cache before the next
 * pass, so the model never attends to a token that is not in the answer.
 */
export async function decodeLoop(model: PreTrainedModel, options: DecodeLoopOptions): Promise<Decoded> {
  const { inputs, maxNewTokens, streamer, signal, endTokenIds, constraint, multiToken } = options;
  const internals = model as unknown as GenerationInternals;
  const config = internals._prepare_generation_config(null, { max_new_tokens: maxNewTokens, do_sample: false, num_beams: 1 });
  const promptLength = inputs.input_ids.dims.at(-1)!;
  const process = internals._get_logits_processor(config, promptLength, options.processors);
  const sequence = Array.from(inputs.input_ids.data as BigInt64Array);
  /** The same ids as numbers, for the drafters. */
  const ids = sequence.map(Number);
  let modelInputs: ModelInputs = { input_ids: inputs.input_ids, attention_mask: inputs.attention_mask, ...(options.past ? { past_key_values: options.past } : {}) };
  streamer.put([sequence.slice()]);
  let outputs: Record<string, Tensor> | undefined;
  let generated = 0;
  let forced = 0;
  let steps = -1;
  const drafted = { accepted: 0, rejected: 0 };
  // Drafts need a cache that can be cut on the CPU: decided at the first pass.
  let drafts = multiToken ? options.drafts : undefined;
  /** The draft read by the coming pass, after the chosen tokens it reads. */
  let draft: readonly number[] = [];
  /** How many of the sequence's tokens the cache holds once that pass is read and cut to what was kept. */
  let kept = 0;
  /** The cache to return where the last pass's had a rejected draft cut off. */
  let final: DynamicCache | undefined;
  try {
    for (;;) {
      modelInputs = internals.prepare_inputs_for_generation([sequence], modelInputs, config);
      // A model that computes only the last positions' logits computes the draft's too.
      if (modelInputs.num_logits_to_keep) modelInputs.num_logits_to_keep = new Tensor('int64', [BigInt(draft.length + 1)], []);
      const started = performance.now();
      const pass = internals.forward(modelInputs);
      // The next mask while the pass runs, where the runtime runs it off this thread.
      constraint?.mask();
      outputs = await pass;
      steps++;
      if (steps > 0) passCosts(model).heard((modelInputs.input_ids as Tensor).dims.at(-1)!, performance.now() - started);
      if (steps === 0 && drafts && !cutsOnCpu(outputs)) drafts = undefined;
      const before = sequence.length;
      // [1, positions kept, vocabulary]: the last draft.length + 1 rows choose the step's tokens.
      const rows = outputs.logits!.dims.at(-2)!;
      const read = (modelInputs.input_ids as Tensor).dims.at(-1)!;
      if (read > 1 && !modelInputs.num_logits_to_keep) logitsAtEveryPosition.set(model, rows === read);
      if (rows < draft.length + 1) throw new GatewayError('internal', `The model gave logits for ${rows} positions of a pass that checks ${draft.length} drafted tokens.`);
      let accepted = 0;
      let ended = false;
      for (let j = 0; j <= draft.length; j++) {
        if (constraint) {
          // The first row's mask was asked for while the pass ran; each later one follows the token kept before it.
          if (j > 0) constraint.mask();
          await constraint.ready();
        }
        const logits = outputs.logits!.slice(null, rows - draft.length - 1 + j, null).to('float32');
        const scores = process([sequence], logits);
        const chosen = argmax(scores.data as Float32Array);
        generated++;
        if (constraint && !constraint.terminated && !constraint.accept(chosen)) {
          throw new GatewayError('internal', `The output grammar refused token ${chosen}, which its mask allowed.`);
        }
        sequence.push(BigInt(chosen));
        ids.push(chosen);
        ended = endTokenIds.has(chosen) || constraint?.terminated === true;
        const matched = j < draft.length && chosen === draft[j];
        if (matched) accepted++;
        if (!matched || ended || generated >= maxNewTokens) break;
      }
      if (draft.length > 0) {
        drafts!.settle(draft.length, accepted);
        drafted.accepted += accepted;
        drafted.rejected += draft.length - accepted;
      }
      // Streamed once the draft is settled: whoever counts the draft's tokens hears of them first.
      for (const token of sequence.slice(before)) streamer.put([[token]]);
      // What the cache holds of the sequence after this pass: every token read, less the draft's rejected.
      kept = before + accepted;
      const cut = draft.length - accepted > 0;
      if (!ended && generated < maxNewTokens && multiToken && constraint?.forced) {
        for (const token of constraint.forced()) {
          if (generated >= maxNewTokens) break;
          if (!constraint.accept(token)) throw new GatewayError('internal', `The output grammar refused token ${token}, which it forced.`);
          sequence.push(BigInt(token));
          ids.push(token);
          streamer.put([[BigInt(token)]]);
          generated++;
          forced++;
        }
      }
      if (ended || generated >= maxNewTokens || signal.aborted) {
        // Every token but the last, as after `generate` (a kept draft's last token was read too).
        const keep = Math.min(kept, sequence.length - 1);
        if (keep < before + draft.length) final = cutCache(cacheOf(internals, outputs, modelInputs), keep);
        break;
      }
      modelInputs = internals._update_model_kwargs_for_generation({ generated_input_ids: [[sequence.at(-1)!]], outputs, model_inputs: modelInputs, is_encoder_decoder: false });
      if (cut) modelInputs.past_key_values = cutCache(modelInputs.past_key_values!, kept);
      draft = drafts && (modelInputs.num_logits_to_keep || logitsAtEveryPosition.get(model)) ? drafts.propose(ids, promptLength, maxNewTokens - generated - 1, options.passCost ?? passCosts(model).cost) : [];
      const unread = sequence.length - kept;
      if (unread > 1 || draft.length > 0 || cut) {
        // The tokens chosen since the cache's last, and the draft: read in one pass (the mask, and
        // so the positions, counted from what the cache holds, not from what the last pass read).
        modelInputs.input_ids = new Tensor('int64', BigInt64Array.from([...sequence.slice(kept), ...draft.map(BigInt)]), [1, unread + draft.length]);
        modelInputs.attention_mask = ones([1, sequence.length + draft.length]);
      }
    }
  } catch (error) {
    if (outputs) await cacheOf(internals, outputs, modelInputs).dispose();
    else if (modelInputs.past_key_values && modelInputs.past_key_values !== options.past) await modelInputs.past_key_values.dispose();
    throw error;
  }
  streamer.end();
  const past = final ?? (outputs ? cacheOf(internals, outputs, modelInputs) : undefined);
  return { sequence, past, forced, steps, drafted };
}

/**
 * Whether a model's pass gives logits at every position it reads, learned from its first pass over
 * several tokens: an export that computes the head at the last position only (to spare a large
 * vocabulary's [tokens × vocabulary] logits) cannot check drafts, and is given none. A model that
 * takes `num_logits_to_keep` is told how many positions the draft needs instead.
 */
const logitsAtEveryPosition = new WeakMap<object, boolean>();

/**
 * What a model's passes cost, measured: a one-token pass's time (a running average), and the line
 * 1 + jump + perPosition × (positions − 1) fitted, with older passes fading, to its passes over
 * several positions as multiples of it (the prompt's first pass, whose many positions cost less
 * each, is left out). Until three such passes are heard, the default.
 */
class PassCosts {
  #one: number | undefined;
  // Weighted sums for the fit: weight, x, y, x², xy (x: positions − 1, y: time over one − 1).
  #w = 0;
  #x = 0;
  #y = 0;
  #xx = 0;
  #xy = 0;
  #heard = 0;

  heard(positions: number, ms: number): void {
    if (positions === 1) {
      this.#one = this.#one === undefined ? ms : this.#one * 0.8 + ms * 0.2;
      return;
    }
    if (this.#one === undefined || positions > 64) return;
    const x = positions - 1;
    const y = ms / this.#one - 1;
    const fade = 0.95;
    this.#w = this.#w * fade + 1;
    this.#x = this.#x * fade + x;
    this.#y = this.#y * fade + y;
    this.#xx = this.#xx * fade + x * x;
    this.#xy = this.#xy * fade + x * y;
    this.#heard++;
  }

  get cost(): PassCost {
    if (this.#heard < 3) return DEFAULT_PASS_COST;
    const spread = this.#w * this.#xx - this.#x * this.#x;
    const perPosition = spread > 1e-6 * this.#w * this.#w ? clamp((this.#w * this.#xy - this.#x * this.#y) / spread, 0.001, 2) : DEFAULT_PASS_COST.perPosition;
    const jump = clamp((this.#y - perPosition * this.#x) / this.#w, 0, 4);
    return { jump, perPosition };
  }
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

const costs = new WeakMap<object, PassCosts>();
function passCosts(model: object): PassCosts {
  let known = costs.get(model);
  if (!known) costs.set(model, (known = new PassCosts()));
  return known;
}

/** Whether the pass's keys and values are in memory, where a draft's rejected tail can be cut off. */
function cutsOnCpu(outputs: Record<string, Tensor>): boolean {
  return Object.entries(outputs).every(([name, tensor]) => !name.startsWith('present') || tensor.location === 'cpu');
}

/** The cache holding only its first `length` positions (attention keys and values, sequence on axis 2). */
function cutCache(past: DynamicCache, length: number): DynamicCache {
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(past) as [string, Tensor][]) entries[name] = tensor.slice(null, null, [0, length], null);
  return new DynamicCache(entries);
}

/**
 * The cache after the last pass, as `generate` takes it: the pass's `present.*` outputs into the
 * cache object (whose replaced GPU tensors it releases); the other GPU outputs released.
 */
function cacheOf(internals: GenerationInternals, outputs: Record<string, Tensor>, modelInputs: ModelInputs): DynamicCache {
  const past = internals._update_model_kwargs_for_generation({ generated_input_ids: [[0n]], outputs, model_inputs: { ...modelInputs }, is_encoder_decoder: false }).past_key_values!;
  const cached = new Set(Object.values(past));
  for (const tensor of Object.values(outputs)) if (tensor.location === 'gpu-buffer' && !cached.has(tensor)) tensor.dispose();
  return past;
}

/** The best logit's id, the first of equals (as transformers.js's greedy sampler takes it). */
function argmax(scores: Float32Array): number {
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i]! > scores[best]!) best = i;
  return best;
}
