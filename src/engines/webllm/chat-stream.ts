/**
 * web-llm's chunk stream as our `ChatEvent`s: one token per decode step (see reply-tokens.ts), the
 * prompt counted exactly (see prompt-tokens.ts), and web-llm left to stop at the request's stop
 * strings itself where it can, so that its conversation survives a stop string (see
 * docs/decisions/webllm-keeps-its-conversation.md).
 * @module
 */

import type { ChatEvent, ChatRequest } from '../../core/engine.ts';
import { abortedError, GatewayError, isGatewayError } from '../../core/errors.ts';
import { toWebLLMRequest, webllmStops } from './chat-request.ts';
import type { MLCEngineLike, WebLLMChunk } from './mlc-engine-like.ts';
import { finishedReply, prefillTokens, readsFinishedReply, vocabSize } from './pipeline-internals.ts';
import { ReplyTokens, type FinishedReply } from './reply-tokens.ts';
import { checkLogitBias } from '../decoding/logit-bias.ts';
import type { PromptTokenCounter } from './prompt-tokens.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';

/**
 * `variant` is the web-llm model id `engine` has loaded (whose pipeline counts the prompt);
 * `grammar` constrains the output (see grammar.ts).
 */
export async function* streamChat(engine: MLCEngineLike, variant: string, counter: PromptTokenCounter, request: ChatRequest, signal: AbortSignal, grammar?: string, reasoning?: ReasoningFormat): AsyncGenerator<ChatEvent> {
  // Where web-llm's reply cannot be read back, where a stop string cut it is unknown: the gateway cuts.
  const stops = readsFinishedReply(engine, variant) ? webllmStops(request, reasoning) : [];
  const written = toWebLLMRequest(request, grammar, reasoning, stops);
  const body = { ...written, messages: counter.asKept(written.messages) };
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
    const tokens = new ReplyTokens(stops);
    let started = false;
    let finish: string | undefined;
    let usage: WebLLMChunk['usage'];
    let reply: FinishedReply | undefined;
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
          for (const text of tokens.push(content)) yield { type: 'token', text };
        }
        if (choice.finish_reason) {
          finish = choice.finish_reason;
          // Read now: the pipeline keeps it only until the next request's prefill.
          if (finish === 'stop' || finish === 'length') reply = finishedReply(engine, variant);
        }
      }
      if (chunk.usage) usage = chunk.usage;
    }
    if (!started) yield { type: 'start', promptTokens: wholePrompt(prefillTokens(engine, variant) ?? usage?.prompt_tokens), cachedTokens: cached };
    const end = tokens.finish(finish, usage?.completion_tokens, reply);
    complete = true;
    // Equal to the count sent with `start`, unless that one had to be estimated.
    const reported = usage ? wholePrompt(usage.prompt_tokens) : undefined;
    // Before the last tokens: the gateway may stop reading at one of them (the token cap).
    if (finish === 'stop' && reported !== undefined) counter.remember(body.messages, end.message, reported, end.kept);
    for (const text of end.texts) yield { type: 'token', text };
    yield { type: 'end', reason: finish === 'length' ? 'length' : 'stop', promptTokens: reported, ...(end.stopSequence === undefined ? {} : { stopSequence: end.stopSequence }) };
  } catch (error) {
    throw toChatError(error, request, signal);
  } finally {
    // Also reached when the consumer stops reading (a stop sequence, the token cap, a client gone).
    if (!complete && chunks) await stopGeneration(engine, chunks);
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
