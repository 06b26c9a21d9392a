/**
 * The structured-output benchmark in the browser: the real-shaped Qwen2.5-0.5B (q4) in a product
 * engine worker on the task's backend (`createWorkerEngine`, as the real-size page calls it), the
 * workload of lib/structured.ts called on that engine from this page. The prefix cache is off, so
 * every request reads its whole prompt. The result goes to bench/run.ts.
 * @module
 */
import { createWorkerEngine } from '../../src/client/index.ts';
import type { ModelEntry } from '../../src/contracts/worker-config.ts';
import type { StructuredResult } from '../driver/structured-results.ts';
import { config, fail, finish, log } from './lib/channel.ts';
import { runStructured, structuredRequest } from './lib/structured.ts';

async function main(): Promise<void> {
  const setup = config.structured!;
  const { id, dtype, files } = setup.chat;
  const models: ModelEntry[] = [{ engine: 'transformers', id, kind: 'chat', source: id, dtype, contextWindow: 4096, maxOutputTokens: 512, files }];
  const engine = createWorkerEngine({ device: config.device, models, prefixCacheBytes: 0 });
  const signal = new AbortController().signal;
  // The first request loads the model in the worker.
  const t0 = performance.now();
  for await (const _ of engine.chat(structuredRequest(id, 'free', '', 1), { signal }));
  const loadMs = performance.now() - t0;
  await log(`${config.device}: ${id} loaded in ${(loadMs / 1000).toFixed(1)} s; crossOriginIsolated ${crossOriginIsolated}, ${navigator.hardwareConcurrency} cores`);
  const samples = await runStructured(engine, id, setup, () => performance.now(), (line) => log(`${config.device} ${line}`));
  engine.terminate();
  const result: StructuredResult = { where: config.device, model: id, dtype, maxTokens: setup.maxTokens, rounds: setup.rounds, loadMs, samples };
  await finish(result);
}

main().catch(fail);
