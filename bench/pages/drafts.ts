/**
 * The drafted-decoding benchmark in the browser: the real-shaped Qwen2.5-0.5B in two product engine
 * workers (`createWorkerEngine`), prompt lookup off and on, the workload of lib/drafts.ts called on
 * them from this page. The prefix cache is off. The samples go to bench/run.ts.
 * @module
 */
import { createWorkerEngine } from '../../src/client/index.ts';
import type { ModelEntry } from '../../src/contracts/worker-config.ts';
import { config, fail, finish, log } from './lib/channel.ts';
import { runDrafts } from './lib/drafts.ts';

async function main(): Promise<void> {
  const setup = config.drafts!;
  const { id, dtype, files } = setup.chat;
  const models: ModelEntry[] = [{ engine: 'transformers', id, kind: 'chat', source: id, dtype, contextWindow: 4096, maxOutputTokens: 512, files }];
  const off = createWorkerEngine({ device: config.device, models, prefixCacheBytes: 0, promptLookup: false });
  const on = createWorkerEngine({ device: config.device, models, prefixCacheBytes: 0, promptLookup: true });
  await log(`${config.device}: crossOriginIsolated ${crossOriginIsolated}, ${navigator.hardwareConcurrency} cores`);
  const samples = await runDrafts({ off, on }, config.device, id, setup.rows, setup.rounds, () => performance.now(), (line) => log(line));
  off.terminate();
  on.terminate();
  await finish(samples);
}

main().catch(fail);
