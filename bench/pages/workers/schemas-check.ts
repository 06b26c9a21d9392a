/**
 * The MaskBench runner in the browser (bench/pages/schemas.ts, `npm run bench -- --schemas`): the
 * same code as `npx inpage-llm schemas check` (src/cli/schemas-check.ts, its warm-up, per-file
 * check and summary) with the product's schema matcher (schemas-check-matcher.ts, the engine
 * modules the engine worker runs for transformers.js models), in a dedicated module worker of its
 * own: the product's engine worker serves models, and has no call that would run a check. Only
 * the edges differ from the CLI's: the schema files and the tokenizer's are fetched from the bench
 * server instead of read from disk, and transformers.js is its browser build.
 *
 * Posts a `line` message for each line the runner writes (one JSON line per file, the summary
 * last), then `done`; or `error`.
 * @module
 */
import { parseSchemaFile, runSchemasCheck } from '../../../src/cli/schemas-check.ts';
import { matcherEngine } from '../../../src/cli/schemas-check-matcher.ts';
import { checkTokenizerOf, tokenizerFilesOf } from '../../../src/cli/schemas-check-tokenizer.ts';
import type { SchemasJob, SchemasReply } from '../../driver/schemas-results.ts';

declare const self: DedicatedWorkerGlobalScope;

const tell = (reply: SchemasReply) => self.postMessage(reply);

async function json(name: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(`/bench/tokenizer/${name}`);
  if (response.status === 404 && !required) return undefined;
  if (!response.ok) throw new Error(`/bench/tokenizer/${name}: ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

self.onmessage = async (event: MessageEvent<SchemasJob>) => {
  const job = event.data;
  try {
    const t0 = performance.now();
    const transformers = await import('@huggingface/transformers');
    const [tokenizer, config, model, generation] = await Promise.all([json('tokenizer.json', true), json('tokenizer_config.json', true), json('config.json', false), json('generation_config.json', false)]);
    const checkTokenizer = checkTokenizerOf(transformers, tokenizerFilesOf({ tokenizer: tokenizer!, config: config!, ...(model ? { model } : {}), ...(generation ? { generation } : {}) }), '/bench/tokenizer/');
    const t1 = performance.now();
    await runSchemasCheck({
      files: job.files,
      read: async (file) => {
        const response = await fetch(`/bench/maskbench/${encodeURIComponent(file.slice(file.lastIndexOf('/') + 1))}`);
        // As the CLI words a file it cannot read.
        return response.ok ? parseSchemaFile(file, await response.text()) : { file, schema: undefined, tests: [], unreadable: `Not a JSON file: ${response.status} ${response.statusText}` };
      },
      engine: matcherEngine,
      tokenizer: checkTokenizer,
      json: true,
      strict: false,
      timeoutMs: job.timeoutMs,
      write: (line) => tell({ type: 'line', line }),
    });
    tell({ type: 'done', tokenizerMs: t1 - t0, runMs: performance.now() - t1, vocabularySize: checkTokenizer.vocabulary.size, crossOriginIsolated: self.crossOriginIsolated });
  } catch (error) {
    tell({ type: 'error', message: String((error as Error)?.stack ?? error) });
  }
};
