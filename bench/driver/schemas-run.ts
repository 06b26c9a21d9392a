/**
 * `npm run bench -- --schemas`: the MaskBench runner (`npx inpage-llm schemas check`) in the
 * browser, beside the same runner in Node, on the same files and tokenizer. The files are a sample
 * of the shared MaskBench folder (test/support/maskbench.ts says where it is; read there at run
 * time, never copied), taken as the CLI's `--sample` takes it (`schemaPaths`), so both rows are
 * over the very same files; `--limit` then keeps the first that many. The tokenizer is the
 * real-shaped Qwen2.5's (`.models/real/qwen2.5-0.5b-q4-shaped`, made by `npm run models:real`,
 * Qwen2.5-0.5B-Instruct's own tokenizer files) unless `--tokenizer DIR` says another folder.
 *
 * Node: the CLI itself, as a child process (`schemas check … --json`). Browser: the bench server
 * serves the files under /bench/maskbench/ and the tokenizer's under /bench/tokenizer/; the page
 * (bench/pages/schemas.ts) starts a worker that runs the runner's own modules on them
 * (bench/pages/workers/schemas-check.ts). `--no-node` and `--no-main` skip one side. Each side's
 * lines go to bench/results/<stamp>-schemas-{node,browser}.jsonl; the markdown has a row per side,
 * as bench/README.md's MaskBench table has them, and the files whose status differs.
 * @module
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { FileResult, Summary } from '../../src/cli/schemas-check.ts';
import { schemaPaths } from '../../src/cli/schemas-check-files.ts';
import { MASKBENCH_DIR, maskbenchMissing } from '../../test/support/maskbench.ts';
import type { Options } from './options.ts';
import { REAL_MODELS, RESULTS, ROOT } from './paths.ts';
import { runTask } from './run-task.ts';
import type { SchemasResult } from './schemas-results.ts';
import type { BenchServer } from './server.ts';

/** The sample when `--sample` is not given: the one bench/README.md's Node rows are over. */
export const DEFAULT_SAMPLE = 1000;
/** What a file may take, the CLI's default. */
const TIMEOUT_MS = 10_000;

export interface SchemasSide {
  readonly where: 'node' | 'browser';
  readonly results: readonly FileResult[];
  readonly summary: Summary;
  /** Seconds the whole side took, tokenizer and tables included. */
  readonly seconds: number;
}

export interface SchemasBench {
  readonly files: number;
  readonly sample: number;
  readonly limit?: number;
  readonly tokenizer: string;
  readonly timeoutMs: number;
  readonly node?: SchemasSide;
  readonly browser?: SchemasSide & Omit<SchemasResult, 'lines'>;
  readonly loadAverage: { readonly start: number[]; readonly end: number[] };
  /** Where each side's lines were written (bench/results/…jsonl). */
  readonly written?: readonly string[];
}

/** Runs both sides; undefined (with the reason printed) where the schemas or the tokenizer are missing. */
export async function runSchemasBench(options: Options, server: BenchServer): Promise<{ markdown: string; results: SchemasBench } | undefined> {
  const missing = maskbenchMissing();
  if (missing) {
    console.log(`bench: --schemas skipped: it ${missing.replace(/: run with .*/, '')} (set INPAGE_MASKBENCH_DIR to the folder)`);
    return undefined;
  }
  const tokenizer = resolve(options.tokenizer ?? join(REAL_MODELS, 'qwen2.5-0.5b-q4-shaped'));
  if (!existsSync(join(tokenizer, 'tokenizer.json'))) {
    console.log(`bench: --schemas skipped: no tokenizer.json in ${tokenizer}${options.tokenizer ? '' : ' (npm run models:real makes it; or pass --tokenizer DIR)'}`);
    return undefined;
  }
  const start = loadavg();
  const sample = options.sample ?? DEFAULT_SAMPLE;
  // Named as the CLI names them when given the folder as a path from the repository's root.
  const folder = relative(ROOT, MASKBENCH_DIR) || '.';
  const files = (await schemaPaths([MASKBENCH_DIR], { sample, ...(options.limit ? { limit: options.limit } : {}) })).map((file) => join(folder, basename(file)));
  console.log(`bench: --schemas: ${files.length} files of ${folder} (--sample ${sample}${options.limit ? ` --limit ${options.limit}` : ''}), tokenizer ${relative(ROOT, tokenizer)}, ${TIMEOUT_MS} ms a file`);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS, { recursive: true });

  let node: SchemasSide | undefined;
  if (options.node) {
    const began = Date.now();
    const args = ['schemas', 'check', folder, '--tokenizer', tokenizer, '--json', '--sample', String(sample), ...(options.limit ? ['--limit', String(options.limit)] : []), '--timeout-ms', String(TIMEOUT_MS)];
    console.log(`bench: [node] node src/cli/main.ts ${args.join(' ')}`);
    const lines = await cliLines(args, files.length);
    writeFileSync(join(RESULTS, `${stamp}-schemas-node.jsonl`), lines.map((line) => `${line}\n`).join(''));
    node = { where: 'node', ...parsed(lines), seconds: (Date.now() - began) / 1000 };
    console.log(`bench: [node] ${JSON.stringify(node.summary)}`);
  }

  let browser: SchemasBench['browser'];
  if (options.main) {
    const began = Date.now();
    server.mount('/bench/maskbench/', MASKBENCH_DIR);
    server.mount('/bench/tokenizer/', tokenizer);
    const [page] = await runTask(server, { name: 'schemas', page: '/bench/pages/schemas.html', config: { device: 'wasm', profile: 'full', schemas: { files, timeoutMs: TIMEOUT_MS } }, results: 1, timeoutMs: 5 * 60_000 + files.length * (TIMEOUT_MS + 5_000) }, options.driver);
    const { lines, ...rest } = page as SchemasResult;
    writeFileSync(join(RESULTS, `${stamp}-schemas-browser.jsonl`), lines.map((line) => `${line}\n`).join(''));
    browser = { where: 'browser', ...parsed(lines), seconds: (Date.now() - began) / 1000, ...rest };
    console.log(`bench: [browser] ${JSON.stringify(browser.summary)}`);
  }
  const written = [...(node ? [`bench/results/${stamp}-schemas-node.jsonl`] : []), ...(browser ? [`bench/results/${stamp}-schemas-browser.jsonl`] : [])];
  const results: SchemasBench = { written, files: files.length, sample, ...(options.limit ? { limit: options.limit } : {}), tokenizer: relative(ROOT, tokenizer), timeoutMs: TIMEOUT_MS, ...(node ? { node } : {}), ...(browser ? { browser } : {}), loadAverage: { start, end: loadavg() } };
  return { markdown: schemasReport(results), results };
}

/** The CLI's stdout, line by line (its exit code says only whether every file passed). */
async function cliLines(args: readonly string[], total: number): Promise<string[]> {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    if (lines.length % 100 === 0 && lines.length < total) console.log(`  [node] ${lines.length} of ${total} files`);
  }
  const code = await new Promise<number | null>((resolveExit) => (child.exitCode !== null ? resolveExit(child.exitCode) : child.once('exit', resolveExit)));
  if (code !== 0 && code !== 1) throw new Error(`schemas check exited with ${code}`);
  return lines;
}

function parsed(lines: readonly string[]): { results: FileResult[]; summary: Summary } {
  const objects = lines.map((line) => JSON.parse(line) as FileResult | { summary: Summary });
  const last = objects.at(-1);
  if (!last || !('summary' in last)) throw new Error('the runner wrote no summary');
  return { results: objects.slice(0, -1) as FileResult[], summary: last.summary };
}

/** A time in µs as bench/README.md writes them: milliseconds to two figures, or whole microseconds. */
function ms(us: number | null): string {
  if (us === null) return '–';
  const value = us / 1000;
  return `${value >= 100 ? Math.round(value) : value.toPrecision(2)} ms`;
}
function us(value: number | null): string {
  return value === null ? '–' : value < 1000 ? `${Math.round(value)} µs` : ms(value);
}

/** One row of the MaskBench table (bench/README.md's columns after its first). */
export function summaryRow(label: string, summary: Summary): string {
  const pct = summary.files ? ` (${Math.round((100 * summary.passing) / summary.files)}%)` : '';
  const pair = (a: number | null, b: number | null, one: (v: number | null) => string) => {
    const [x, y] = [one(a), one(b)];
    return x.endsWith(' ms') && y.endsWith(' ms') ? `${x.slice(0, -3)} / ${y}` : `${x} / ${y}`;
  };
  return `| ${label} | ${summary.files.toLocaleString('en')} | ${summary.passing.toLocaleString('en')}${pct} | ${summary.compile_error} | ${summary.validation_error} | ${summary.invalidation_error} | ${summary.timeout} | ${pair(summary.ttfm_us_p50, summary.ttfm_us_p95, ms)} | ${pair(summary.tbm_us_p50, summary.tbm_us_p99, us)} |`;
}

export function schemasReport(bench: SchemasBench): string {
  const chromium = bench.browser?.userAgent.match(/Chrome\/(\d+)/)?.[1];
  const sampled = `--sample ${bench.sample}${bench.limit ? ` --limit ${bench.limit}` : ''}`;
  const rows = [
    '| where | files | passing | compile errors | valid refused | invalid accepted | timeouts | TTFM p50 / p95 | TBM p50 / p99 |',
    '|---|---|---|---|---|---|---|---|---|',
    ...(bench.node ? [summaryRow(`Node ${process.versions.node.split('.')[0]} (\`schemas check ${sampled}\`)`, bench.node.summary)] : []),
    ...(bench.browser ? [summaryRow(`Chromium ${chromium ?? '?'}, a worker (\`npm run bench -- --schemas ${sampled}\`)`, bench.browser.summary)] : []),
  ];
  const notes = [
    `- ${bench.files} MaskBench files (${sampled}), tokenizer \`${bench.tokenizer}\`, ${bench.timeoutMs} ms a file, the schema matcher; load average ${bench.loadAverage.start.map((l) => l.toFixed(2)).join('/')} at start, ${bench.loadAverage.end.map((l) => l.toFixed(2)).join('/')} at the end.`,
    ...(bench.node ? [`- Node: ${bench.node.seconds.toFixed(0)} s in all.`] : []),
    ...(bench.written?.length ? [`- Each file's line: ${bench.written.map((path) => `\`${path}\``).join(', ')}.`] : []),
    ...(bench.browser
      ? [
          `- Browser: ${bench.browser.userAgent}; ${bench.browser.hardwareConcurrency} cores offered; the worker ${bench.browser.crossOriginIsolated ? 'cross-origin isolated (5 µs timers: TBM figures under ~10 µs are coarse)' : 'not cross-origin isolated (100 µs timers)'}; tokenizer made in ${(bench.browser.tokenizerMs / 1000).toFixed(1)} s, the run ${(bench.browser.runMs / 1000).toFixed(0)} s, ${bench.browser.seconds.toFixed(0)} s in all.`,
        ]
      : []),
  ];
  let differences = '';
  if (bench.node && bench.browser) {
    const inBrowser = new Map(bench.browser.results.map((result) => [result.file, result]));
    const differ = bench.node.results.filter((result) => inBrowser.get(result.file)?.status !== result.status);
    const ratios = bench.node.results
      .map((result) => [result.ttfm_us, inBrowser.get(result.file)?.ttfm_us] as const)
      .filter((pair): pair is readonly [number, number] => pair[0] !== null && pair[1] !== null && pair[1] !== undefined && pair[0] > 0)
      .map(([n, b]) => b / n)
      .sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)];
    differences = [
      '',
      `Per file, the browser's TTFM over Node's: median ${median === undefined ? '–' : `${median.toFixed(2)}×`} over ${ratios.length} files.`,
      differ.length === 0
        ? 'Every file has the same status in both.'
        : `${differ.length} file(s) with another status in the browser:\n\n${differ
            .slice(0, 20)
            .map((result) => `- ${result.file}: node ${result.status}, browser ${inBrowser.get(result.file)?.status ?? 'missing'}`)
            .join('\n')}${differ.length > 20 ? `\n- … and ${differ.length - 20} more` : ''}`,
    ].join('\n\n');
  }
  return `## MaskBench runner, Node and browser\n\n${rows.join('\n')}\n\n${notes.join('\n')}${differences}\n`;
}
