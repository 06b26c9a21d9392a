/**
 * The cross-browser smoke (`npm run test:browsers`): builds the browser-test app, serves it with
 * `vite preview`, then in Debian's Firefox ESR (WebDriver BiDi) and WebKitGTK's MiniBrowser
 * (classic WebDriver, on Xvfb) checks the five paths of e2e/browsers/checks.ts: the playground,
 * the page path, the service worker, a second tab and an offline reload. Chromium runs the full
 * Playwright suite; these engines run this smoke. Prints each check's time per browser; on a
 * failure keeps a screenshot and the pages' errors in the results folder and exits non-zero.
 *
 * Settings (environment): SMOKE_BROWSERS (`firefox,webkit`), SMOKE_PORT (4315), SMOKE_DIST
 * (build-smoke), SMOKE_RESULTS (test-results-smoke), SMOKE_SKIP_BUILD=1 (serve the last build).
 * Needs Node 22+ (the npm script runs the `node` devDependency) and the Debian packages
 * firefox-esr, webkit2gtk-driver, libwebkit2gtk-4.1-0 and xvfb (.ci/run installs them).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS, type CheckContext } from '../e2e/browsers/checks.ts';
import { limit, type SmokeBrowser } from '../e2e/browsers/driver.ts';
import { launchFirefox } from '../e2e/browsers/firefox.ts';
import { launchWebKit } from '../e2e/browsers/webkit.ts';

const port = Number(process.env.SMOKE_PORT ?? 4315);
const outDir = process.env.SMOKE_DIST ?? 'build-smoke';
const results = process.env.SMOKE_RESULTS ?? 'test-results-smoke';
const origin = `http://localhost:${port}`;
const LAUNCHERS: Record<string, () => Promise<SmokeBrowser>> = {
  firefox: launchFirefox,
  webkit: launchWebKit,
};
const browsers = (process.env.SMOKE_BROWSERS ?? 'firefox,webkit').split(',').map((b) => b.trim()).filter(Boolean);
/** The whole run, build included: a hang anywhere ends it. */
const RUN_MS = 9 * 60_000;

const watchdog = setTimeout(() => {
  console.error(`smoke: not finished within ${RUN_MS / 1000} s`);
  stopServer();
  process.exit(1);
}, RUN_MS);

let server: ChildProcess | undefined;

function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null || child.pid === undefined) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGKILL');
  return limit(exited, 10_000, 'stop the server');
}

async function startServer(): Promise<void> {
  server = spawn(process.execPath, ['node_modules/vite/bin/vite.js', 'preview', '--outDir', outDir, '--port', String(port), '--strictPort'], { stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`vite preview exited (${server.exitCode}); is port ${port} taken?`);
    const up = await fetch(origin, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
    if (up) return;
    if (Date.now() > deadline) throw new Error(`${origin} did not answer within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function build(): void {
  if (process.env.SMOKE_SKIP_BUILD) return;
  const started = Date.now();
  const run = (command: string) => {
    const result = spawnSync(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 180_000 });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  };
  run('npm run assets');
  run(`npx vite build --mode e2e --outDir ${outDir}`);
  console.log(`built ${outDir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

interface Outcome {
  readonly check: string;
  readonly ms: number;
  readonly ok: boolean | 'skipped';
  readonly detail: string;
}

async function smoke(name: string): Promise<{ version: string; outcomes: Outcome[]; ms: number }> {
  const started = Date.now();
  const outcomes: Outcome[] = [];
  await startServer();
  let browser: SmokeBrowser | undefined;
  try {
    browser = await LAUNCHERS[name]!();
    console.log(`\n${name}: ${browser.version}`);
    const context: CheckContext = { browser, origin, stopServer, tabs: {} };
    let failed = false;
    for (const check of CHECKS) {
      if (failed) {
        outcomes.push({ check: check.name, ms: 0, ok: 'skipped', detail: 'after a failure' });
        console.log(`  - ${check.name}: skipped`);
        continue;
      }
      const t0 = Date.now();
      try {
        const detail = await limit(check.run(context), check.ms, check.name);
        outcomes.push({ check: check.name, ms: Date.now() - t0, ok: true, detail });
        console.log(`  ✓ ${check.name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${detail}`);
      } catch (error) {
        failed = true;
        const detail = error instanceof Error ? error.message : String(error);
        outcomes.push({ check: check.name, ms: Date.now() - t0, ok: false, detail });
        console.log(`  ✗ ${check.name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${detail}`);
        await report(browser, name, check.name, context);
      }
    }
    return { version: browser.version, outcomes, ms: Date.now() - started };
  } catch (error) {
    // The browser did not start.
    outcomes.push({ check: 'launch', ms: Date.now() - started, ok: false, detail: error instanceof Error ? error.message : String(error) });
    console.log(`\n${name}: ✗ launch: ${outcomes[0]!.detail}`);
    return { version: 'unknown', outcomes, ms: Date.now() - started };
  } finally {
    await browser?.close().catch(() => {});
    await stopServer();
  }
}

/** A screenshot of each tab the checks opened and the pages' errors, into the results folder. */
async function report(browser: SmokeBrowser, name: string, check: string, context: CheckContext): Promise<void> {
  const slug = `${name}-${check.replace(/\W+/g, '-')}`;
  for (const [role, tab] of Object.entries({ first: browser.firstTab, ...context.tabs })) {
    if (tab) await browser.screenshot(tab, join(results, `${slug}-${role}.png`)).catch(() => {});
  }
  const errors = await limit(browser.pageErrors(), 20_000, 'page errors').catch(() => []);
  await writeFile(join(results, `${slug}-errors.txt`), errors.join('\n') + '\n');
  for (const line of errors.slice(-20)) console.log(`    [page] ${line}`);
}

async function main(): Promise<number> {
  const unknown = browsers.filter((b) => !(b in LAUNCHERS));
  if (unknown.length) throw new Error(`unknown browsers: ${unknown.join(', ')} (known: ${Object.keys(LAUNCHERS).join(', ')})`);
  await rm(results, { recursive: true, force: true });
  await mkdir(results, { recursive: true });
  build();
  const runs: Record<string, Awaited<ReturnType<typeof smoke>>> = {};
  for (const name of browsers) runs[name] = await smoke(name);

  console.log('\nseconds per check:');
  const names = CHECKS.map((c) => c.name);
  console.log(['browser'.padEnd(28), ...names.map((n) => n.padStart(15)), 'total'.padStart(8)].join(''));
  for (const [name, run] of Object.entries(runs)) {
    const cells = names.map((n) => {
      const o = run.outcomes.find((x) => x.check === n);
      return (o === undefined || o.ok === 'skipped' ? '-' : o.ok ? (o.ms / 1000).toFixed(1) : 'FAIL').padStart(15);
    });
    console.log([`${name} (${run.version})`.padEnd(28), ...cells, (run.ms / 1000).toFixed(1).padStart(8)].join(''));
  }
  await writeFile(join(results, 'summary.json'), JSON.stringify(runs, null, 2) + '\n');
  const ok = Object.values(runs).every((r) => r.outcomes.every((o) => o.ok === true));
  console.log(ok ? '\nsmoke: all passed' : `\nsmoke: failures (screenshots and page errors in ${results}/)`);
  return ok ? 0 : 1;
}

main().then(
  (code) => {
    clearTimeout(watchdog);
    process.exit(code);
  },
  async (error) => {
    console.error(error);
    await stopServer().catch(() => {});
    process.exit(1);
  },
);
