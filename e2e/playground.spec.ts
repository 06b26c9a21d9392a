/**
 * The playground as a person uses it: type a prompt and watch the reply stream in, stop one, switch
 * flavour, compute a similarity matrix, watch a model load with a real progress bar, delete a
 * downloaded model, reload offline. Real inference on the bundled tiny models (WASM backend, for
 * speed; WebGPU in these browsers is SwiftShader on the CPU). Screenshots of each panel, in light
 * and dark, are saved as test artifacts (test-results/…) and attached to the report.
 */
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { chromium, expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';
import { startRuntime } from './fixtures.ts';

const PLAYGROUND = '/?device=wasm';

async function openPlayground(page: Page, query = PLAYGROUND): Promise<void> {
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/favicon|ERR_INTERNET_DISCONNECTED|net::ERR_FAILED/.test(msg.text())) console.log(`[page error] ${msg.text()}`);
  });
  await page.goto(query);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
}

async function shot(target: Page | Locator, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await target.screenshot({ path, animations: 'disabled', caret: 'hide' });
  await info.attach(name, { path, contentType: 'image/png' });
}

const promptBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const modelRow = (page: Page, id: string) => page.locator(`tr[data-model="${id}"]`);

/**
 * Records the reply's length each time the page appends text to it, and when: mutation observer
 * callbacks run once per task, so each entry is one batch of tokens the page received.
 */
async function recordReplyGrowth(page: Page): Promise<() => Promise<{ at: number; length: number }[]>> {
  await page.evaluate(() => {
    const growth: { at: number; length: number }[] = [];
    Object.assign(window, { replyGrowth: growth });
    new MutationObserver((records) => {
      const texts = records.filter((r) => r.type === 'characterData').map((r) => (r.target as Text).length);
      if (texts.length) growth.push({ at: performance.now(), length: Math.max(...texts) });
    }).observe(document.querySelector('[data-testid="chat-log"]')!, { subtree: true, characterData: true });
  });
  return () => page.evaluate(() => (window as unknown as { replyGrowth: { at: number; length: number }[] }).replyGrowth);
}

test('chat: a typed prompt streams back token by token, with live figures, the exact exchange and snippets that repeat it', async ({ page, context }, info) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  // The preloaded default: the reply's figures then measure generation, not the model load.
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  const growth = await recordReplyGrowth(page);

  await promptBox(page).fill('Tell me a story about a cat.');
  await promptBox(page).press('Enter');
  const reply = page.locator('.bubble-assistant').last();
  await expect(reply).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('chat-status')).toHaveText('Reply complete.');

  // The reply came as a stream of token events (tiny-chat always writes 40 word tokens, then
  // stops). On WASM all 40 can land within one paint; the next test watches them appear on WebGPU.
  const steps = await growth();
  expect(steps.length).toBeGreaterThanOrEqual(1);
  expect(steps.map((s) => s.length)).toEqual(steps.map((s) => s.length).sort((a, b) => a - b));
  await expect(reply.locator('.meta')).toHaveText('stop · 40 tokens');
  expect((await reply.locator('.content').textContent())!.trim().split(/\s+/).length).toBeGreaterThanOrEqual(20);

  // Live figures are measured values.
  await expect(page.locator('#fig-ttft')).toHaveText(/^\d+(\.\d+)? (ms|s)$/);
  await expect(page.locator('#fig-rate')).toHaveText(/^\d+(\.\d)? tok\/s$/);
  await expect(page.locator('#fig-load')).toContainText(/\d+(\.\d+)? (ms|s)tiny-(chat|embed) · WASM/);
  await expect(page.locator('#fig-backend')).toContainText('WASM (CPU)');
  await expect(page.locator('#fig-backend')).toContainText(/GPU: .*shader-f16 no/);

  // The inspector shows the request as sent and the raw SSE stream as received.
  await expect(page.getByTestId('inspector-summary')).toContainText(/200 POST \/v1\/chat\/completions · .* · \d+ SSE events/);
  const request = JSON.parse((await page.getByTestId('inspector-request').textContent())!.split('\n\n').slice(1).join('\n\n'));
  expect(request).toMatchObject({ model: 'tiny-chat', stream: true, max_tokens: 64, messages: [{ role: 'user', content: 'Tell me a story about a cat.' }] });
  const raw = (await page.getByTestId('inspector-raw').textContent())!;
  expect(raw).toMatch(/^data: \{"id":"chatcmpl-/);
  expect(raw.trimEnd()).toMatch(/data: \[DONE\]$/);
  await shot(page.locator('#panel-chat'), info, 'chat-panel-light');
  await shot(page.locator('#inspector'), info, 'inspector-light');
  await shot(page, info, 'playground-chat-light');
  if (process.env.PLAYGROUND_README_SHOT) {
    // The README's picture (then re-encoded as a 128-colour indexed PNG to stay small):
    // `PLAYGROUND_README_SHOT=1 npx playwright test e2e/playground.spec.ts -g "token by token"`.
    await page.setViewportSize({ width: 1280, height: 1000 });
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: 'docs/playground.png', animations: 'disabled', caret: 'hide' });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  // Copy gives the snippet's exact text.
  await snippet(page, 'openai');
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  const openaiCode = await page.evaluate(() => navigator.clipboard.readText());
  expect(openaiCode).toContain('client.chat.completions.create(');
  const fetchCode = await snippet(page, 'fetch');
  const anthropicCode = await snippet(page, '@anthropic-ai/sdk');

  // The snippets run: fetch here, the SDK ones on the test page that bundles both SDKs.
  const fetched = await runSnippet(page, fetchCode);
  expect(fetched.join('\n')).toMatch(/"finish_reason":"stop"/);
  const sdkPage = await context.newPage();
  await sdkPage.goto('/e2e/pages/sdk.html');
  await expect(sdkPage.locator('body[data-ready="true"]')).toBeAttached();
  const viaOpenAI = await runSnippet(sdkPage, openaiCode);
  expect(viaOpenAI.join('').length).toBeGreaterThan(20);
  const viaAnthropic = await runSnippet(sdkPage, anthropicCode);
  expect(viaAnthropic.at(-1)).toMatch(/"stop_reason":"end_turn"/);
});

async function snippet(page: Page, label: string): Promise<string> {
  await page.getByRole('group', { name: 'Snippet language' }).getByRole('button', { name: label, exact: true }).click();
  return (await page.getByTestId('snippet-code').textContent())!;
}

/** Runs a snippet as written (imports mapped to the SDKs the page bundles) and returns what it logged. */
async function runSnippet(page: Page, code: string): Promise<string[]> {
  return page.evaluate(async (source) => {
    const logs: string[] = [];
    const console = { log: (...args: unknown[]) => logs.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')) };
    const harness = (window as unknown as { harness?: { OpenAI: unknown; Anthropic: unknown } }).harness;
    const body = source.replace(/^import .*$/gm, '');
    const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<void>;
    await new AsyncFunction('OpenAI', 'Anthropic', 'console', body)(harness?.OpenAI, harness?.Anthropic, console);
    return logs;
  }, code);
}

test('chat: on WebGPU (slow here) the reply visibly grows token by token', async ({ page }) => {
  await openPlayground(page, '/?device=webgpu');
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded', { timeout: 120_000 });
  const growth = await recordReplyGrowth(page);
  await promptBox(page).fill('Tell me a story about a cat.');
  await promptBox(page).press('Enter');
  const reply = page.locator('.bubble-assistant').last();
  await expect(reply).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  const steps = await growth();
  expect(steps.length).toBeGreaterThanOrEqual(10);
  expect(steps.map((s) => s.length)).toEqual(steps.map((s) => s.length).sort((a, b) => a - b));
  expect(steps.at(-1)!.at - steps[0]!.at).toBeGreaterThan(100);
  await expect(reply.locator('.meta')).toHaveText('stop · 40 tokens');
});

test('chat: switching to the Anthropic messages flavour sends system, temperature and stop sequences; API errors show their body', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  await page.getByRole('radio', { name: /Anthropic messages/ }).check();
  await page.getByLabel('System prompt').fill('You are terse.');
  await page.getByLabel('Temperature').fill('0.5');
  await page.getByLabel('Max tokens').fill('12');
  await page.getByLabel('Stop sequences').fill('never-said\nnor this');
  await promptBox(page).fill('Hello');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.bubble-assistant').last();
  await expect(reply).toHaveAttribute('data-state', 'done');
  await expect(reply.locator('.meta')).toHaveText('max_tokens · 12 tokens');

  // The inspector repaints on the next animation frame: read it once it shows the finished exchange.
  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/messages · .* SSE events/);
  const sent = (await page.getByTestId('inspector-request').textContent())!;
  expect(sent).toContain('POST /v1/messages\ncontent-type: application/json\nanthropic-version: 2023-06-01');
  expect(JSON.parse(sent.split('\n\n').slice(1).join('\n\n'))).toMatchObject({
    model: 'tiny-chat',
    max_tokens: 12,
    system: 'You are terse.',
    temperature: 0.5,
    stop_sequences: ['never-said', 'nor this'],
    stream: true,
    messages: [{ role: 'user', content: 'Hello' }],
  });
  const raw = (await page.getByTestId('inspector-raw').textContent())!;
  for (const event of ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']) {
    expect(raw).toContain(`event: ${event}\ndata: {"type":"${event}"`);
  }
  await shot(page.locator('#panel-chat'), info, 'chat-anthropic-light');

  // Out of Anthropic's range (0..1): the API's 400 and its error body are shown, the turn is not kept.
  await page.getByLabel('Temperature').fill('1.5');
  await promptBox(page).fill('Again');
  await page.getByRole('button', { name: 'Send' }).click();
  const error = page.getByTestId('error-view').last();
  await expect(error).toContainText('The API answered 400 (invalid_request_error)');
  const body = JSON.parse((await error.locator('pre').textContent())!);
  expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  expect(body.error.message).toContain('temperature');
  await expect(page.getByTestId('inspector-summary')).toContainText('400 POST /v1/messages');
  await shot(page.locator('#panel-chat'), info, 'chat-error-light');

  // Back to OpenAI: the same conversation continues in the other flavour.
  await page.getByRole('radio', { name: /OpenAI chat/ }).check();
  await page.getByLabel('Temperature').fill('');
  await promptBox(page).fill('And now?');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/chat\/completions · /);
  const next = JSON.parse((await page.getByTestId('inspector-request').textContent())!.split('\n\n').slice(1).join('\n\n'));
  expect(next.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  expect(next.stop).toEqual(['never-said', 'nor this']);
});

/**
 * tiny-chat writes its 40 tokens in well under a second here, faster than a scripted action can be
 * timed from outside: a person's reflex is modelled in the page, acting the moment the first token
 * shows, by clicking the real Stop button or pressing Escape in the message box.
 */
async function atFirstToken(page: Page, action: 'click Stop' | 'press Escape'): Promise<void> {
  await page.evaluate((what) => {
    const log = document.querySelector('[data-testid="chat-log"]')!;
    const observer = new MutationObserver(() => {
      if (!log.querySelector('.bubble-assistant[data-state="streaming"] .content')?.textContent) return;
      observer.disconnect();
      if (what === 'click Stop') [...document.querySelectorAll('button')].find((b) => b.textContent === 'Stop')!.click();
      else document.querySelector('#chat-prompt')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    });
    observer.observe(log, { subtree: true, characterData: true, childList: true });
  }, action);
}

/**
 * Sends a message and stops the reply at its first token; returns how many tokens it had. The page
 * sometimes reads the whole 40-token reply in one chunk (it was busy while the engine wrote): then
 * there is nothing left to stop, and the person tries again.
 */
async function stopMidReply(page: Page, action: 'click Stop' | 'press Escape', info: TestInfo): Promise<number> {
  let tokens = 40;
  for (let attempt = 1; attempt <= 3 && tokens === 40; attempt++) {
    await atFirstToken(page, action);
    await promptBox(page).fill(`Write a long story (${attempt}).`);
    await promptBox(page).press('Enter');
    const reply = page.locator('.bubble-assistant').last();
    await expect(reply).toHaveAttribute('data-state', /^(stopped|done)$/);
    tokens = Number(/(\d+) tokens/.exec((await reply.locator('.meta').textContent())!)![1]);
    info.annotations.push({ type: 'timing', description: `${action}, attempt ${attempt}: the reply ended after ${tokens} tokens` });
  }
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'stopped');
  await expect(page.getByTestId('chat-status')).toHaveText('Stopped.');
  return tokens;
}

test('chat: Stop aborts the streaming fetch mid-reply, and the next message is answered', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  const tokens = await stopMidReply(page, 'click Stop', info);
  expect(tokens).toBeGreaterThan(0);
  expect(tokens).toBeLessThan(40);
  await expect(page.getByTestId('inspector-summary')).toContainText('stopped by you POST /v1/chat/completions');
  expect(await page.getByTestId('inspector-raw').textContent()).not.toContain('[DONE]');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await shot(page.locator('#panel-chat'), info, 'chat-stopped-light');

  await promptBox(page).fill('Short one.');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('chat-status')).toHaveText('Reply complete.');
});

test('embeddings: several texts give a cosine-similarity heat map; dimensions and base64 are sent as chosen', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  await page.getByRole('tab', { name: 'Embeddings' }).click();
  await page.getByLabel('Dimensions').fill('16');
  await page.getByLabel('encoding_format').selectOption('base64');
  await page.getByRole('button', { name: 'Compute similarity' }).click();

  await expect(page.getByTestId('embed-summary')).toContainText('4 vectors × 16 dimensions · base64 (decoded here)');
  const heatmap = page.getByTestId('heatmap');
  await expect(heatmap.locator('tbody tr')).toHaveCount(4);
  const values = await heatmap.locator('tbody td').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-value'))));
  expect(values).toHaveLength(16);
  for (let i = 0; i < 4; i++) {
    expect(values[i * 4 + i]).toBeCloseTo(1, 3);
    for (let j = 0; j < 4; j++) expect(values[i * 4 + j]).toBeCloseTo(values[j * 4 + i]!, 4);
  }
  await expect(page.getByTestId('inspector-summary')).toHaveText(/^200 POST \/v1\/embeddings · /);
  const sent = JSON.parse((await page.getByTestId('inspector-request').textContent())!.split('\n\n').slice(1).join('\n\n'));
  expect(sent).toMatchObject({ model: 'tiny-embed', encoding_format: 'base64', dimensions: 16 });
  expect(sent.input).toHaveLength(4);
  await expect(page.getByTestId('inspector-raw')).toHaveText(/"embedding": "[A-Za-z0-9+/]+=*"/);
  await shot(page.locator('#panel-embeddings'), info, 'embeddings-panel-light');

  // Unticked, the inspector shows the bytes exactly as they came.
  await page.getByLabel('Pretty-print JSON bodies').uncheck();
  await expect(page.getByTestId('inspector-raw')).toHaveText(/^\{"object":"list","model":"tiny-embed","data":\[\{"object":"embedding","index":0,"embedding":"/);
  await expect(page.getByTestId('inspector-request')).toContainText('{"model":"tiny-embed","input":[');

  // The same texts as floats: the decoded base64 gave the same matrix.
  await page.getByLabel('encoding_format').selectOption('float');
  await page.getByRole('button', { name: 'Compute similarity' }).click();
  await expect(page.getByTestId('embed-summary')).toContainText('4 vectors × 16 dimensions · float ·');
  const again = await heatmap.locator('tbody td').evaluateAll((cells) => cells.map((c) => Number(c.getAttribute('data-value'))));
  expect(again).toEqual(values);

  // Beyond the model's native size: the form says so before anything is sent. (The inspector
  // repaints on the next animation frame: wait for the finished exchange before noting it.)
  await expect(page.getByTestId('inspector-summary')).toHaveText(/^200 POST \/v1\/embeddings · /);
  const calls = await page.getByTestId('inspector-summary').textContent();
  await page.getByLabel('Dimensions').fill('64');
  await page.getByRole('button', { name: 'Compute similarity' }).click();
  expect(await page.getByLabel('Dimensions').evaluate((el: HTMLInputElement) => el.validationMessage)).not.toBe('');
  await expect(page.getByTestId('inspector-summary')).toHaveText(calls!);
});

/**
 * Serves the bundled model files the way a model host or CDN does (with Content-Length, so sizes
 * are known; `vite preview` compresses on the fly and sends none) and at a pace a person can see,
 * so the bar moves through real byte counts. The page's requests to /models/tiny-chat/ are routed
 * here.
 */
async function pacedModelServer(): Promise<{ server: Server; port: number }> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url!, 'http://localhost').pathname;
    const body = await readFile(`public${path}`).catch(() => null);
    if (!body || path.includes('..')) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length, 'content-type': path.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
    for (let i = 0; i < body.length; i += 16_384) {
      res.write(body.subarray(i, i + 16_384));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

test('models: loading a model shows a real progress bar with bytes and percent, up to 100%', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const { server, port } = await pacedModelServer();
  try {
    await context.route('**/models/tiny-chat/**', (route) => route.continue({ url: `http://127.0.0.1:${port}${new URL(route.request().url()).pathname}` }));
    await openPlayground(page, `${PLAYGROUND}&preload=none#models`);
    await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'available');
    // Every state the bar takes, read off the nodes each repaint inserts (they never change after).
    await page.evaluate(() => {
      const states: { text: string; value: number }[] = [];
      Object.assign(window, { barStates: states });
      new MutationObserver((records) => {
        for (const record of records) {
          for (const node of record.addedNodes) {
            if (!(node instanceof HTMLElement) || !node.closest('tr[data-model="tiny-chat"]')) continue;
            if (node.matches('[data-testid="progress-text"]')) {
              const bar = node.parentElement?.querySelector('progress');
              states.push({ text: node.textContent!, value: bar && bar.hasAttribute('value') ? bar.value : -1 });
            }
          }
        }
      }).observe(document.querySelector('[data-testid="models-table"]')!, { subtree: true, childList: true });
    });
    const started = Date.now();
    await page.getByRole('button', { name: 'Load tiny-chat' }).click();
    const text = modelRow(page, 'tiny-chat').getByTestId('progress-text');
    await expect(text).toHaveText(/^[\d.]+ KB \/ 643 KB \([3-8]\d%\)$/);
    await shot(page.locator('#panel-models'), info, 'models-loading-light');
    await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
    const loadMs = Date.now() - started;
    await expect(modelRow(page, 'tiny-chat').locator('td[data-label="State"] small')).toHaveText(/^in [\d.]+ (ms|s) on WASM · 643 KB read$/);

    const states = await page.evaluate(() => (window as unknown as { barStates: { text: string; value: number }[] }).barStates);
    const percents = states.map((s) => /\((\d+)%\)$/.exec(s.text)).filter((m) => m !== null).map((m) => Number(m[1]));
    const during = states.filter((s) => / KB \/ 643 KB \(\d+%\)$/.test(s.text));
    // Many distinct byte counts of the 643 KB, rising to 100%, with the bar's value matching the text.
    expect(new Set(during.map((s) => s.text)).size).toBeGreaterThanOrEqual(10);
    expect(percents.at(-1)).toBe(100);
    expect(percents.filter((p) => p > 0 && p < 100).length).toBeGreaterThanOrEqual(10);
    for (const s of during) expect(Math.floor(s.value * 100)).toBe(Number(/\((\d+)%\)/.exec(s.text)![1]));
    const rising = during.map((s) => s.value);
    expect(rising).toEqual([...rising].sort((a, b) => a - b));
    info.annotations.push({ type: 'timing', description: `paced load of tiny-chat (643 KB): ${loadMs} ms, ${states.length} bar states` });
    await expect(page.locator('#fig-load')).toContainText('tiny-chat · WASM');
  } finally {
    server.close();
  }
});

test('models: a downloaded model is listed with its size, deleted on a confirmed click, and downloads again on the next load', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await openPlayground(page);
  await page.getByRole('tab', { name: 'Models' }).click();
  const row = modelRow(page, 'tiny-chat');
  await expect(row).toHaveAttribute('data-state', 'loaded');
  await expect(row.locator('td[data-label="On disk"]')).toHaveText('643 KB');
  // What the row shows is what GET /v1/models says of the model on this device.
  const local = () => page.evaluate(async () => (await (await fetch('/v1/models')).json()).data.find((m: { id: string }) => m.id === 'tiny-chat').local);
  expect(await local()).toMatchObject({ state: 'loaded', downloaded: true, runnable: true, backend: 'wasm', requires: [] });
  expect(Math.round((await local()).size_bytes / 1000)).toBe(643);
  await expect(modelRow(page, 'Qwen2.5-0.5B-Instruct')).toContainText('WebLLM');
  await expect(page.getByTestId('storage-text')).toHaveText(/^Storage: [\d.]+ [KMG]?B used of [\d.]+ [KMGT]B available to this site/);
  await shot(page.locator('#panel-models'), info, 'models-panel-light');

  const cachedFiles = () => page.evaluate(async () => (await (await caches.open('transformers-cache')).keys()).map((r) => new URL(r.url).pathname).filter((p) => p.includes('/tiny-chat/')));
  expect((await cachedFiles()).length).toBeGreaterThanOrEqual(4);
  const remove = row.getByRole('button', { name: 'Delete the downloaded files of tiny-chat' });
  await remove.click();
  await expect(remove).toHaveText('Delete 643 KB?');
  await remove.click();
  await expect(row.locator('td[data-label="On disk"]')).toHaveText('not cached');
  await expect(remove).toBeHidden();
  expect(await cachedFiles()).toEqual([]);
  expect(await local()).toMatchObject({ state: 'loaded', downloaded: false, size_bytes: 0 });
  // Still in memory until the engine restarts; then a load fetches the files again.
  await page.getByRole('button', { name: 'Restart engine (frees model memory)' }).click();
  await expect(row).toHaveAttribute('data-state', 'available');
  await row.getByRole('button', { name: 'Load tiny-chat' }).click();
  await expect(row).toHaveAttribute('data-state', 'loaded');
  await expect(row.locator('td[data-label="On disk"]')).toHaveText('643 KB');
  expect((await cachedFiles()).length).toBeGreaterThanOrEqual(4);
});

test('states: without WebGPU the page says so, uses WASM and marks WebLLM models as needing a GPU', async ({}, info) => {
  // A browser without the flags that give it a (SwiftShader) WebGPU adapter: the engine worker,
  // whose word the models panel shows, finds none either.
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS.filter((arg) => !/webgpu/i.test(arg)) });
  try {
    const page = await browser.newPage({ baseURL: info.project.use.baseURL, viewport: { width: 1280, height: 900 } });
    await page.addInitScript(() => {
      // As in a browser without WebGPU at all (this one has the API but offers no adapter).
      delete (Navigator.prototype as unknown as { gpu?: unknown }).gpu;
    });
    await openPlayground(page, '/?preload=none#models');
    await expect(page.locator('#fig-backend')).toContainText('No WebGPU in this browser');
    await expect(page.locator('#fig-backend')).toContainText('models run on the CPU through WebAssembly');
    const webllm = modelRow(page, 'Llama-3.2-1B-Instruct');
    await expect(webllm).toHaveAttribute('data-state', 'needs-webgpu');
    await expect(webllm.getByRole('button', { name: 'Load Llama-3.2-1B-Instruct' })).toBeDisabled();
    await expect(webllm.locator('td[data-label="Backend"]')).toHaveText('needs WebGPU');
    await expect(webllm.locator('td[data-label="State"]')).toContainText('WebGPU is not available here');
    await expect(modelRow(page, 'all-MiniLM-L6-v2').locator('td[data-label="Backend"]')).toHaveText('WASM');
    await shot(page.locator('#panel-models'), info, 'models-no-webgpu-light');
  } finally {
    await browser.close();
  }
});

test('models: a playground tab shows the state the API reports, also when the hosting tab is another app that relays nothing', async ({ page, context }) => {
  // The host is the SDK test page, not a playground: before the API reported states, a playground
  // tab beside it could not tell what was loaded.
  await startRuntime(page, { device: 'wasm' });
  await page.evaluate(() => window.inference.load('tiny-chat'));
  const playground = await context.newPage();
  await openPlayground(playground, `${PLAYGROUND}&preload=none#models`);
  await expect(playground.getByTestId('host-note')).toHaveText(/does not relay loads/);
  await expect(modelRow(playground, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  await expect(modelRow(playground, 'tiny-chat').locator('td[data-label="Backend"]')).toHaveText('WASM');
  await expect(modelRow(playground, 'tiny-chat').locator('td[data-label="On disk"]')).toHaveText('643 KB');
  await expect(modelRow(playground, 'tiny-embed')).toHaveAttribute('data-state', 'available');
});

test('keyboard: tabs move with the arrow keys, focus is visible, Enter sends and Escape stops', async ({ page }, info) => {
  await openPlayground(page);
  await page.getByRole('tab', { name: 'Chat' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: 'Embeddings' })).toBeFocused();
  await expect(page.getByRole('tab', { name: 'Embeddings' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#panel-embeddings')).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.getByRole('tab', { name: 'Models' })).toBeFocused();
  await expect(page.locator('#panel-chat')).toBeHidden();
  const outline = await page.getByRole('tab', { name: 'Models' }).evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).toBe('solid');
  await page.keyboard.press('Home');
  await expect(page.getByRole('tab', { name: 'Chat' })).toHaveAttribute('aria-selected', 'true');
  // Into the panel with Tab only: the first control is the flavour radio group.
  await page.keyboard.press('Tab');
  await expect(page.locator('#panel-chat')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('radio', { name: /OpenAI chat/ })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('radio', { name: /Anthropic messages/ })).toBeChecked();
  await promptBox(page).focus();
  await page.keyboard.type('Hi');
  await page.keyboard.press('Enter');
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('inspector-summary')).toContainText('200 POST /v1/messages');
  expect(await stopMidReply(page, 'press Escape', info)).toBeLessThan(40);
});

test('themes and sizes: light and dark follow the system, and the page fits a phone', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  await promptBox(page).fill('Hello');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'light' });
  const light = await background();
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await background();
  expect(light).not.toBe(dark);
  expect(luminance(dark)).toBeLessThan(0.1);
  expect(luminance(light)).toBeGreaterThan(0.8);
  await shot(page, info, 'playground-chat-dark');
  await shot(page.locator('#panel-chat'), info, 'chat-panel-dark');
  await page.getByRole('tab', { name: 'Embeddings' }).click();
  await page.getByRole('button', { name: 'Compute similarity' }).click();
  await expect(page.getByTestId('heatmap')).toBeVisible();
  await shot(page.locator('#panel-embeddings'), info, 'embeddings-panel-dark');
  await page.getByRole('tab', { name: 'Models' }).click();
  await expect(modelRow(page, 'tiny-embed')).toHaveAttribute('data-state', 'loaded');
  await shot(page.locator('#panel-models'), info, 'models-panel-dark');
  await shot(page.locator('#inspector'), info, 'inspector-dark');

  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await shot(page, info, 'models-phone-light');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await shot(page, info, 'chat-phone-light');

});

test('two tabs: a second playground tab shows the hosting tab\'s load progress and can ask it to load a model', async ({ page, context }) => {
  await openPlayground(page, `${PLAYGROUND}&preload=none#models`);
  const second = await context.newPage();
  await openPlayground(second, `${PLAYGROUND}&preload=none#models`);
  await expect(second.locator('#engine-status')).toContainText('the engine runs in another tab');
  await expect(second.getByTestId('host-note')).toHaveText(/Another playground tab hosts the engine/);
  await expect(modelRow(second, 'tiny-embed')).toHaveAttribute('data-state', 'available');
  await second.getByRole('button', { name: 'Load tiny-embed' }).click();
  await expect(modelRow(second, 'tiny-embed')).toHaveAttribute('data-state', 'loaded');
  await expect(modelRow(second, 'tiny-embed').locator('td[data-label="State"] small')).toHaveText(/^in [\d.]+ (ms|s) on WASM/);
  await expect(modelRow(page, 'tiny-embed')).toHaveAttribute('data-state', 'loaded');
  // The second tab's API calls are answered by the first tab's engine.
  await second.getByRole('tab', { name: 'Embeddings' }).click();
  await second.getByRole('button', { name: 'Compute similarity' }).click();
  await expect(second.getByTestId('heatmap')).toBeVisible();
});

function luminance(rgb: string): number {
  const [r, g, b] = rgb.match(/\d+/g)!.map(Number) as [number, number, number];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

test('offline: after a first visit the page reloads with the network cut off, and the default model still answers', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await openPlayground(page);
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  await expect(modelRow(page, 'tiny-embed')).toHaveAttribute('data-state', 'loaded');

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await expect(page.locator('#engine-status')).toContainText('offline');
  await promptBox(page).fill('Are you there?');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.locator('.bubble-assistant').last().locator('.meta')).toHaveText('stop · 40 tokens');
  await shot(page, info, 'offline-chat-light');

  await page.getByRole('tab', { name: 'Models' }).click();
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  // Not downloaded yet, so not loadable offline: said plainly, the button disabled.
  const remote = modelRow(page, 'all-MiniLM-L6-v2');
  await expect(remote).toHaveAttribute('data-state', 'offline');
  await expect(remote).toContainText('Needs network');
  await expect(remote.getByRole('button', { name: 'Load all-MiniLM-L6-v2' })).toBeDisabled();
  await shot(page.locator('#panel-models'), info, 'models-offline-light');
  await context.setOffline(false);
});
