/**
 * The prefix-cache benchmark in Node: the real-shaped Qwen2.5-0.5B (q4, `npm run models:real`) on
 * onnxruntime-node, through the product's gateway (`createNodeEngine` + `createGateway`, as
 * `inpage-llm serve` runs it), the conversation and the agent loop of bench/pages/lib/conversation.ts
 * with the prefix cache on and off, alternately, a fresh engine for each run.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { createGateway, createNodeEngine } from '../../src/node/index.ts';
import { runAgentLoop, runConversation, type ConversationTexts, type TurnFigures } from '../pages/lib/conversation.ts';
import type { ConversationResult } from './conversation-results.ts';
import type { RealWorkload } from './real-size-results.ts';
import { REAL_MODELS } from './paths.ts';

const BASE = 'https://llm.local/v1';

export interface ConversationOptions {
  readonly runs: number;
  readonly replyTokens: number;
  readonly newTokensPerTurn: number;
  readonly log: (line: string) => void;
}

export async function conversationInNode(real: RealWorkload, texts: ConversationTexts, options: ConversationOptions): Promise<ConversationResult> {
  const { id, dtype, files } = real.chat;
  const runs = { conversation: { on: [] as TurnFigures[][], off: [] as TurnFigures[][] }, agent: { on: [] as TurnFigures[][], off: [] as TurnFigures[][] } };
  let peakBytes = 0;
  let maxBytes = 0;
  let entries = 0;
  for (let run = 0; run < options.runs; run++) {
    // Alternating, and the other way round every other run: drift hits both alike.
    for (const mode of run % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      for (const kind of ['conversation', 'agent'] as const) {
        const engine = createNodeEngine({
          localModelPath: REAL_MODELS,
          models: [{ engine: 'transformers', id, kind: 'chat', source: id, dtype, contextWindow: 4096, maxOutputTokens: 512, files }],
          ...(mode === 'off' ? { prefixCacheBytes: 0 } : {}),
        });
        await engine.load(id);
        const gateway = createGateway({ engine, baseUrl: BASE });
        const workload = { fetch: (input: string, init: RequestInit) => gateway.fetch(new Request(input, init)), base: BASE, model: id, replyTokens: options.replyTokens, now: () => performance.now() };
        const figures = kind === 'conversation' ? await runConversation(workload, texts) : await runAgentLoop(workload, texts);
        runs[kind][mode].push(figures);
        options.log(`node ${kind}, cache ${mode}, run ${run + 1}: first token ${figures.map((f) => `${(f.firstTokenMs / 1000).toFixed(2)} s (${f.cachedTokens}/${f.promptTokens})`).join(", ")}`);
        if (mode === 'on') {
          const local = ((await (await gateway.fetch(new Request(`${BASE}/models/${id}`))).json()) as { local?: { prefix_cache?: { bytes: number; entries: number; max_bytes: number } } }).local?.prefix_cache;
          if (local) {
            peakBytes = Math.max(peakBytes, local.bytes);
            maxBytes = local.max_bytes;
            entries = Math.max(entries, local.entries);
          }
        }
        await engine.unload(id);
      }
    }
  }
  return { where: 'node', model: id, replyTokens: options.replyTokens, newTokensPerTurn: options.newTokensPerTurn, ...runs, cache: { peakBytes, maxBytes, entries } };
}
