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
import { ones, Tensor, type DynamicCache, type GenerationConfig, type LogitsProcessorList, type PreTrainedModel } from '@huggingface/transformers';
import { GatewayError } from '../../core/errors.ts';
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
  /** Whether a forward pass may read several new tokens (false: forced tokens are not used). */
  readonly multiToken: boolean;
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
}

/** transformers.js's generation internals the loop drives, as `generate` itself calls them. */
interface GenerationInternals {
  _prepare_generation_config(config: GenerationConfig | null, kwargs: Record<string, unknown>): GenerationConfig;
  _get_logits_processor(config: GenerationConfig, inputLength: number, processors: LogitsProcessorList): (ids: bigint[][], logits: Tensor) => Tensor;
  prepare_inputs_for_generation(ids: bigint[][], inputs: ModelInputs, config: GenerationConfig): ModelInputs;
  _update_model_kwargs_for_generation(args: { generated_input_ids: bigint[][]; outputs: Record<string, Tensor>; model_inputs: ModelInputs; is_encoder_decoder: boolean }): ModelInputs;
  forward(inputs: ModelInputs): Promise<Record<string, Tensor>>;
}

type ModelInputs = Record<string, unknown> & { past_key_values?: DynamicCache | null };

export async function decodeLoop(model: PreTrainedModel, options: DecodeLoopOptions): Promise<Decoded> {
  const { inputs, maxNewTokens, streamer, signal, endTokenIds, constraint, multiToken } = options;
  const internals = model as unknown as GenerationInternals;
  const config = internals._prepare_generation_config(null, { max_new_tokens: maxNewTokens, do_sample: false, num_beams: 1 });
  const promptLength = inputs.input_ids.dims.at(-1)!;
  const process = internals._get_logits_processor(config, promptLength, options.processors);
  const sequence = Array.from(inputs.input_ids.data as BigInt64Array);
  let modelInputs: ModelInputs = { input_ids: inputs.input_ids, attention_mask: inputs.attention_mask, ...(options.past ? { past_key_values: options.past } : {}) };
  streamer.put([sequence.slice()]);
  let outputs: Record<string, Tensor> | undefined;
  let generated = 0;
  let forced = 0;
  let steps = -1;
  try {
    for (;;) {
      modelInputs = internals.prepare_inputs_for_generation([sequence], modelInputs, config);
      const pass = internals.forward(modelInputs);
      // The next mask while the pass runs, where the runtime runs it off this thread.
      constraint?.mask();
      outputs = await pass;
      steps++;
      // [1, tokens read, vocabulary]: the last position's logits choose the next token.
      const logits = outputs.logits!.slice(null, -1, null).to('float32');
      if (constraint) await constraint.ready();
      const scores = process([sequence], logits);
      const chosen = argmax(scores.data as Float32Array);
      const step = [chosen];
      generated++;
      if (constraint && !constraint.terminated && !constraint.accept(chosen)) {
        throw new GatewayError('internal', `The output grammar refused token ${chosen}, which its mask allowed.`);
      }
      const ended = endTokenIds.has(chosen) || constraint?.terminated === true;
      if (!ended && multiToken && constraint?.forced) {
        for (const token of constraint.forced()) {
          if (generated >= maxNewTokens) break;
          if (!constraint.accept(token)) throw new GatewayError('internal', `The output grammar refused token ${token}, which it forced.`);
          step.push(token);
          generated++;
          forced++;
        }
      }
      for (const token of step) {
        sequence.push(BigInt(token));
        streamer.put([[BigInt(token)]]);
      }
      if (ended || generated >= maxNewTokens || signal.aborted) break;
      modelInputs = internals._update_model_kwargs_for_generation({ generated_input_ids: [[BigInt(chosen)]], outputs, model_inputs: modelInputs, is_encoder_decoder: false });
      if (step.length > 1) {
        // The chosen token and the forced ones, read in one pass.
        modelInputs.input_ids = new Tensor('int64', BigInt64Array.from(step, BigInt), [1, step.length]);
        modelInputs.attention_mask = ones([1, sequence.length]);
      }
    }
  } catch (error) {
    if (outputs) await cacheOf(internals, outputs, modelInputs).dispose();
    else if (modelInputs.past_key_values && modelInputs.past_key_values !== options.past) await modelInputs.past_key_values.dispose();
    throw error;
  }
  streamer.end();
  const past = outputs ? cacheOf(internals, outputs, modelInputs) : undefined;
  return { sequence, past, forced, steps };
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
