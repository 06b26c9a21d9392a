/**
 * A SYNTHETIC PRODUCER, for benchmarks only: an engine with no model. `synthetic-producer` yields
 * `maxTokens` one-character tokens as fast as the consumer pulls them (no timers, no inference):
 * streamed through a path, it measures that path's own per-chunk cost at burst speed, far above
 * any real engine's rate. `synthetic-paced` spends PACE_MS of CPU (a busy loop, as inference
 * would) before each token: a long completion at a steady, realistic rate. It implements the
 * product's ModelHost, so the product's RPC host (createHostService) serves it from a worker
 * exactly as it serves the real engines.
 * @module
 */
import type { ChatEvent, ChatRequest, EmbedResult, ModelInfo } from '../../../src/core/engine.ts';
import type { ModelHost } from '../../../src/engines/hosting/model-host.ts';
import { nextTask, spin } from './cpu.ts';

export const SYNTHETIC_MODEL = 'synthetic-producer';
export const PACED_MODEL = 'synthetic-paced';
/** CPU time per token of the paced producer (500 tokens/s: faster than tiny-chat on WASM here). */
export const PACE_MS = 2;
/** The same at about tiny-chat's rate on WASM here (0.6 ms per token: ~1,600 tokens/s). */
export const FAST_PACED_MODEL = 'synthetic-paced-fast';
export const FAST_PACE_MS = 0.6;
/**
 * The fast pace, yielding to the event loop after each token as a real engine does (onnxruntime's
 * run is asynchronous): the worker then sleeps and wakes once per token, like tiny-chat's.
 */
export const YIELDING_PACED_MODEL = 'synthetic-paced-yielding';

const info = (id: string, displayName: string): ModelInfo => ({ id, kind: 'chat', engine: 'synthetic', displayName, contextWindow: 1_000_000, maxOutputTokens: 1_000_000 });
const MODELS: readonly ModelInfo[] = [
  info(SYNTHETIC_MODEL, 'Synthetic producer, burst (benchmarks only)'),
  info(PACED_MODEL, `Synthetic producer, ${PACE_MS} ms per token (benchmarks only)`),
  info(FAST_PACED_MODEL, `Synthetic producer, ${FAST_PACE_MS} ms per token (benchmarks only)`),
  info(YIELDING_PACED_MODEL, `Synthetic producer, ${FAST_PACE_MS} ms per token, yielding after each (benchmarks only)`),
];
const PACES = new Map([
  [PACED_MODEL, PACE_MS],
  [FAST_PACED_MODEL, FAST_PACE_MS],
  [YIELDING_PACED_MODEL, FAST_PACE_MS],
]);

export function createSyntheticProducer(): ModelHost {
  return {
    async listModels() {
      return MODELS;
    },
    async *chat(request: ChatRequest): AsyncGenerator<ChatEvent> {
      const pace = PACES.get(request.model);
      yield { type: 'start', promptTokens: 1 };
      for (let i = 0; i < request.maxTokens; i++) {
        if (pace) spin(pace);
        if (request.model === YIELDING_PACED_MODEL) await nextTask();
        yield { type: 'token', text: 'x' };
      }
      yield { type: 'end', reason: 'length' };
    },
    async embed(): Promise<EmbedResult> {
      throw new Error('The synthetic producer does not embed.');
    },
    async load() {},
    async unload() {},
    status() {
      return MODELS.map((m) => ({ model: m.id, state: 'loaded' as const, loads: 1, requests: 0, engineCalls: 0 }));
    },
    async modelStates() {
      // Code, not a model: nothing stored, nothing asked of the device.
      return MODELS.map((m) => ({ id: m.id, state: 'loaded' as const, downloaded: true, bytesOnDisk: 0, runnable: true, requires: [] }));
    },
  };
}
