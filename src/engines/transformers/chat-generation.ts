/**
 * One chat completion on a loaded text-generation pipeline, as the engine's event stream.
 * @module
 */

import { LogitsProcessorList, type Tensor, type TextGenerationPipeline } from '@huggingface/transformers';
import type { ChatEvent, ChatRequest, ModelInfo } from '../../core/engine.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';
import { abortedError, GatewayError } from '../../core/errors.ts';
import { grammarSpecOf, type GrammarSpec } from '../grammar/ebnf.ts';
import type { LoadXGrammar } from '../grammar/xgrammar.ts';
import type { TokenConstraint } from '../grammar/vocabulary.ts';
import { constraintCompilerFor, GrammarMask } from './grammar-constraint.ts';
import { renderChatPrompt } from './chat-prompt.ts';
import { createEventChannel } from './event-channel.ts';
import { checkLogitBias } from '../decoding/logit-bias.ts';
import { attentionCacheOnly, DEFAULT_PREFILL_CHUNK_TOKENS, prefillInChunks } from './chunked-prefill.ts';
import { decodeLoop } from './decode-loop.ts';
import { Drafts, PredictionDrafter, PromptLookupDrafter, type Drafter, type PassCost } from '../decoding/drafts.ts';
import type { KVPrefixCache } from './kv-prefix-cache.ts';
import { LogitBias } from './logit-bias.ts';
import { needsSampler, TokenSampler } from './token-sampler.ts';
import { ThinkingBudget } from './thinking-budget.ts';
import { TokenStreamer } from './token-streamer.ts';

export interface ChatGenerationOptions {
  /** Loads the grammar engine for `response_format` and tools; without it they are refused. */
  readonly loadGrammar?: LoadXGrammar;
  /** Keys and values of earlier requests: a prompt starting with tokens read before reads only the rest. */
  readonly prefixCache?: KVPrefixCache;
  /** A prompt longer than this is read in pieces of it (chunked-prefill.ts). */
  readonly prefillChunkTokens?: number;
  /**
   * Guess the next tokens from the prompt and the answer so far, checked several a pass (default
   * true; drafts.ts backs off where the guesses miss). A request's `prediction` is used either way.
   */
  readonly promptLookup?: boolean;
  /**
   * Whether a pass over several tokens gives each position the logits passes over one token at a
   * time would (default true). Not so for weights quantized with their activations (q8: one scale
   * over all of a pass's positions): drafts are then not checked at all, since the answer would
   * change with them, and a prediction reports none kept.
   */
  readonly independentPositions?: boolean;
  /** What a pass over a draft costs, as the drafts reckon it: fixed here, else measured (decode-loop.ts). */
  readonly draftPassCost?: PassCost;
}

/**
 * Yields `start`, one `token` per generated token (the end token itself is not one), then `end`:
 * `stop` when the model produced its end token, `length` when `maxTokens` ran out.
 * An aborted call throws `GatewayError('aborted')` (not a silent end, which would read as a
 * natural stop); generation stops within one token. Leaving the iteration early also stops it.
 */
export async function* generateChat(
  pipe: TextGenerationPipeline,
  info: ModelInfo,
  request: ChatRequest,
  signal: AbortSignal,
  { loadGrammar, prefixCache, prefillChunkTokens = DEFAULT_PREFILL_CHUNK_TOKENS, promptLookup = true, independentPositions = true, draftPassCost }: ChatGenerationOptions = {},
): AsyncGenerator<ChatEvent> {
  const { tokenizer } = pipe;
  // Thinking turned off where the template has the switch; elsewhere the model still thinks (and the gateway splits it off).
  const thinkingOff = request.thinking === false && info.reasoning?.switch === 'enable_thinking';
  const prompt = renderChatPrompt(tokenizer, request.messages, request.tools, thinkingOff ? { enableThinking: false } : {});
  // The template already placed any special tokens, as transformers.js's own pipeline assumes.
  const inputs = tokenizer(prompt, { add_special_tokens: false }) as { input_ids: Tensor; attention_mask: Tensor };
  const promptTokens = inputs.input_ids.dims.at(-1) ?? 0;
  // A prompt that fills the window leaves no room; otherwise the answer stops at the window's end.
  if (promptTokens >= info.contextWindow) {
    throw new GatewayError(
      'context_length_exceeded',
      `This model's maximum context length is ${info.contextWindow} tokens, but the messages have ${promptTokens}.`,
      { param: 'messages' },
    );
  }
  const maxNewTokens = Math.min(request.maxTokens, info.contextWindow - promptTokens);
  if (request.logitBias) checkLogitBias(request.logitBias, logitsSizeOf(pipe));
  const spec = grammarSpecOf(request, info.reasoning);
  const budget = request.thinkingBudget !== undefined && info.reasoning && !thinkingOff ? thinkingBudget(pipe, info.reasoning, request.thinkingBudget, promptTokens) : undefined;
  const constraint = spec ? await startConstraint(pipe, spec, loadGrammar) : undefined;
  try {
    const prediction = request.prediction && independentPositions ? tokenizer.encode(request.prediction, { add_special_tokens: false }) : undefined;
    const drafts = independentPositions && (prediction || promptLookup) ? new Drafts(prediction && new PredictionDrafter(prediction), promptLookup ? new PromptLookupDrafter() : undefined) : undefined;
    yield* decode(pipe, inputs, promptTokens, maxNewTokens, request, signal, constraint, budget, prefixCache && { cache: prefixCache, model: info.id }, prefillChunkTokens, drafts, draftPassCost);
  } finally {
    // Every way out, a consumer leaving at the first event included: the matcher lives in wasm memory.
    constraint?.dispose();
  }
}

async function* decode(
  { tokenizer, model }: TextGenerationPipeline,
  inputs: { input_ids: Tensor; attention_mask: Tensor },
  promptTokens: number,
  maxNewTokens: number,
  request: ChatRequest,
  signal: AbortSignal,
  constraint: TokenConstraint | undefined,
  budget: ThinkingBudget | undefined,
  prefix: { readonly cache: KVPrefixCache; readonly model: string } | undefined,
  prefillChunkTokens: number,
  drafts: Drafts | undefined,
  passCost: PassCost | undefined,
): AsyncGenerator<ChatEvent> {
  if (signal.aborted) throw abortedError();
  if (maxNewTokens <= 0) {
    yield { type: 'start', promptTokens, cachedTokens: 0 };
    yield { type: 'end', reason: 'length' };
    return;
  }
  // The longest beginning of this prompt the model has read before: only the rest is read now.
  const reused = prefix?.cache.reuse(prefix.model, Int32Array.from(inputs.input_ids.data as BigInt64Array, Number));
  yield { type: 'start', promptTokens, cachedTokens: reused?.length ?? 0 };
  // What the cache did not hold, but the last piece, read a piece at a time: bounded memory.
  const prefilled = await prefillInChunks(model, inputs, reused?.past, reused?.length ?? 0, prefillChunkTokens, signal);

  // Stops generation on client abort and when the consumer leaves the iteration.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const channel = createEventChannel<ChatEvent>();
  const ends = endTokenIds(model);
  const streamer = new TokenStreamer({ tokenizer, endTokenIds: ends, onToken: (text) => channel.push({ type: 'token', text }) });
  const processors = new LogitsProcessorList();
  // The bias before the grammar's mask (a masked token stays masked, whatever its bias), and the
  // mask before the sampler, which then only ever chooses among allowed tokens. A thinking budget
  // spent forces its closing marker after the bias (which cannot bring back what it masked) and
  // before the grammar (which allows the marker there) and the sampler (which finds it alone).
  if (request.logitBias) processors.push(new LogitBias(request.logitBias));
  if (budget) processors.push(budget);
  if (constraint) processors.push(new GrammarMask(constraint));
  if (needsSampler(request)) processors.push(new TokenSampler(request, promptTokens));
  const generation = decodeLoop(model, {
    inputs,
    past: prefilled.past,
    maxNewTokens,
    processors,
    streamer,
    signal: stop.signal,
    endTokenIds: ends,
    ...(constraint ? { constraint } : {}),
    ...(drafts ? { drafts: reportingPrediction(drafts, request.prediction !== undefined, (event) => channel.push(event)) } : {}),
    multiToken: attentionCacheOnly(model),
    ...(passCost ? { passCost } : {}),
  }).then(
    async ({ sequence, past }) => {
      channel.close();
      if (!past) return;
      // Before the model takes its next request (the host waits for this call to end).
      if (prefix) await prefix.cache.keep(prefix.model, sequence, past).catch(() => {});
      else await past.dispose();
    },
    (error: unknown) => channel.fail(error),
  );

  try {
    for await (const event of channel) {
      if (signal.aborted) break;
      yield event;
    }
    if (signal.aborted) throw abortedError();
    yield { type: 'end', reason: streamer.sawEnd || constraint?.terminated ? 'stop' : 'length' };
  } finally {
    signal.removeEventListener('abort', onAbort);
    stop.abort();
    await generation;
  }
}

/** The drafts, telling each change in what came of the request's prediction (where it has one). */
function reportingPrediction(drafts: Drafts, predicted: boolean, send: (event: ChatEvent) => void): Drafter {
  let sent = { accepted: 0, rejected: 0 };
  return {
    propose: (sequence, generatedFrom, max) => drafts.propose(sequence, generatedFrom, max),
    settle(proposed, accepted) {
      drafts.settle(proposed, accepted);
      const now = drafts.prediction;
      if (!predicted || (now.accepted === sent.accepted && now.rejected === sent.rejected)) return;
      sent = now;
      send({ type: 'prediction', ...now });
    },
  };
}

/** A budget for the reply's thinking, ended by the model's closing marker in its own tokens. */
function thinkingBudget({ tokenizer }: TextGenerationPipeline, format: ReasoningFormat, budget: number, promptLength: number): ThinkingBudget {
  return new ThinkingBudget({
    budget,
    format,
    closeIds: tokenizer.encode(format.close, { add_special_tokens: false }),
    promptLength,
    decode: (id) => tokenizer.decode([id], { skip_special_tokens: true }),
  });
}

/** The request's output constraint, compiled for this model's tokenizer, its first mask ready. */
async function startConstraint(pipe: TextGenerationPipeline, spec: GrammarSpec, loadGrammar: LoadXGrammar | undefined): Promise<TokenConstraint> {
  if (!loadGrammar) {
    const param = spec.kind === 'tools' ? 'tools' : 'response_format';
    throw new GatewayError('invalid_request', `This engine cannot constrain output: ${param} is not supported here.`, { param });
  }
  const size = configuredVocabSize(pipe.model);
  const compiler = await constraintCompilerFor(await loadGrammar(), pipe.tokenizer, size, endTokenIds(pipe.model));
  const constraint = await compiler.start(spec);
  try {
    await constraint.ready();
  } catch (error) {
    constraint.dispose();
    throw error;
  }
  return constraint;
}

/** The number of logits the model yields per step, as its config.json declares it. */
function configuredVocabSize(model: TextGenerationPipeline['model']): number | undefined {
  const size = (model.config as unknown as { vocab_size?: number }).vocab_size;
  return Number.isInteger(size) ? size : undefined;
}

/** The number of logits per step: the config's, else one past the tokenizer's largest id. */
function logitsSizeOf({ model, tokenizer }: TextGenerationPipeline): number {
  const configured = configuredVocabSize(model);
  if (configured !== undefined) return configured;
  const vocab = (tokenizer as unknown as { get_vocab(): Map<string, number> | Record<string, number> }).get_vocab();
  let largest = -1;
  for (const id of vocab instanceof Map ? vocab.values() : Object.values(vocab)) largest = Math.max(largest, id);
  return largest + 1;
}

/** The ids `generate` stops at: from generation_config.json, else config.json. */
function endTokenIds(model: TextGenerationPipeline['model']): Set<number> {
  const { generation_config: generation, config } = model as unknown as {
    generation_config?: { eos_token_id?: number | number[] | null };
    config: { eos_token_id?: number | number[] | null };
  };
  const ids = generation?.eos_token_id ?? config.eos_token_id ?? [];
  return new Set(Array.isArray(ids) ? ids : [ids]);
}
