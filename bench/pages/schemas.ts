/**
 * The MaskBench runner in the browser (`npm run bench -- --schemas`, driven by
 * bench/driver/schemas-run.ts): starts the worker that runs `schemas check`'s code
 * (workers/schemas-check.ts) on the files the driver sampled, collects the JSON lines it writes,
 * and posts them with what the browser is. The page does nothing else while the worker measures
 * but a progress line every 100 files.
 * @module
 */
import type { SchemasJob, SchemasReply, SchemasResult } from '../driver/schemas-results.ts';
import { config, fail, finish, log } from './lib/channel.ts';

async function main(): Promise<void> {
  const { files, timeoutMs } = config.schemas!;
  const worker = new Worker(new URL('./workers/schemas-check.ts', import.meta.url), { type: 'module', name: 'schemas-check' });
  const lines: string[] = [];
  const done = await new Promise<Extract<SchemasReply, { type: 'done' }>>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<SchemasReply>) => {
      const reply = event.data;
      if (reply.type === 'error') reject(new Error(reply.message));
      else if (reply.type === 'done') resolve(reply);
      else {
        lines.push(reply.line);
        if (lines.length % 100 === 0 && lines.length < files.length) void log(`${lines.length} of ${files.length} files`);
      }
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage({ files, timeoutMs } satisfies SchemasJob);
  });
  worker.terminate();
  const result: SchemasResult = { lines, tokenizerMs: done.tokenizerMs, runMs: done.runMs, vocabularySize: done.vocabularySize, crossOriginIsolated: done.crossOriginIsolated, userAgent: navigator.userAgent, hardwareConcurrency: navigator.hardwareConcurrency };
  await finish(result);
}

main().catch(fail);
