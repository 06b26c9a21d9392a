/**
 * The five paths a page's users and apps take, as checked in each browser engine by the smoke
 * (scripts/smoke-browsers.ts): the playground answering a chat, a page's own requests answered in
 * the page, other contexts' requests answered by the service worker, a second tab, and a reload
 * with the server gone. Real inference on the bundled tiny models (WASM backend: neither Firefox
 * nor WebKitGTK offers WebGPU here). Each check runs in the same browser, in this order: the
 * playground tab hosts the engine throughout.
 */
import assert from 'node:assert/strict';
import { waitFor, type SmokeBrowser } from './driver.ts';

export interface CheckContext {
  readonly browser: SmokeBrowser;
  /** e.g. `http://localhost:4315`. */
  readonly origin: string;
  /** Stops the web server (for the offline reload). */
  stopServer(): Promise<void>;
  /** Tabs the checks opened, by role. */
  readonly tabs: { playground?: string; app?: string };
}

export interface Check {
  readonly name: string;
  /** Time limit for the whole check. */
  readonly ms: number;
  /** Resolves with a one-line summary of what was seen. */
  run(context: CheckContext): Promise<string>;
}

/** The bundled default models (see src/tiny-models): the playground preloads both. */
export const CHAT_MODEL = 'tiny-chat';
export const EMBED_MODEL = 'tiny-embed';
const PLAYGROUND = '/?device=wasm';
const SDK_PAGE = '/e2e/pages/sdk.html';
/** tiny-chat always writes 40 word tokens, then stops. */
const PLAYGROUND_REPLY_META = 'stop · 40 tokens';

interface ChatAnswer {
  readonly status: number;
  readonly model: string;
  readonly content: string;
  readonly finish: string;
  readonly usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function assertChat(answer: ChatAnswer, where: string): void {
  assert.equal(answer.status, 200, `${where}: status`);
  assert.equal(answer.model, CHAT_MODEL, `${where}: model`);
  assert.ok(answer.content.trim().length > 0, `${where}: an empty completion`);
  assert.equal(answer.finish, 'length', `${where}: finish_reason`);
  assert.equal(answer.usage.completion_tokens, 8, `${where}: usage.completion_tokens`);
  assert.ok(answer.usage.prompt_tokens > 0, `${where}: usage.prompt_tokens`);
  assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens + answer.usage.completion_tokens, `${where}: usage.total_tokens`);
}

function assertModels(ids: readonly string[], where: string): void {
  for (const id of [CHAT_MODEL, EMBED_MODEL]) assert.ok(ids.includes(id), `${where}: /v1/models lists ${JSON.stringify(ids)}, not ${id}`);
}

/** The playground is up, its engine started and the default chat model loaded. */
async function playgroundReady(context: CheckContext, tab: string, ms: number): Promise<string> {
  return waitFor(
    context.browser,
    tab,
    (model) => {
      const status = document.querySelector('#engine-status');
      const loaded = document.querySelector(`tr[data-model="${model}"]`)?.getAttribute('data-state') === 'loaded';
      return document.body.dataset.ready === 'true' && status?.getAttribute('data-state') !== 'starting' && loaded ? status!.textContent : null;
    },
    CHAT_MODEL,
    ms,
    'the playground ready with tiny-chat loaded',
  );
}

/** Sends a prompt from the playground's chat box as a person does, and reads the finished reply. */
async function playgroundChat(context: CheckContext, tab: string, prompt: string): Promise<{ meta: string; words: number; summary: string }> {
  const before = await context.browser.evaluate(tab, () => document.querySelectorAll('.bubble-assistant').length, null);
  await context.browser.typeAndEnter(tab, '#chat-prompt', prompt);
  const reply = await waitFor(
    context.browser,
    tab,
    (count) => {
      const bubbles = document.querySelectorAll('.bubble-assistant');
      const last = bubbles[bubbles.length - 1];
      if (bubbles.length <= count || !last || last.getAttribute('data-state') === 'streaming') return null;
      // The inspector repaints on the next animation frame after the reply ends.
      const summary = document.querySelector('[data-testid="inspector-summary"]')?.textContent ?? '';
      if (last.getAttribute('data-state') === 'done' && !/^\s*\d{3}\s/.test(summary)) return null;
      return {
        state: last.getAttribute('data-state'),
        meta: last.querySelector('.meta')?.textContent?.trim() ?? '',
        content: last.querySelector('.content')?.textContent?.trim() ?? '',
        summary,
      };
    },
    before,
    60_000,
    'the playground reply',
  );
  assert.equal(reply.state, 'done', `the reply ended ${reply.state}: ${reply.content}`);
  const words = reply.content.split(/\s+/).filter(Boolean).length;
  return { meta: reply.meta, words, summary: reply.summary };
}

/** In a page: the models and one short chat, with the page's own `fetch` (or one given by name). */
const listAndChat = async ({ fetcher }: { fetcher: 'page' | 'network' }) => {
  const f = fetcher === 'network' ? window.harness.networkFetch : fetch;
  const models = (await (await f('/v1/models')).json()) as { data: { id: string }[] };
  const response = await f('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
  });
  const body = (await response.json()) as { model: string; choices: { message: { content: string }; finish_reason: string }[]; usage: ChatAnswer['usage'] };
  const chat = { status: response.status, model: body.model, content: body.choices[0]!.message.content, finish: body.choices[0]!.finish_reason, usage: body.usage };
  /** Requests the page made over the network stack (the service worker's included; the page's own answers are not). */
  const network = performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.startsWith('/v1/')).length;
  return { ids: models.data.map((m) => m.id), chat, network };
};

export const CHECKS: readonly Check[] = [
  {
    name: 'playground',
    ms: 150_000,
    async run(context) {
      const tab = context.browser.firstTab;
      context.tabs.playground = tab;
      await context.browser.goto(tab, `${context.origin}${PLAYGROUND}`);
      const status = await playgroundReady(context, tab, 120_000);
      assert.match(status, /the engine runs in this tab/);
      const reply = await playgroundChat(context, tab, 'Tell me a story about a cat.');
      assert.equal(reply.meta, PLAYGROUND_REPLY_META);
      assert.ok(reply.words >= 20, `a reply of ${reply.words} words`);
      assert.match(reply.summary, /^200 POST \/v1\/chat\/completions/);
      const ids = await context.browser.evaluate(tab, async () => ((await (await fetch('/v1/models')).json()) as { data: { id: string }[] }).data.map((m) => m.id), null);
      assertModels(ids, 'the playground');
      return `${reply.meta}, ${reply.words} words; ${ids.length} models`;
    },
  },
  {
    name: 'page path',
    ms: 90_000,
    async run(context) {
      const { browser } = context;
      const tab = await browser.openTab(`${context.origin}${SDK_PAGE}`);
      context.tabs.app = tab;
      await waitFor(browser, tab, () => document.body.dataset.ready === 'true', null, 30_000, 'the SDK page ready');
      const started = await browser.evaluate(
        tab,
        async () => {
          const inference = await window.harness.startInference({ engine: { device: 'wasm' } });
          Object.assign(window, { inference });
          return { isHost: inference.isHost, controlled: navigator.serviceWorker.controller !== null, upToDate: inference.serviceWorker.upToDate };
        },
        null,
      );
      assert.deepEqual(started, { isHost: false, controlled: true, upToDate: true }, 'the app tab joins the playground tab\'s engine');
      const result = await browser.evaluate(tab, listAndChat, { fetcher: 'page' as const });
      assertModels(result.ids, 'the page path');
      assertChat(result.chat, 'the page path');
      assert.equal(result.network, 0, 'the page path: requests reached the network stack, not answered in the page');
      return `${JSON.stringify(result.chat.content)}, usage ${result.chat.usage.prompt_tokens}+${result.chat.usage.completion_tokens}`;
    },
  },
  {
    name: 'service worker',
    ms: 90_000,
    async run(context) {
      const { browser } = context;
      const tab = context.tabs.app!;
      // The browser's own fetch (kept before startInference wrapped it) reaches the service worker.
      const direct = await browser.evaluate(tab, listAndChat, { fetcher: 'network' as const });
      assertModels(direct.ids, 'the service worker');
      assertChat(direct.chat, 'the service worker');
      assert.ok(direct.network >= 2, `the service worker: ${direct.network} requests on the network stack`);
      // A same-origin frame without app code: its document and its requests come from the service worker.
      const framed = await browser.evaluate(
        tab,
        async () => {
          const frame = document.createElement('iframe');
          frame.src = '/v1/models';
          const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
          document.body.append(frame);
          await loaded;
          const win = frame.contentWindow as (Window & typeof globalThis) | null;
          const text = frame.contentDocument?.body?.textContent ?? '';
          const controlled = win!.navigator.serviceWorker.controller !== null;
          const response = await win!.fetch('/v1/chat/completions', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }),
          });
          const body = (await response.json()) as { model: string; choices: { message: { content: string }; finish_reason: string }[]; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
          frame.remove();
          return {
            text,
            controlled,
            chat: { status: response.status, model: body.model, content: body.choices[0]!.message.content, finish: body.choices[0]!.finish_reason, usage: body.usage },
          };
        },
        null,
      );
      let ids: string[];
      try {
        ids = (JSON.parse(framed.text) as { data: { id: string }[] }).data.map((m) => m.id);
      } catch {
        throw new Error(`the /v1/models frame shows no model list: ${framed.text.slice(0, 200)}`);
      }
      assertModels(ids, 'the /v1/models frame');
      assert.ok(framed.controlled, 'the frame is controlled by the service worker');
      assertChat(framed.chat, 'the frame');
      return `${JSON.stringify(direct.chat.content)}; frame: ${ids.length} models, ${JSON.stringify(framed.chat.content)}`;
    },
  },
  {
    name: 'second tab',
    ms: 120_000,
    async run(context) {
      const { browser } = context;
      const tab = await browser.openTab(`${context.origin}${PLAYGROUND}`);
      const status = await playgroundReady(context, tab, 60_000);
      assert.match(status, /the engine runs in another tab of this site/);
      const reply = await playgroundChat(context, tab, 'Tell me a story about a dog.');
      assert.equal(reply.meta, PLAYGROUND_REPLY_META);
      assert.ok(reply.words >= 20, `a reply of ${reply.words} words`);
      // Only the playground tab stays open for the offline reload.
      await browser.closeTab(tab);
      await browser.closeTab(context.tabs.app!);
      return `${reply.meta}, ${reply.words} words, answered by the first tab's engine`;
    },
  },
  {
    name: 'offline reload',
    ms: 150_000,
    async run(context) {
      const { browser } = context;
      const tab = context.tabs.playground!;
      await context.stopServer();
      const gone = await fetch(context.origin, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => `answered ${r.status}`,
        () => null,
      );
      assert.equal(gone, null, 'the server is still up');
      await browser.reload(tab);
      const status = await playgroundReady(context, tab, 120_000);
      assert.match(status, /the engine runs in this tab/);
      const reply = await playgroundChat(context, tab, 'Are you there?');
      assert.equal(reply.meta, PLAYGROUND_REPLY_META);
      assert.ok(reply.words >= 20, `a reply of ${reply.words} words`);
      const result = await browser.evaluate(tab, listAndChatInPlayground, null);
      assertModels(result.ids, 'offline');
      assertChat(result.chat, 'offline');
      return `${reply.meta}, ${reply.words} words; ${JSON.stringify(result.chat.content)}`;
    },
  },
];

/** listAndChat for the playground (it has no harness): its fetch is answered in the page. */
const listAndChatInPlayground = async () => {
  const models = (await (await fetch('/v1/models')).json()) as { data: { id: string }[] };
  const response = await fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 }),
  });
  const body = (await response.json()) as { model: string; choices: { message: { content: string }; finish_reason: string }[]; usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } };
  return { ids: models.data.map((m) => m.id), chat: { status: response.status, model: body.model, content: body.choices[0]!.message.content, finish: body.choices[0]!.finish_reason, usage: body.usage } };
};
