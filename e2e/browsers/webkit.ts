/**
 * WebKitGTK's MiniBrowser (Safari's engine), driven over classic WebDriver by selenium-webdriver
 * through Debian's WebKitWebDriver, on an Xvfb display (MiniBrowser has no headless mode under
 * automation). Classic WebDriver shows no console, so each page gets a hook that keeps its errors;
 * a second tab is a new window.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { Builder, By, Key, type WebDriver } from 'selenium-webdriver';
import { CALL_MS, limit, type InPage, type SmokeBrowser } from './driver.ts';

export const MINIBROWSER_PATH = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const WEBKIT_DRIVER_PATH = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';

/** Starts Xvfb on a free display; resolves with the display (e.g. `:3`) once the server is up. */
async function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true });
  const display = await limit(
    new Promise<string>((resolve, reject) => {
      let text = '';
      xvfb.stdio[3]!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(`:${text.trim()}`);
      });
      xvfb.on('error', reject);
      xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code})`)));
    }),
    15_000,
    'start Xvfb',
  );
  return { display, process: xvfb };
}

/** Resolves once something answers on the port. */
async function reachable(url: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${ms} ms: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Installed in each page after it loads: keeps console errors and uncaught errors for the report. */
const hookConsole = () => {
  const w = window as unknown as { smokeErrors?: string[] };
  if (w.smokeErrors) return;
  const errors: string[] = [];
  w.smokeErrors = errors;
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    errors.push(args.map(String).join(' '));
    original(...args);
  };
  addEventListener('error', (event) => errors.push(`uncaught: ${event.message}`));
  addEventListener('unhandledrejection', (event) => errors.push(`unhandled rejection: ${String(event.reason)}`));
};

/** A port nothing listens on now (the driver's; others share this machine). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function launchWebKit(): Promise<SmokeBrowser> {
  const children: ChildProcess[] = [];
  /** The driver runs in its own process group, with the MiniBrowser it starts: both go. */
  const stopChildren = () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.pid === undefined) continue;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  };
  let driver: WebDriver;
  try {
    const env = { ...process.env };
    if (!env.DISPLAY) {
      const xvfb = await startXvfb();
      children.push(xvfb.process);
      env.DISPLAY = xvfb.display;
    }
    const driverPort = await freePort();
    const server = spawn(WEBKIT_DRIVER_PATH, [`--port=${driverPort}`], { env, stdio: 'ignore', detached: true });
    children.push(server);
    const serverUrl = `http://127.0.0.1:${driverPort}`;
    await reachable(`${serverUrl}/status`, 15_000);
    driver = await limit(
      new Builder()
        .usingServer(serverUrl)
        .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args: ['--automation'] } })
        .build(),
      60_000,
      'start MiniBrowser',
    );
  } catch (error) {
    stopChildren();
    throw error;
  }
  await limit(driver.manage().setTimeouts({ script: CALL_MS, pageLoad: CALL_MS, implicit: 0 }), CALL_MS, 'set timeouts');
  const capabilities = await limit(driver.getCapabilities(), CALL_MS, 'capabilities');
  const version = `webkitgtk ${String(capabilities.get('browserVersion'))}`;
  const firstTab = await limit(driver.getWindowHandle(), CALL_MS, 'window handle');
  const tabs = new Set([firstTab]);
  const errorsOfClosed: string[] = [];
  let current = firstTab;

  /** Classic WebDriver acts on one window at a time. */
  const on = async (tab: string) => {
    if (tab === current) return;
    await limit(driver.switchTo().window(tab), CALL_MS, 'switch window');
    current = tab;
  };
  const run = async <A, R>(fn: InPage<A, R>, arg: A): Promise<R> => {
    const script = `const done = arguments[arguments.length - 1];
      Promise.resolve().then(() => (${fn.toString()})(arguments[0]))
        .then((value) => done({ value }), (error) => done({ error: String(error && error.stack || error) }));`;
    const result = (await limit(driver.executeAsyncScript(script, arg), CALL_MS + 1_000, 'evaluate')) as { value?: R; error?: string } | null;
    if (!result) throw new Error('the script gave no answer (the page navigated?)');
    if (result.error !== undefined) throw new Error(result.error);
    return result.value as R;
  };
  const hook = () => run(hookConsole, null).catch(() => {});
  const errorsOf = (tab: string) =>
    on(tab)
      .then(() => run(() => (window as unknown as { smokeErrors?: string[] }).smokeErrors ?? [], null))
      .then((errors) => errors.map((e) => `[${tab.slice(0, 8)}] ${e}`))
      .catch(() => [] as string[]);

  const smoke: SmokeBrowser = {
    version,
    firstTab,
    async openTab(url) {
      await limit(driver.switchTo().newWindow('window'), CALL_MS, 'new window');
      current = await limit(driver.getWindowHandle(), CALL_MS, 'window handle');
      tabs.add(current);
      await smoke.goto(current, url);
      return current;
    },
    async closeTab(tab) {
      errorsOfClosed.push(...(await errorsOf(tab)));
      await on(tab);
      await limit(driver.close(), CALL_MS, 'close window');
      tabs.delete(tab);
      current = [...tabs][0]!;
      await limit(driver.switchTo().window(current), CALL_MS, 'switch window');
    },
    async goto(tab, url) {
      await on(tab);
      await limit(driver.get(url), CALL_MS + 1_000, `goto ${url}`);
      await hook();
    },
    async reload(tab) {
      await on(tab);
      await limit(driver.navigate().refresh(), CALL_MS + 1_000, 'reload');
      await hook();
    },
    async evaluate(tab, fn, arg) {
      await on(tab);
      return run(fn, arg);
    },
    async typeAndEnter(tab, selector, text) {
      await on(tab);
      const element = await limit(driver.findElement(By.css(selector)), CALL_MS, `find ${selector}`);
      await limit(element.sendKeys(text, Key.ENTER), CALL_MS, `type into ${selector}`);
    },
    async screenshot(tab, path) {
      await on(tab);
      await writeFile(path, await limit(driver.takeScreenshot(), 10_000, 'screenshot'), 'base64');
    },
    async pageErrors() {
      const errors = [...errorsOfClosed];
      for (const tab of tabs) errors.push(...(await errorsOf(tab)));
      return errors;
    },
    async close() {
      await limit(driver.quit(), CALL_MS, 'quit MiniBrowser').catch(() => {});
      stopChildren();
    },
  };
  return smoke;
}
