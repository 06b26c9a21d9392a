/**
 * web-llm's chunk stream as our `ChatEvent`s. Each decode step streams one content delta, so each
 * delta is one token, with two corrections: the step that samples the stop token streams an empty
 * delta (not a token of the answer, as in the transformers adapter), and a step whose text ends in
 * half a UTF-8 character streams nothing (its token is added back, as '', from the final usage).
 * @module
 */

import type { ChatEvent, ChatRequest } from '../../core/engine.ts';
import { abortedError, GatewayError, isGatewayError } from '../../core/errors.ts';
import { toWebLLMRequest } from './chat-request.ts';
import type { MLCEngineLike, WebLLMChunk } from './mlc-engine-like.ts';
import { prefillTokens, vocabSize } from './pipeline-internals.ts';
import { checkLogitBias } from '../logit-bias.ts';
import type { PromptTokenCounter } from './prompt-tokens.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';

/**
 * `variant` is the web-llm model id `engine` has loaded (whose pipeline counts the prompt);
 * `grammar` constrains the output (see grammar.ts).
 */
export async function* streamChat(engine: MLCEngineLike, variant: string, counter: PromptTokenCounter, request: ChatRequest, signal: AbortSignal, grammar?: string, reasoning?: ReasoningFormat): AsyncGenerator<ChatEvent> {
  const body = toWebLLMRequest(request, grammar, reasoning);
  if (signal.aborted) throw abortedError();
  if (request.logitBias) {
    const size = vocabSize(engine, variant);
    if (size !== undefined) checkLogitBias(request.logitBias, size);
  }
  const cached = counter.cachedTokens(body.messages);
  counter.forget();
  // web-llm counts only the round it prefills (its KV cache holds the rest); an estimate when it does not tell.
  const wholePrompt = (round: number | undefined) => (round === undefined ? estimateTokens(body.messages) : cached + round);
  let chunks: AsyncIterator<WebLLMChunk> | undefined;
  let complete = false;
  try {
    chunks = (await engine.chat.completions.create(body))[Symbol.asyncIterator]();
    const tokens = new DeltaTokens();
    let started = false;
    let finish: string | undefined;
    let usage: WebLLMChunk['usage'];
    let answer = '';
    for (;;) {
      const next = await untilAborted(chunks.next(), signal);
      if (next === ABORTED) throw abortedError();
      if (next.done) break;
      const chunk = next.value;
      // The first chunk arrives after prefill, so a prompt web-llm refuses fails before `start`,
      // and the pipeline has counted the prompt by now (see pipeline-internals.ts).
      if (!started) {
        started = true;
        yield { type: 'start', promptTokens: wholePrompt(prefillTokens(engine, variant) ?? chunk.usage?.prompt_tokens), cachedTokens: cached };
      }
      for (const choice of chunk.choices) {
        const content = choice.delta?.content;
        if (typeof content === 'string' && !choice.finish_reason) {
          answer += content;
          for (const text of tokens.push(content)) yield { type: 'token', text };
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    if (!started) yield { type: 'start', promptTokens: wholePrompt(prefillTokens(engine, variant) ?? usage?.prompt_tokens), cachedTokens: cached };
    for (const text of tokens.finish(finish, usage?.completion_tokens)) yield { type: 'token', text };
    complete = true;
    // Equal to the count sent with `start`, unless that one had to be estimated.
    const reported = usage ? wholePrompt(usage.prompt_tokens) : undefined;
    if (finish === 'stop' && reported !== undefined) counter.remember(body.messages, answer, reported, tokens.emitted);
    yield { type: 'end', reason: finish === 'length' ? 'length' : 'stop', promptTokens: reported };
  } catch (error) {
    throw toChatError(error, request, signal);
  } finally {
    // Also reached when the consumer stops reading (a stop sequence, the token cap, a client gone).
    if (!complete && chunks) await stopGeneration(engine, chunks);
  }
}

/** One token per content delta, holding an empty delta back until it is known not to be the stop token's. */
export class DeltaTokens {
  emitted = 0;
  #heldEmpty = false;

  push(text: string): string[] {
    const out = this.#heldEmpty ? [''] : [];
    this.#heldEmpty = text === '';
    if (text !== '') out.push(text);
    this.emitted += out.length;
    return out;
  }

  /**
   * web-llm's `completion_tokens` counts every sampled token, the stop token included (0.2.86); it
   * is used only to add steps that streamed no delta, never to take tokens away (older web-llm
   * versions reported one less than they streamed).
   */
  finish(reason: string | undefined, completionTokens: number | undefined): string[] {
    const out = this.#heldEmpty && reason !== 'stop' ? [''] : [];
    this.#heldEmpty = false;
    const generated = completionTokens === undefined ? 0 : completionTokens - (reason === 'stop' ? 1 : 0);
    while (this.emitted + out.length < generated) out.push('');
    this.emitted += out.length;
    return out;
  }
}

/**
 * Interrupts, then closes web-llm's generator: closing runs its `finally`, which releases the
 * per-model lock; left suspended, the next request on this engine would wait forever.
 */
async function stopGeneration(engine: MLCEngineLike, chunks: AsyncIterator<WebLLMChunk>): Promise<void> {
  try {
    await engine.interruptGenerate();
  } catch {
    // Nothing to interrupt.
  }
  try {
    await chunks.return?.();
  } catch {
    // The generation failed as it was being stopped; nobody is waiting for its result.
  }
}

/**
 * The whole conversation's characters over four (about right for English BPE vocabularies): only
 * for a web-llm without the prefill count, and then corrected by the usage chunk when it is read.
 */
function estimateTokens(messages: readonly { content: string }[]): number {
  let chars = 0;
  for (const m of messages) chars += m.content.length;
  return Math.ceil(chars / 4);
}

const ABORTED = Symbol('aborted');

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}



/** web-llm's errors by name (its classes are not exported); anything unknown stays a 500. */
function toChatError(error: unknown, request: ChatRequest, signal: AbortSignal): GatewayError {
  const model = request.model;
  if (isGatewayError(error)) return GatewayError.from(error);
  if (signal.aborted) return abortedError();
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'ContextWindowSizeExceededError') {
    return new GatewayError('context_length_exceeded', `The prompt is too long for model "${model}": ${message}`, { param: 'messages', cause: error });
  }
  if (name === 'MessageOrderError' || name === 'SystemMessageOrderError') {
    return new GatewayError('invalid_request', message, { param: 'messages', cause: error });
  }
  // As on the transformers.js path: a grammar xgrammar cannot compile is the request's schema's.
  if (name === 'GrammarMatcherInitError') {
    return new GatewayError('invalid_request', `This output cannot be enforced: ${message}`, { param: request.tools?.length ? 'tools' : 'response_format', cause: error });
  }
  return GatewayError.from(error);
}
