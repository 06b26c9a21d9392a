/**
 * Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core (no geckodriver).
 */
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CALL_MS, limit, type InPage, type SmokeBrowser } from './driver.ts';

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

export async function launchFirefox(): Promise<SmokeBrowser> {
  const browser: Browser = await limit(
    puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      protocolTimeout: CALL_MS,
      // The /v1/models frame is then plain text, as in the other engines, not the JSON viewer.
      extraPrefsFirefox: { 'devtools.jsonview.enabled': false },
    }),
    60_000,
    'launch firefox',
  );
  const errors: string[] = [];
  const pages = new Map<string, Page>();
  let next = 0;
  const watch = (page: Page): string => {
    const id = `tab${next++}`;
    pages.set(id, page);
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`[${id}] ${msg.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`[${id}] uncaught: ${error instanceof Error ? error.message : String(error)}`));
    return id;
  };
  const page = (tab: string): Page => {
    const found = pages.get(tab);
    if (!found) throw new Error(`no tab ${tab}`);
    return found;
  };
  const [first] = await limit(browser.pages(), CALL_MS, 'firefox pages');
  const firstTab = watch(first ?? (await limit(browser.newPage(), CALL_MS, 'firefox new page')));
  const version = (await limit(browser.version(), CALL_MS, 'firefox version')).replace('/', ' ');
  const smoke: SmokeBrowser = {
    version,
    firstTab,
    async openTab(url) {
      const tab = watch(await limit(browser.newPage(), CALL_MS, 'new tab'));
      await smoke.goto(tab, url);
      return tab;
    },
    async closeTab(tab) {
      await limit(page(tab).close(), CALL_MS, 'close tab');
      pages.delete(tab);
    },
    async goto(tab, url) {
      await limit(page(tab).goto(url, { waitUntil: 'load', timeout: CALL_MS }), CALL_MS + 1_000, `goto ${url}`);
    },
    async reload(tab) {
      await limit(page(tab).reload({ waitUntil: 'load', timeout: CALL_MS }), CALL_MS + 1_000, 'reload');
    },
    evaluate<A, R>(tab: string, fn: InPage<A, R>, arg: A) {
      const p = page(tab);
      // puppeteer's types turn handles in the argument into values; ours are plain JSON.
      const evaluate = p.evaluate.bind(p) as unknown as (fn: InPage<A, R>, arg: A) => Promise<R>;
      return limit(evaluate(fn, arg), CALL_MS, 'evaluate');
    },
    async typeAndEnter(tab, selector, text) {
      const p = page(tab);
      await limit(p.locator(selector).setTimeout(CALL_MS).click(), CALL_MS, `click ${selector}`);
      await limit(p.keyboard.type(text), CALL_MS, `type into ${selector}`);
      await limit(p.keyboard.press('Enter'), CALL_MS, 'press Enter');
    },
    async screenshot(tab, path) {
      await limit(page(tab).screenshot({ path: path as `${string}.png` }), CALL_MS, 'screenshot');
    },
    async pageErrors() {
      return [...errors];
    },
    async close() {
      await limit(browser.close(), CALL_MS, 'close firefox').catch(() => browser.process()?.kill('SIGKILL'));
    },
  };
  return smoke;
}
