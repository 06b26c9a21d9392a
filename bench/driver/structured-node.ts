/**
 * The structured-output benchmark in Node: the real-shaped Qwen2.5-0.5B (q4, `npm run models:real`)
 * on onnxruntime-node, in the engine `inpage-llm serve` runs (`createNodeEngine`), the workload of
 * bench/pages/lib/structured.ts called on the engine itself (no HTTP: only the constraint differs
 * between the rows). The prefix cache is off, so every request reads its whole prompt.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { createNodeEngine } from '../../src/node/index.ts';
import { runStructured, type StructuredSetup } from '../pages/lib/structured.ts';
import type { RealWorkload } from './real-size-results.ts';
import type { StructuredResult } from './structured-results.ts';
import { REAL_MODELS } from './paths.ts';

export async function structuredInNode(chat: RealWorkload['chat'], setup: StructuredSetup, log: (line: string) => void): Promise<StructuredResult> {
  const { id, dtype, files } = chat;
  const engine = createNodeEngine({
    localModelPath: REAL_MODELS,
    models: [{ engine: 'transformers', id, kind: 'chat', source: id, dtype, contextWindow: 4096, maxOutputTokens: 512, files }],
    prefixCacheBytes: 0,
  });
  const t0 = performance.now();
  await engine.load(id);
  const loadMs = performance.now() - t0;
  log(`node: ${id} loaded in ${(loadMs / 1000).toFixed(1)} s`);
  try {
    const samples = await runStructured(engine, id, setup, () => performance.now(), (line) => log(`node ${line}`));
    return { where: 'node', model: id, dtype, maxTokens: setup.maxTokens, rounds: setup.rounds, loadMs, samples };
  } finally {
    await engine.unload(id);
  }
}
