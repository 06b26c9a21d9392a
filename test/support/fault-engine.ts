/**
 * Fault injection around any engine, for tests: a marker in the last message (chat) or the first
 * input (embeddings) makes the call fail the way a real engine can. Without a marker the wrapped
 * engine answers, so the same failure tests run over the real engines too.
 */
import type { ChatEvent, ChatRequest, EmbedRequest, EmbedResult, Engine } from '../../src/core/engine.ts';
import { GatewayError } from '../../src/core/errors.ts';

export const FAULTS = {
  /** Fails after two tokens have been streamed. */
  midstream: '[[fault:midstream]]',
  /** The engine's queue is full: 429 with retry-after. */
  queueFull: '[[fault:queue-full]]',
  /** The model cannot be loaded (e.g. offline): 503. */
  unavailable: '[[fault:unavailable]]',
  /** An unexpected exception inside the engine: 500. */
  crash: '[[fault:crash]]',
} as const;

function faultIn(text: string | undefined): keyof typeof FAULTS | undefined {
  return (Object.keys(FAULTS) as (keyof typeof FAULTS)[]).find((k) => text?.includes(FAULTS[k]));
}

function failure(fault: keyof typeof FAULTS): Error {
  switch (fault) {
    case 'queueFull':
      return new GatewayError('queue_full', 'Too many requests are queued for this model; try again shortly.', { retryAfter: 0 });
    case 'unavailable':
      return new GatewayError('model_unavailable', 'The model could not be loaded: its files cannot be fetched.');
    default:
      return new TypeError('Something broke inside the engine.');
  }
}

/** What happened to one chat call, as seen from outside the engine. */
export interface ChatCallRecord {
  tokens: number;
  /** True when the engine finished its answer on its own; false when it was stopped early. */
  completed: boolean;
  readonly signal: AbortSignal;
}

export function withFaults(engine: Engine, calls: ChatCallRecord[] = []): Engine {
  return {
    listModels: () => engine.listModels(),
    async *chat(request: ChatRequest, options): AsyncGenerator<ChatEvent> {
      const fault = faultIn(request.messages.at(-1)?.content);
      if (fault && fault !== 'midstream') throw failure(fault);
      const call: ChatCallRecord = { tokens: 0, completed: false, signal: options.signal };
      calls.push(call);
      for await (const event of engine.chat(request, options)) {
        if (event.type === 'token') call.tokens++;
        if (event.type === 'end') call.completed = true;
        if (fault === 'midstream' && call.tokens > 2) throw new GatewayError('internal', 'The engine failed mid-generation.');
        yield event;
      }
      // Ran out on its own (no `end` event) without having been stopped.
      if (!options.signal.aborted) call.completed = true;
    },
    async embed(request: EmbedRequest, options): Promise<EmbedResult> {
      const fault = faultIn(request.input[0]);
      if (fault) throw failure(fault);
      return engine.embed(request, options);
    },
  };
}
