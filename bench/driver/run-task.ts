/** One browser task: a fresh browser on the task's page, until the page has posted its results. @module */
import { launch, type Driver } from './browser.ts';
import type { BenchServer } from './server.ts';
import type { Task } from './tasks.ts';

/** Stops the browser of the task in progress (also on Ctrl-C: chromium runs in its own process group). */
let stopCurrent: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void (stopCurrent?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

export async function runTask(server: BenchServer, task: Task, driver: Driver): Promise<unknown[]> {
  const url = `${server.origin}${task.page}?cfg=${encodeURIComponent(JSON.stringify({ task: task.name, ...task.config }))}`;
  const results: unknown[] = [];
  const started = Date.now();
  let browserLog = '';
  let launched: Promise<() => Promise<void>> | undefined;
  try {
    await new Promise<void>((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`${task.name}: no result after ${task.timeoutMs / 1000} s`)), task.timeoutMs);
      server.listen({
        page: task.page,
        onLog: (message) => console.log(`  [${task.name} +${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`),
        onResult: (result) => {
          results.push(result);
          if (results.length === task.results) {
            clearTimeout(timer);
            resolvePromise();
          }
        },
        onError: (message) => {
          clearTimeout(timer);
          reject(new Error(`${task.name}: the page failed: ${message}`));
        },
      });
      launched = launch(driver, url, (text) => (browserLog = (browserLog + text).slice(-20_000)));
      stopCurrent = async () => (await launched?.catch(() => undefined))?.();
      launched.catch(reject);
    });
  } catch (error) {
    if (browserLog) console.error(`--- chromium output (tail) ---\n${browserLog.slice(-4000)}`);
    throw error;
  } finally {
    server.listen(undefined);
    await stopCurrent?.();
    stopCurrent = undefined;
  }
  return results;
}
