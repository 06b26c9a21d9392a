/**
 * `npm run bench`: builds the app with the benchmark pages (`vite build --mode bench`), serves it
 * cross-origin isolated (COOP/COEP) from a tiny static server, runs the benchmark pages in Debian's
 * chromium (the flags of playwright.config.ts: WebGPU through SwiftShader), collects what the pages
 * POST back, and writes bench/results/<timestamp>.json and .md, printing the tables.
 *
 * Driver: by default chromium is started as a plain process with no DevTools attached (no
 * Playwright, no CDP): DevTools instrumentation costs ~1 ms per fetch and nothing per postMessage,
 * so it would tax the HTTP-shaped paths only. All timing happens inside the pages anyway.
 * `--driver playwright` runs the same pages under Playwright (for debugging: console output).
 *
 * Options:
 *   --device wasm|webgpu|both   backend of transformers.js (default both: everything on WASM plus
 *                               a short WebGPU section; webgpu alone runs everything on WebGPU)
 *   --quick                     a smoke run: few repetitions (two to three minutes)
 *   --profile quick|short|full  repetition profile for every task (overrides the defaults above)
 *   --sections a,b              main-page sections: latency, stream, grammar, embeddings, burst
 *                               (default all); with --models real: main, curves, memory, backends,
 *                               one-worker
 *   --no-load                   skip the cold/warm load tasks
 *   --no-main                   only the load tasks
 *   --no-build                  reuse the last bench build
 *   --runs N                    run the main page N times (fresh browser each) and judge the
 *                               targets on the median over the runs (default 1)
 *   --driver chromium|playwright
 *   --models real               the real-size page instead: the real-shaped generated models
 *                               (made on first use, as by `npm run models:real`), service worker vs
 *                               direct vs the browser's floor, and how cost grows (charts as SVG)
 *   --conversation              the prefix-cache benchmark instead (driver/conversation-run.ts): a
 *                               10-turn conversation and a 6-step agent loop on the real-shaped
 *                               Qwen, cache on and off, in Node and in the browser (--no-node,
 *                               --no-main to skip one)
 *   --cpu-paths                 the CPU-path comparison instead (driver/cpu-paths-run.ts): the
 *                               real-shaped Qwen on onnxruntime-web (plain and asyncify builds,
 *                               q4 and q8) and llama.cpp in WASM (Q4_0, Q8_0), per thread count,
 *                               against onnxruntime-node on one thread (--threads 1,2;
 *                               --candidates wllama,plain; --no-node, --no-main)
 *   --schemas                   the MaskBench runner (`npx inpage-llm schemas check`) in a browser
 *                               worker beside the Node CLI, on the same sample of the shared
 *                               MaskBench files (driver/schemas-run.ts; --sample N, default 1000,
 *                               --limit N, --tokenizer DIR, --no-node, --no-main)
 *   --drafts                    the drafted-decoding benchmark instead (driver/drafts-run.ts): the
 *                               real-shaped Qwen q4 and q8 and stories260K in Node, predicted outputs
 *                               of falling quality and prompt lookup off and on; ms/token
 *   --structured                the structured-output benchmark instead (driver/structured-run.ts):
 *                               the real-shaped Qwen q4 in Node and in the browser's engine worker
 *                               (WASM): free text, json_schema shapes, forced and auto tool calls,
 *                               first use and reused; first token and ms/token (--no-node, --no-main;
 *                               --wasm-weights q4 for the browser's 4-bit weights, default q8)
 *
 * Environment: CHROMIUM_PATH (the browser), BENCH_GPU=1 (WebGPU on the machine's GPU through Vulkan
 * instead of SwiftShader), BENCH_CHROMIUM_ARGS (more chromium flags); see driver/browser.ts.
 *
 * The driver's parts are in bench/driver/ (the report in bench/driver/report/); the pages in
 * bench/pages/.
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { browserArgs, CHROMIUM } from './driver/browser.ts';
import { build } from './driver/build.ts';
import { runConversationBench } from './driver/conversation-run.ts';
import { runCpuPathsBench } from './driver/cpu-paths-run.ts';
import { runSchemasBench } from './driver/schemas-run.ts';
import { takeLock } from './driver/lock.ts';
import { runStructuredBench } from './driver/structured-run.ts';
import { runDraftsBench } from './driver/drafts-run.ts';
import { parseArgs } from './driver/options.ts';
import { OUT_DIR, RESULTS } from './driver/paths.ts';
import { markdownReport } from './driver/report/document.ts';
import type { RealSizeResult } from './driver/real-size-results.ts';
import { realWorkload } from './driver/real-workload.ts';
import { realSizeReport } from './driver/report/real-size.ts';
import type { LoadResult, MainResult } from './driver/results.ts';
import { runTask } from './driver/run-task.ts';
import { startServer } from './driver/server.ts';
import { planDevices, planTasks } from './driver/tasks.ts';

const options = parseArgs(process.argv.slice(2));

async function main(): Promise<void> {
  const load0 = loadavg();
  console.log(`bench: load average ${load0.map((l) => l.toFixed(2)).join(' ')} (1/5/15 min)${load0[0]! >= 1 ? ' — the machine is busy: numbers will be noisy' : ''}`);
  takeLock();
  if (options.build) await build();

  const server = await startServer();
  const driver =
    options.driver === 'chromium'
      ? 'chromium started as a plain process, no DevTools attached (no Playwright/CDP); results are POSTed by the page to the bench server'
      : 'Playwright (DevTools attached): fetch paths bear ~1 ms per request more than postMessage paths — for debugging only';
  console.log(`bench: serving ${OUT_DIR} at ${server.origin} (COOP/COEP); driver: ${driver}`);

  if (options.cpuPaths) {
    try {
      const { markdown, results } = await runCpuPathsBench(options, server);
      write({ date: new Date().toISOString(), options, driver, chromium: { path: CHROMIUM, args: browserArgs(options.driver) }, loadAverage: { start: load0, end: loadavg() }, cpuPaths: results }, `# inpage-llm CPU-path benchmark — ${new Date().toISOString()}\n\n- ${driver}; load average ${load0.map((l) => l.toFixed(2)).join('/')} at start, ${loadavg().map((l) => l.toFixed(2)).join('/')} at the end.\n\n${markdown}\n`);
    } finally {
      server.close();
    }
    return;
  }

  if (options.schemas) {
    try {
      const run = await runSchemasBench(options, server);
      if (run) write({ date: new Date().toISOString(), options, driver, chromium: { path: CHROMIUM, args: browserArgs(options.driver) }, schemas: run.results }, `# inpage-llm MaskBench runner — ${new Date().toISOString()}\n\n- ${driver}.\n\n${run.markdown}`);
    } finally {
      server.close();
    }
    return;
  }
  if (options.drafts) {
    try {
      const { markdown, samples } = await runDraftsBench(options, server);
      write({ date: new Date().toISOString(), options, loadAverage: { start: load0, end: loadavg() }, drafts: samples }, `# inpage-llm drafted-decoding benchmark — ${new Date().toISOString()}\n\n- Node (onnxruntime-node) and ${driver}; load average ${load0.map((l) => l.toFixed(2)).join('/')} at start, ${loadavg().map((l) => l.toFixed(2)).join('/')} at the end.\n\n${markdown}\n`);
    } finally {
      server.close();
    }
    return;
  }
  if (options.structured) {
    try {
      const { markdown, results } = await runStructuredBench(options, server);
      write({ date: new Date().toISOString(), options, driver, chromium: { path: CHROMIUM, args: browserArgs(options.driver) }, loadAverage: { start: load0, end: loadavg() }, structured: results }, `# inpage-llm structured-output benchmark — ${new Date().toISOString()}\n\n- ${driver}; load average ${load0.map((l) => l.toFixed(2)).join('/')} at start, ${loadavg().map((l) => l.toFixed(2)).join('/')} at the end.\n\n${markdown}\n`);
    } finally {
      server.close();
    }
    return;
  }

  if (options.conversation) {
    try {
      const { markdown, results, charts } = await runConversationBench(options, server);
      mkdirSync(RESULTS, { recursive: true });
      for (const chart of charts) writeFileSync(join(RESULTS, chart.file), chart.svg);
      write({ date: new Date().toISOString(), options, driver, loadAverage: { start: load0, end: loadavg() }, conversation: results }, `# inpage-llm prefix-cache benchmark — ${new Date().toISOString()}\n\n- ${driver}; load average ${load0.map((l) => l.toFixed(2)).join('/')} at start, ${loadavg().map((l) => l.toFixed(2)).join('/')} at the end.\n\n${markdown}\n`);
    } finally {
      server.close();
    }
    return;
  }

  const devices = planDevices(options);
  const tasks = planTasks(options, devices, options.models === 'real' ? await realWorkload() : undefined);
  const started = Date.now();
  const mains: MainResult[] = [];
  const loads: LoadResult[] = [];
  const reals: RealSizeResult[] = [];
  try {
    for (const task of tasks) {
      console.log(`bench: ${task.name}…`);
      const results = await runTask(server, task, options.driver);
      if (task.name.startsWith('main')) mains.push(results[0] as MainResult);
      else if (task.name.startsWith('real')) reals.push(results[0] as RealSizeResult);
      else loads.push(...(results as LoadResult[]));
    }
  } finally {
    server.close();
  }
  const load1 = loadavg();

  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS, { recursive: true });
  let markdown = markdownReport({ options, driver, devices, mains, loads, reals, loadAverage: { start: load0, end: load1 }, seconds: (Date.now() - started) / 1000 });
  // The real-size report's charts are SVG files next to the markdown, embedded in it.
  for (const real of reals) {
    const report = await realSizeReport(real, (name) => `${stamp}-${real.device}-${name}.svg`);
    for (const chart of report.charts) writeFileSync(join(RESULTS, chart.file), chart.svg);
    markdown += `\n${report.markdown}\n`;
  }
  const json = { date: new Date().toISOString(), options, driver, chromium: { path: CHROMIUM, args: browserArgs(options.driver) }, loadAverage: { start: load0, end: load1 }, main: mains, load: loads, real: reals };
  writeFileSync(join(RESULTS, `${stamp}.json`), JSON.stringify(json, null, 1));
  writeFileSync(join(RESULTS, `${stamp}.md`), markdown);
  console.log(`\n${markdown}`);
  console.log(`bench: wrote bench/results/${stamp}.json and .md`);
}

/** Writes a run's results and report to bench/results/<timestamp>.json and .md, and prints the report. */
function write(json: unknown, markdown: string): void {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, `${stamp}.json`), JSON.stringify(json, null, 1));
  writeFileSync(join(RESULTS, `${stamp}.md`), markdown);
  console.log(`\n${markdown}`);
  console.log(`bench: wrote bench/results/${stamp}.json and .md`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
