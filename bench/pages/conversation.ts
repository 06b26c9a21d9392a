/**
 * The prefix-cache benchmark in the browser: the real-shaped Qwen2.5-0.5B in a product engine
 * worker on the task's backend, with the weights the catalog loads there (8-bit on WASM, 4-bit on
 * WebGPU), through the product's gateway in this page (as the fetch shim runs it), the
 * conversation and the agent loop of lib/conversation.ts with the prefix cache on and off,
 * alternately, a fresh engine worker for each run. The result goes to bench/run.ts.
 * @module
 */
import { wrap } from 'comlink';
import { spawnEngineWorker } from '../../src/client/spawn-worker.ts';
import type { EngineHostApi } from '../../src/contracts/engine-host.ts';
import type { ModelEntry } from '../../src/contracts/worker-config.ts';
import { createGateway } from '../../src/gateway/index.ts';
import { linkEngine } from '../../src/rpc/engine-link.ts';
import type { ConversationResult } from '../driver/conversation-results.ts';
import { config, fail, finish, log } from './lib/channel.ts';
import { runAgentLoop, runConversation, type TurnFigures } from './lib/conversation.ts';

const BASE = 'https://llm.local/v1';

async function main(): Promise<void> {
  const setup = config.conversation!;
  const { id, dtype, files } = setup.chat;
  const models: ModelEntry[] = [{ engine: 'transformers', id, kind: 'chat', source: id, dtype, contextWindow: 4096, maxOutputTokens: 512, files }];
  const runs = { conversation: { on: [] as TurnFigures[][], off: [] as TurnFigures[][] }, agent: { on: [] as TurnFigures[][], off: [] as TurnFigures[][] } };
  const cache = { peakBytes: 0, maxBytes: 0, entries: 0 };
  for (let run = 0; run < setup.runs; run++) {
    for (const mode of run % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      for (const kind of ['conversation', 'agent'] as const) {
        const worker = spawnEngineWorker({ device: config.device, models, ...(mode === 'off' ? { prefixCacheBytes: 0 } : {}) });
        const host = wrap<EngineHostApi>(worker.connect());
        await host.load(id);
        const gateway = createGateway({ engine: linkEngine(host), baseUrl: BASE });
        const onTurn = (f: TurnFigures) => log(`${config.device} ${kind}, cache ${mode}, run ${run + 1}, turn ${f.turn}: first token ${(f.firstTokenMs / 1000).toFixed(2)} s, all ${(f.totalMs / 1000).toFixed(2)} s (${f.cachedTokens}/${f.promptTokens} cached)`);
        const workload = { fetch: (input: string, init: RequestInit) => gateway.fetch(new Request(input, init)), base: BASE, model: id, replyTokens: setup.replyTokens, now: () => performance.now(), onTurn };
        const figures = kind === 'conversation' ? await runConversation(workload, setup.texts) : await runAgentLoop(workload, setup.texts);
        runs[kind][mode].push(figures);
        await log(`${config.device} ${kind}, cache ${mode}, run ${run + 1}: first token ${figures.map((f) => `${(f.firstTokenMs / 1000).toFixed(2)} s (${f.cachedTokens}/${f.promptTokens})`).join(", ")}`);
        if (mode === 'on') {
          const state = (await host.modelStates()).find((s) => s.id === id)?.prefixCache;
          if (state) {
            cache.peakBytes = Math.max(cache.peakBytes, state.bytes);
            cache.maxBytes = state.maxBytes;
            cache.entries = Math.max(cache.entries, state.entries);
          }
        }
        worker.terminate();
      }
    }
  }
  const result: ConversationResult = { where: config.device, model: id, replyTokens: setup.replyTokens, newTokensPerTurn: setup.newTokensPerTurn, ...runs, cache };
  await finish(result);
}

main().catch(fail);
