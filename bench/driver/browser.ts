/**
 * Chromium for the bench: by default a plain process in a fresh profile with no DevTools attached
 * (no Playwright, no CDP): DevTools instrumentation costs ~1 ms per fetch and nothing per
 * postMessage, so it would tax the HTTP-shaped paths only. `--driver playwright` runs the same
 * pages under Playwright, for debugging (console output).
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../e2e/chromium.ts';

export type Driver = 'chromium' | 'playwright';
export const CHROMIUM = CHROMIUM_PATH;

// The browser tests' flags (e2e/chromium.ts), plus the ones Playwright itself adds that matter
// for timing (no background throttling, no field trials); no DevTools pipe or port.
// measureUserAgentSpecificMemory otherwise waits for the next garbage collection (~20 s idle per
// sample); this only makes it measure at once.
const MEMORY_FLAG = '--enable-blink-features=ForceEagerMeasureMemory';
const PLAYWRIGHT_DEFAULTS = [
  '--disable-field-trial-config',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  '--disable-back-forward-cache',
  '--disable-breakpad',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-hang-monitor',
  '--disable-ipc-flooding-protection',
  '--disable-popup-blocking',
  '--no-default-browser-check',
  '--password-store=basic',
  '--use-mock-keychain',
  '--enable-unsafe-swiftshader',
  '--disable-search-engine-choice-screen',
];

// BENCH_GPU=1: WebGPU on the machine's own GPU (Dawn on Vulkan) instead of SwiftShader, for a
// machine with a GPU and its Vulkan driver. On Linux chromium hands WebGPU Dawn's Vulkan backend
// only when its own compositing runs on Vulkan (`--enable-features=Vulkan`); headless has no window,
// hence no Vulkan surface. With these flags headless Chromium 156 got the NVIDIA H200's adapter
// (docs/bench/real-webgpu-h200-2026-11-26.md). BENCH_CHROMIUM_ARGS adds flags of its own
// (space-separated; a repeated switch such as --enable-features replaces the earlier one).
const GPU_FLAGS = ['--use-angle=vulkan', '--enable-features=Vulkan', '--disable-vulkan-surface', '--ignore-gpu-blocklist'];
const SOFTWARE_ADAPTER = '--use-webgpu-adapter=swiftshader';

/** The flags chromium gets under `driver` (Playwright adds its own defaults itself). */
export function browserArgs(driver: Driver, env: NodeJS.ProcessEnv = process.env): string[] {
  const gpu = env.BENCH_GPU === '1';
  const base = gpu ? [...CHROMIUM_ARGS.filter((flag) => flag !== SOFTWARE_ADAPTER), ...GPU_FLAGS] : CHROMIUM_ARGS;
  const extra = env.BENCH_CHROMIUM_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  return [...base, ...(driver === 'chromium' ? PLAYWRIGHT_DEFAULTS : []), MEMORY_FLAG, ...extra];
}

/** Opens `url` in a fresh browser; resolves to the function that closes it. `output` gets chromium's own output. */
export function launch(driver: Driver, url: string, output: (text: string) => void): Promise<() => Promise<void>> {
  return driver === 'playwright' ? launchPlaywright(url) : launchChromium(url, output);
}

/** Chromium as a plain process in a fresh profile: no DevTools attached. */
async function launchChromium(url: string, output: (text: string) => void): Promise<() => Promise<void>> {
  const profile = mkdtempSync(join(tmpdir(), 'inpage-bench-'));
  const child: ChildProcess = spawn(CHROMIUM, ['--headless', `--user-data-dir=${profile}`, ...browserArgs('chromium'), url], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (b: Buffer) => output(b.toString()));
  child.stderr?.on('data', (b: Buffer) => output(b.toString()));
  const exited = new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  return async () => {
    // The browser and its helper processes share the process group this script started.
    const group = -child.pid!;
    try {
      process.kill(group, 'SIGTERM');
    } catch {
      // Already gone.
    }
    const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
    if (!gone) {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(profile, { recursive: true, force: true });
  };
}

/** The same pages under Playwright (DevTools attached), in a fresh browser. For debugging. */
async function launchPlaywright(url: string): Promise<() => Promise<void>> {
  const { chromium } = await import('@playwright/test');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: browserArgs('playwright') });
  const page = await (await browser.newContext()).newPage();
  page.on('console', (msg) => console.log(`  [console.${msg.type()}] ${msg.text()}`));
  page.on('pageerror', (error) => console.log(`  [pageerror] ${error.message}`));
  await page.goto(url);
  return () => browser.close();
}
