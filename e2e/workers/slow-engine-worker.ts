/**
 * TEST DOUBLE. An engine worker serving a SLOW SYNTHETIC ENGINE through the product's own model
 * host and RPC (`serveEngineWorker`): its chat models emit one token every `tokenMs` (default
 * 10 s), so a generation outlasts the browser's service-worker limits (5 minutes) without
 * inference. No model can be made that slow on purpose with the real engines here; every layer
 * above the engine (queue, RPC, service worker, page link, gateway) is the product's own.
 * @module
 */
import type { ChatEvent, ChatRequest, ModelInfo } from '../../src/core/engine.ts';
import type { EngineAdapter } from '../../src/engines/hosting/adapter.ts';
import { createModelHost } from '../../src/engines/hosting/model-host.ts';
import { serveEngineWorker } from '../../src/worker/serve.ts';

export interface SlowEngineConfig {
  readonly tokenMs?: number;
  /** How long it reads the prompt before `start` (a long prefill; default 0). */
  readonly prefillMs?: number;
}

const info = (id: string): ModelInfo => ({ id, kind: 'chat', engine: 'slow-synthetic', displayName: `${id} (test double)`, contextWindow: 4096, maxOutputTokens: 4096 });

/** Resolves after `ms`, or at once when `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

function slowAdapter(tokenMs: number, prefillMs: number): EngineAdapter {
  return {
    models: [info('slow-a'), info('slow-b')],
    async load() {},
    async unload() {},
    async *chat(request: ChatRequest, { signal }): AsyncGenerator<ChatEvent> {
      if (prefillMs > 0) await wait(prefillMs, signal);
      if (signal.aborted) return;
      yield { type: 'start', promptTokens: request.messages.reduce((n, m) => n + m.content.split(/\s+/).filter(Boolean).length, 0) };
      for (let i = 0; i < request.maxTokens; i++) {
        await wait(tokenMs, signal);
        if (signal.aborted) return;
        yield { type: 'token', text: `t${i} ` };
      }
      yield { type: 'end', reason: 'length' };
    },
    async embed() {
      throw new Error('The slow synthetic engine does not embed.');
    },
  };
}

serveEngineWorker<SlowEngineConfig>((config, onProgress) => createModelHost({ adapters: [slowAdapter(config.tokenMs ?? 10_000, config.prefillMs ?? 0)], onProgress }));
