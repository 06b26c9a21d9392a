/**
 * Browser test fixtures: a page of the built app (the SDK test page) that has started the runtime,
 * so its fetches to the base URL are answered by the service worker and the engine worker.
 */
import { test as base, expect, type Page, type Worker } from '@playwright/test';
import type { ModelEntry } from '../src/contracts/worker-config.ts';

export const SDK_PAGE = '/e2e/pages/sdk.html';

export interface StartArgs {
  /** The origin to open the page on (a host that forwards the app's paths); default the app server's. */
  readonly origin?: string;
  readonly baseUrl?: string;
  readonly device?: 'wasm' | 'webgpu' | 'auto';
  readonly apiKeys?: string[];
  /** false: this page's requests go through the service worker, as other contexts' do (default true, as in the product). */
  readonly inPage?: boolean;
  /** `slow`: the slow synthetic engine (a test double) instead of the product's engine worker. */
  readonly engine?: 'product' | 'slow';
  /** Settings of the slow engine. */
  readonly tokenMs?: number;
  readonly prefillMs?: number;
  /** The service worker's script URL (default the product's); its query can set `respondWithin` (ms). */
  readonly serviceWorkerUrl?: string;
  /** Where transformers.js fetches models that are not bundled (the product engine); a path is taken on the page's origin. */
  readonly transformersRemoteHost?: string;
  /** The product engine's prefill piece (tokens a pass over a long prompt). */
  readonly prefillChunkTokens?: number;
  /** The app's own models (the product engine's `engine.models`). */
  readonly models?: readonly ModelEntry[];
  /** Each model's fallback (the product engine's `engine.fallbacks`). */
  readonly fallbacks?: Readonly<Record<string, string>>;
  /** The onnxruntime wasm file (the product engine's `engine.wasmUrl`): a missing one leaves transformers.js no WASM path. */
  readonly wasmUrl?: string;
}

/** What the test page records: load progress and host changes, for assertions. */
export interface PageLog {
  progress: { status: string; model: string; device?: string }[];
  hostChanges: boolean[];
  /** Each replacement of this tab's engine worker: why it ended (null: a restart on request). */
  engineExits: ({ reason: string; message: string; at: string } | null)[];
}

/** Opens the SDK page and starts the runtime in it; resolves when the page is controlled. */
export async function startRuntime(page: Page, args: StartArgs = {}): Promise<void> {
  await page.goto(args.origin ? new URL(SDK_PAGE, args.origin).href : SDK_PAGE);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await page.evaluate(async ({ baseUrl, device, apiKeys, inPage, engine, tokenMs, prefillMs, serviceWorkerUrl, transformersRemoteHost, models, fallbacks, wasmUrl, prefillChunkTokens }) => {
    const log: PageLog = { progress: [], hostChanges: [], engineExits: [] };
    Object.assign(window, { log });
    const inference = await window.harness.startInference({
      baseUrl,
      apiKeys,
      inPage,
      ...(serviceWorkerUrl ? { serviceWorkerUrl } : {}),
      ...(engine === 'slow' ? { engineWorker: window.harness.slowEngineWorker, engine: { tokenMs, prefillMs } as object } : { engine: { device: device ?? 'wasm', transformersRemoteHost: transformersRemoteHost && new URL(transformersRemoteHost, location.href).href, models, fallbacks, wasmUrl, ...(prefillChunkTokens ? { prefillChunkTokens } : {}) } }),
      onProgress: (p) => log.progress.push(p),
      onHostChange: (isHost) => log.hostChanges.push(isHost),
      onEngineExit: (exit) => log.engineExits.push(exit ?? null),
    });
    Object.assign(window, { inference });
  }, args);
}

export const test = base.extend<{ runtimePage: Page }>({
  runtimePage: async ({ page }, use) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.log(`[page error] ${msg.text()}`);
    });
    await startRuntime(page);
    await use(page);
  },
});

export { expect };

/** The engine worker the page host started (to inject faults into it). */
export async function engineWorker(page: Page): Promise<Worker> {
  const find = () => page.workers().find((w) => w.url().includes('/inpage-llm/engine-worker'));
  await expect.poll(() => find() !== undefined).toBe(true);
  return find()!;
}
