/**
 * Dynamic batching of embeddings: requests for one model that arrive while its engine is busy (or
 * within an optional window) are merged into one engine call, and the vectors and token counts are
 * split back per request. Only for adapters whose batches are exact, so merging never changes a
 * vector. An aborted request leaves its batch; a batch nobody waits for any more is stopped.
 * @module
 */
import type { EmbedRequest, EmbedResult } from '../../core/engine.ts';
import { abortedError, GatewayError } from '../../core/errors.ts';

/** Embeds `input` with the model on its turn (queue slot taken, model loaded). */
export type BatchRunner = (request: EmbedRequest, signal: AbortSignal) => Promise<EmbedResult>;

export interface EmbedBatcherOptions {
  /**
   * How long the first request of an idle model waits for company. Default 0: no added latency;
   * requests that arrive while a batch runs are merged into the next one anyway.
   */
  readonly windowMs?: number;
  /** Inputs per engine call. Default 256. */
  readonly maxBatchInputs?: number;
  /** Inputs allowed to wait per model; more get a 429. Default 4096. */
  readonly maxQueuedInputs?: number;
}

interface Waiter {
  readonly input: readonly string[];
  readonly signal: AbortSignal;
  resolve(result: EmbedResult): void;
  reject(error: unknown): void;
  settled: boolean;
}

export function createEmbedBatcher(runner: BatchRunner, options: EmbedBatcherOptions = {}) {
  const windowMs = options.windowMs ?? 0;
  const maxBatchInputs = options.maxBatchInputs ?? 256;
  const maxQueuedInputs = options.maxQueuedInputs ?? 4096;
  const pending = new Map<string, Waiter[]>();
  const draining = new Set<string>();

  const settle = (waiter: Waiter, outcome: { result: EmbedResult } | { error: unknown }) => {
    if (waiter.settled) return;
    waiter.settled = true;
    if ('result' in outcome) waiter.resolve(outcome.result);
    else waiter.reject(outcome.error);
  };

  /** Takes waiting requests, in arrival order, up to the batch size (a big request goes alone). */
  const take = (queue: Waiter[]): Waiter[] => {
    const batch: Waiter[] = [];
    let inputs = 0;
    while (queue.length > 0 && (batch.length === 0 || inputs + queue[0]!.input.length <= maxBatchInputs)) {
      const waiter = queue.shift()!;
      if (waiter.settled) continue;
      batch.push(waiter);
      inputs += waiter.input.length;
    }
    return batch;
  };

  async function drain(model: string): Promise<void> {
    draining.add(model);
    try {
      // A microtask still gathers requests made in the same task (e.g. a Promise.all).
      await (windowMs > 0 ? new Promise((resolve) => setTimeout(resolve, windowMs)) : Promise.resolve());
      const queue = pending.get(model)!;
      while (queue.length > 0) {
        const batch = take(queue);
        if (batch.length === 0) continue;
        const controller = new AbortController();
        // The engine call stops only when every request in it has gone away.
        const onAbort = () => batch.every((w) => w.signal.aborted) && controller.abort();
        for (const w of batch) w.signal.addEventListener('abort', onAbort, { once: true });
        try {
          const result = await runner({ model, input: batch.flatMap((w) => w.input) }, controller.signal);
          split(batch, result);
        } catch (error) {
          for (const w of batch) settle(w, { error });
        } finally {
          for (const w of batch) w.signal.removeEventListener('abort', onAbort);
        }
        // Requests that arrived while the engine ran are still tasks waiting behind this one (a WASM
        // run never yields): let them in, so they make the next batch instead of one call each.
        // The answers above are already on their way; only the next batch waits for this.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      pending.delete(model);
    } finally {
      draining.delete(model);
    }
  }

  return {
    embed(request: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> {
      if (signal.aborted) return Promise.reject(abortedError('while waiting to be embedded'));
      const queue = pending.get(request.model) ?? [];
      pending.set(request.model, queue);
      const queued = queue.reduce((n, w) => n + (w.settled ? 0 : w.input.length), 0);
      if (queued + request.input.length > maxQueuedInputs) {
        return Promise.reject(new GatewayError('queue_full', `Too many texts are waiting to be embedded by '${request.model}'; try again shortly.`, { retryAfter: 1 }));
      }
      return new Promise<EmbedResult>((resolve, reject) => {
        const waiter: Waiter = { input: request.input, signal, resolve, reject, settled: false };
        signal.addEventListener('abort', () => settle(waiter, { error: abortedError('while waiting to be embedded') }), { once: true });
        queue.push(waiter);
        if (!draining.has(request.model)) void drain(request.model);
      });
    },
  };
}

/** Hands each request its own vectors and token counts. */
function split(batch: readonly Waiter[], result: EmbedResult): void {
  let offset = 0;
  for (const waiter of batch) {
    const n = waiter.input.length;
    const tokens = result.inputTokens?.slice(offset, offset + n);
    const promptTokens = tokens ? tokens.reduce((a, b) => a + b, 0) : result.promptTokens;
    const part: EmbedResult = { embeddings: result.embeddings.slice(offset, offset + n), promptTokens, ...(tokens ? { inputTokens: tokens } : {}) };
    offset += n;
    if (!waiter.settled) {
      waiter.settled = true;
      waiter.resolve(part);
    }
  }
}


