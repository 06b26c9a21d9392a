/**
 * What the cross-browser smoke (scripts/smoke-browsers.ts) needs of a browser, the same for
 * Firefox over WebDriver BiDi and WebKitGTK over classic WebDriver: tabs, navigation, script in the
 * page, typing. Every call has a time limit: a driver call that never returns fails the check
 * instead of hanging the run.
 */

/** A function run in the page: it is sent as source text, so it may use nothing from the test's scope. */
export type InPage<A, R> = (arg: A) => R | Promise<R>;

export interface SmokeBrowser {
  /** e.g. `firefox 153.7.0esr`. */
  readonly version: string;
  /** The tab the browser started with. */
  readonly firstTab: string;
  /** Opens a new tab (WebKitGTK: a new window) at the URL and returns its id. */
  openTab(url: string): Promise<string>;
  closeTab(tab: string): Promise<void>;
  goto(tab: string, url: string): Promise<void>;
  reload(tab: string): Promise<void>;
  evaluate<A, R>(tab: string, fn: InPage<A, R>, arg: A): Promise<R>;
  /** Types into the element as a person would (keys, not a set value), then presses Enter. */
  typeAndEnter(tab: string, selector: string, text: string): Promise<void>;
  screenshot(tab: string, path: string): Promise<void>;
  /** The pages' console errors and uncaught errors seen so far (WebKitGTK: since each page's hook went in). */
  pageErrors(): Promise<readonly string[]>;
  close(): Promise<void>;
}

export class TimeoutError extends Error {}

/** Rejects when the promise has not settled within `ms`. */
export function limit<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How long one driver call may take (navigation and script calls included). */
export const CALL_MS = 30_000;

/**
 * Polls `fn` in the page until it returns a truthy value, and returns that value; each call is
 * time-limited and a call that fails (the page is navigating) is tried again.
 */
export async function waitFor<A, R>(browser: SmokeBrowser, tab: string, fn: InPage<A, R>, arg: A, ms: number, what: string): Promise<NonNullable<R>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await limit(browser.evaluate(tab, fn, arg), Math.min(CALL_MS, Math.max(1_000, deadline - Date.now())), what);
      if (value) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new TimeoutError(`${what}: not within ${ms} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
