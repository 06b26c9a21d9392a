/**
 * The playground as a person uses it: type a prompt and watch the reply stream in, stop one, switch
 * flavour, hold a reply to a JSON schema, answer a tool call, compute a similarity matrix, watch a model load with a real progress bar, delete a
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
/** The bundled tiny-chat's files (its chat template grew with the tool-call format). */
const TINY_CHAT_KB = 645;

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
  await expect(page.locator('#fig-ttft')).toHaveText(/^\d+(\.\d+)? (ms|s)\d+ of \d+ prompt tokens cached$/);
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

  // The conversation's next turn: the figure says how much of its prompt the engine read before
  // (at least the whole first prompt, which every later request shares), beside its first token.
  const first = await page.locator('#fig-ttft small').textContent();
  const promptOf = (text: string | null) => Number(/of (\d+) prompt tokens/.exec(text ?? '')?.[1]);
  await promptBox(page).fill('And then?');
  await promptBox(page).press('Enter');
  await expect(page.getByTestId('chat-status')).toHaveText('Reply complete.');
  const [, cached, prompt] = /^(\d+) of (\d+) prompt tokens cached$/.exec((await page.locator('#fig-ttft small').textContent())!)!.map(Number);
  expect(prompt).toBeGreaterThan(promptOf(first));
  expect(cached).toBeGreaterThanOrEqual(promptOf(first));
  expect(cached).toBeLessThan(prompt!);
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

/** The JSON body of the request the inspector shows. */
async function sentBody(page: Page): Promise<Record<string, any>> {
  return JSON.parse((await page.getByTestId('inspector-request').textContent())!.split('\n\n').slice(1).join('\n\n'));
}

/** Opens a settings box by its summary (they start closed). */
async function openBox(page: Page, title: 'Structured output' | 'Tools'): Promise<void> {
  const box = page.locator('details', { has: page.locator('summary', { hasText: title }) });
  if (!(await box.evaluate((d) => (d as HTMLDetailsElement).open))) await box.locator('summary').click();
}

/** The example schema in the box: bounded strings, an enum and a small integer range. */
function expectReview(value: unknown): void {
  const review = value as { title: unknown; mood: unknown; stars: unknown };
  expect(Object.keys(review).sort()).toEqual(['mood', 'stars', 'title']);
  expect(typeof review.title).toBe('string');
  expect((review.title as string).length).toBeLessThanOrEqual(24);
  expect(['happy', 'sad', 'curious']).toContain(review.mood);
  expect(Number.isInteger(review.stars) && (review.stars as number) >= 1 && (review.stars as number) <= 5).toBe(true);
}

/** The example tools in the box: each call names one and its arguments match its schema. */
function expectToolArguments(name: string, args: Record<string, unknown>): void {
  if (name === 'get_weather') {
    expect(Object.keys(args).sort()).toEqual(['city', 'unit']);
    expect(typeof args.city === 'string' && args.city.length <= 20).toBe(true);
    expect(['celsius', 'fahrenheit']).toContain(args.unit);
  } else {
    expect(name).toBe('get_time');
    expect(Object.keys(args)).toEqual(['zone']);
    expect(['UTC', 'CET', 'PST']).toContain(args.zone);
  }
}

/** Counts the page's calls to either chat endpoint from now on. */
async function countChatCalls(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    const calls: string[] = [];
    Object.assign(window, { chatCalls: calls });
    const original = window.fetch;
    window.fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (/\/v1\/(chat\/completions|messages)$/.test(url)) calls.push(url);
      return original(input, init);
    };
  });
  return () => page.evaluate(() => (window as unknown as { chatCalls: string[] }).chatCalls.length);
}

test('structured output: with the schema box on, the reply is shown parsed and matches the schema; the request and its snippets carry it', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 1280, height: 1100 });
  await openPlayground(page);
  await page.getByLabel('Max tokens').fill('200');
  await openBox(page, 'Structured output');
  await page.getByLabel('Constrain the reply to this schema').check();
  await expect(page.locator('summary', { hasText: 'Structured output' })).toHaveText('Structured output · on');
  await promptBox(page).fill('Review a film.');
  await promptBox(page).press('Enter');
  const reply = page.locator('.bubble-assistant').last();
  await expect(reply).toHaveAttribute('data-state', 'done');
  await expect(reply.locator('.meta')).toHaveText(/^stop · \d+ tokens$/);

  // The parsed result under the reply is the reply's own text, as JSON that matches the schema.
  const parsed = reply.getByTestId('parsed-result');
  await expect(parsed).toHaveAttribute('data-valid', 'true');
  await expect(parsed).toContainText('response_format json_schema');
  const value = JSON.parse((await parsed.getByTestId('parsed-json').textContent())!);
  expectReview(value);
  expect(JSON.parse((await reply.locator('.content').textContent())!)).toEqual(value);

  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/chat\/completions · .* SSE events/);
  const body = await sentBody(page);
  expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'response', strict: true, schema: { type: 'object', required: ['title', 'mood', 'stars'] } } });
  expect(body.tools).toBeUndefined();
  await shot(page.locator('#panel-chat'), info, 'chat-structured-light');

  expect(await snippet(page, 'fetch')).toContain('"response_format": {');
  expect(await snippet(page, 'openai')).toContain('"response_format": {');
  // In the Anthropic SDK's terms the schema is a forced tool; the snippet runs and its input matches.
  const anthropicCode = await snippet(page, '@anthropic-ai/sdk');
  expect(anthropicCode).toContain('"name": "respond"');
  const sdkPage = await context.newPage();
  await sdkPage.goto('/e2e/pages/sdk.html');
  await expect(sdkPage.locator('body[data-ready="true"]')).toBeAttached();
  const message = JSON.parse((await runSnippet(sdkPage, anthropicCode)).at(-1)!);
  expect(message).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'respond' }] });
  expectReview(message.content[0].input);

  // Cut short by max_tokens, the text is not JSON: the parse error is shown instead.
  await page.getByLabel('Max tokens').fill('8');
  await promptBox(page).fill('Another one.');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(2);
  const cut = page.locator('.bubble-assistant').last();
  await expect(cut).toHaveAttribute('data-state', 'done');
  await expect(cut.locator('.meta')).toHaveText('length · 8 tokens');
  await expect(cut.getByTestId('parsed-result')).toHaveAttribute('data-valid', 'false');
  await expect(cut.getByTestId('parsed-result')).toContainText(/^Not valid JSON.*\(the reply stopped at max tokens\)$/);
});

test('tools: with tool_choice required the reply is a tool call card with its name and parsed arguments; a typed result continues the conversation', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 1280, height: 1100 });
  await openPlayground(page);
  await page.getByLabel('Max tokens').fill('200');
  await openBox(page, 'Tools');
  await page.getByLabel('Offer these tools to the model').check();
  await expect(page.getByLabel('Tool choice').locator('option')).toHaveText(['auto: text or calls', 'required: at least one call', 'none: text only', 'get_weather (forced)', 'get_time (forced)']);
  await page.getByLabel('Tool choice').selectOption('required');
  await page.getByLabel('Allow several calls in one reply').uncheck();
  await promptBox(page).fill('What is the weather in Paris?');
  await promptBox(page).press('Enter');
  const reply = page.locator('.bubble-assistant').first();
  await expect(reply).toHaveAttribute('data-state', 'done');
  await expect(reply.locator('.meta')).toHaveText(/^tool_calls · \d+ tokens$/);
  await expect(page.getByTestId('chat-status')).toHaveText('Reply complete: 1 tool call, answer below or write a message.');
  const card = reply.getByTestId('tool-call');
  await expect(card).toHaveCount(1);
  await expect(card).toHaveAttribute('data-valid', 'true');
  const name = (await card.getByTestId('tool-name').textContent())!;
  const args = JSON.parse((await card.getByTestId('tool-arguments').textContent())!);
  expectToolArguments(name, args);
  await expect(reply.getByTestId('parsed-result')).toHaveCount(0);

  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/chat\/completions · .* SSE events/);
  const body = await sentBody(page);
  expect(body).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false });
  expect(body.tools.map((t: { type: string; function: { name: string } }) => [t.type, t.function.name])).toEqual([['function', 'get_weather'], ['function', 'get_time']]);
  // The card was built from streamed deltas: the call's opening piece, then argument fragments.
  expect((await page.getByTestId('inspector-raw').textContent())!).toMatch(/"tool_calls":\[\{"index":0,"id":"call_[^"]+","type":"function","function":\{"name":"(get_weather|get_time)","arguments":""\}\}\]/);
  expect(await snippet(page, 'openai')).toContain('"tool_choice": "required"');
  await shot(page.locator('#panel-chat'), info, 'chat-tool-call-light');

  // The result goes back as a tool message answering the call, after the call itself.
  await reply.getByLabel(`Result of ${name}`).fill('{"temperature": 21}');
  await reply.getByRole('button', { name: 'Send result' }).click();
  await expect(page.locator('.bubble-tool')).toHaveText(`Result of ${name}{"temperature": 21}`);
  await expect(page.locator('.bubble-assistant')).toHaveCount(2);
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('inspector-request')).toContainText('"role": "tool"');
  const followUp = await sentBody(page);
  const id = followUp.messages[1].tool_calls[0].id;
  expect(id).toMatch(/^call_/);
  expect(followUp.messages).toEqual([
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: expect.any(String) } }] },
    { role: 'tool', tool_call_id: id, content: '{"temperature": 21}' },
  ]);
  expect(JSON.parse(followUp.messages[1].tool_calls[0].function.arguments)).toEqual(args);
  // Answered: the first reply's form is gone; the follow-up (still 'required') is a call again.
  await expect(reply.getByRole('button', { name: 'Send result' })).toHaveCount(0);
  await expect(page.locator('.bubble-assistant').last().getByTestId('tool-call')).toHaveCount(1);

  // The same follow-up in the Anthropic SDK's terms (tool_use, then tool_result) runs.
  const anthropicCode = await snippet(page, '@anthropic-ai/sdk');
  expect(anthropicCode).toContain('"type": "tool_result"');
  const sdkPage = await context.newPage();
  await sdkPage.goto('/e2e/pages/sdk.html');
  await expect(sdkPage.locator('body[data-ready="true"]')).toBeAttached();
  const message = JSON.parse((await runSnippet(sdkPage, anthropicCode)).at(-1)!);
  expect(message.stop_reason).toBe('tool_use');
  for (const block of message.content) expectToolArguments(block.name, block.input);
});

test('Anthropic flavour: the schema goes as a forced tool whose input is the parsed result; tool_use blocks are cards, answered with tool_result blocks', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 1100 });
  await openPlayground(page);
  await page.getByRole('radio', { name: /Anthropic messages/ }).check();
  await page.getByLabel('Max tokens').fill('200');
  await openBox(page, 'Structured output');
  await page.getByLabel('Constrain the reply to this schema').check();
  await expect(page.locator('#chat-schema-hint')).toHaveText(/no response_format: the schema goes as a forced tool, respond, whose input is the parsed result/);
  await promptBox(page).fill('Review a film.');
  await promptBox(page).press('Enter');
  const first = page.locator('.bubble-assistant').first();
  await expect(first).toHaveAttribute('data-state', 'done');
  await expect(first.locator('.meta')).toHaveText(/^tool_use · \d+ tokens$/);
  const parsed = first.getByTestId('parsed-result');
  await expect(parsed).toHaveAttribute('data-valid', 'true');
  await expect(parsed).toContainText('the input of the forced tool respond');
  const review = JSON.parse((await parsed.getByTestId('parsed-json').textContent())!);
  expectReview(review);
  await expect(first.getByTestId('tool-call')).toHaveCount(0);
  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/messages · .* SSE events/);
  const body = await sentBody(page);
  expect(body.response_format).toBeUndefined();
  expect(body.tools).toEqual([{ name: 'respond', description: expect.any(String), input_schema: expect.objectContaining({ required: ['title', 'mood', 'stars'] }) }]);
  expect(body.tool_choice).toEqual({ type: 'tool', name: 'respond' });
  expect((await page.getByTestId('inspector-raw').textContent())!).toContain('"type":"input_json_delta"');
  await shot(page.locator('#panel-chat'), info, 'chat-anthropic-structured-light');

  // Tools instead: a forced get_time, one call at most. With both boxes on, this flavour says the
  // schema's forced tool would leave no room for them.
  await openBox(page, 'Tools');
  await page.getByLabel('Offer these tools to the model').check();
  const note = page.getByText('Not sent while Structured output is on');
  await expect(note).toBeVisible();
  await page.getByLabel('Constrain the reply to this schema').uncheck();
  await expect(note).toBeHidden();
  await page.getByLabel('Tool choice').selectOption('get_time (forced)');
  await page.getByLabel('Allow several calls in one reply').uncheck();
  await promptBox(page).fill('What time is it in Oslo?');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(2);
  const second = page.locator('.bubble-assistant').last();
  await expect(second).toHaveAttribute('data-state', 'done');
  await expect(second.locator('.meta')).toHaveText(/^tool_use · \d+ tokens$/);
  const card = second.getByTestId('tool-call');
  await expect(card).toHaveCount(1);
  await expect(card.getByTestId('tool-name')).toHaveText('get_time');
  const args = JSON.parse((await card.getByTestId('tool-arguments').textContent())!);
  expectToolArguments('get_time', args);
  await expect(page.getByTestId('inspector-request')).toContainText('"disable_parallel_tool_use": true');
  expect((await sentBody(page)).tool_choice).toEqual({ type: 'tool', name: 'get_time', disable_parallel_tool_use: true });

  await second.getByLabel('Result of get_time').fill('12:00');
  await second.getByLabel('Result of get_time').press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(3);
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('inspector-request')).toContainText('"type": "tool_result"');
  const followUp = await sentBody(page);
  const id = followUp.messages[3].content[0].id;
  expect(id).toMatch(/^toolu_/);
  // The forced respond call stays in the conversation as the JSON text it stands for.
  expect(followUp.messages).toEqual([
    { role: 'user', content: 'Review a film.' },
    { role: 'assistant', content: expect.any(String) },
    { role: 'user', content: 'What time is it in Oslo?' },
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'get_time', input: args }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '12:00' }] },
  ]);
  expect(JSON.parse(followUp.messages[1].content)).toEqual(review);
});

test('Responses flavour: a reply streamed and one not, each with its usage; the inspector shows the POST to /v1/responses and its events; tools go flat; the snippets repeat it', async ({ page, context }, info) => {
  await page.setViewportSize({ width: 1280, height: 1000 });
  await openPlayground(page);
  await page.getByRole('radio', { name: /OpenAI responses/ }).check();
  await page.getByLabel('System prompt').fill('You are terse.');
  await promptBox(page).fill('Tell me a story about a cat.');
  await promptBox(page).press('Enter');
  const first = page.locator('.bubble-assistant').first();
  await expect(first).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('chat-status')).toHaveText('Reply complete.');
  expect((await first.locator('.content').textContent())!.trim().split(/\s+/).length).toBeGreaterThanOrEqual(20);

  // Streamed: named events, the usage in response.completed, and that count under the reply.
  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/responses · .* · \d+ SSE events$/);
  expect((await page.getByTestId('inspector-request').textContent())!).toMatch(/^POST \/v1\/responses\ncontent-type: application\/json\n\n/);
  expect(await sentBody(page)).toEqual({
    model: 'tiny-chat',
    instructions: 'You are terse.',
    input: [{ role: 'user', content: 'Tell me a story about a cat.' }],
    max_output_tokens: 64,
    store: false,
    stream: true,
  });
  const raw = (await page.getByTestId('inspector-raw').textContent())!;
  for (const event of ['response.created', 'response.in_progress', 'response.output_item.added', 'response.output_text.delta', 'response.output_text.done', 'response.output_item.done', 'response.completed']) {
    expect(raw).toContain(`event: ${event}\ndata: {"type":"${event}"`);
  }
  const completed = JSON.parse(raw.split('event: response.completed\ndata: ')[1]!.split('\n')[0]!);
  expect(completed.response.usage).toMatchObject({ output_tokens: 40, total_tokens: completed.response.usage.input_tokens + 40 });
  await expect(first.locator('.meta')).toHaveText('completed · 40 tokens');
  await expect(page.locator('#fig-rate')).toHaveText(/^\d+(\.\d)? tok\/s$/);
  await shot(page.locator('#panel-chat'), info, 'chat-responses-light');
  await shot(page, info, 'playground-responses-light');

  // Its snippet: the openai client's responses.stream, which runs; fetch sends the body as it was.
  const openaiCode = await snippet(page, 'openai');
  expect(openaiCode).toContain('const stream = client.responses.stream({');
  expect(openaiCode).toContain("stream.on('response.output_text.delta'");
  expect(await snippet(page, 'fetch')).toMatch(/fetch\('http:\/\/localhost:\d+\/v1\/responses'/);
  const sdkPage = await context.newPage();
  await sdkPage.goto('/e2e/pages/sdk.html');
  await expect(sdkPage.locator('body[data-ready="true"]')).toBeAttached();
  const logged = await runSnippet(sdkPage, openaiCode);
  expect(logged.length).toBeGreaterThan(20);
  expect(logged.at(-1)).toMatch(/^completed \[\{"id":"msg_[^"]+","type":"message".*\] \{"input_tokens":\d+,.*"output_tokens":40,/);
  await sdkPage.close();

  // Not streamed: one JSON body. A cap below the API's floor goes as 16, and the reply is incomplete there.
  await page.getByLabel('Stream the reply').uncheck();
  await page.getByLabel('Max tokens').fill('8');
  await promptBox(page).fill('Another one.');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(2);
  const second = page.locator('.bubble-assistant').nth(1);
  await expect(second).toHaveAttribute('data-state', 'done');
  await expect(second.locator('.meta')).toHaveText('incomplete · 16 tokens');
  expect((await second.locator('.content').textContent())!.trim().length).toBeGreaterThan(0);
  await expect(page.getByTestId('inspector-summary')).toHaveText(/^200 POST \/v1\/responses · [^·]+$/);
  const whole = await sentBody(page);
  expect(whole).toMatchObject({ max_output_tokens: 16, stream: false });
  expect(whole.input).toEqual([
    { role: 'user', content: 'Tell me a story about a cat.' },
    { role: 'assistant', content: await first.locator('.content').textContent() },
    { role: 'user', content: 'Another one.' },
  ]);
  const response = JSON.parse((await page.getByTestId('inspector-raw').textContent())!);
  expect(response).toMatchObject({ object: 'response', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 16 } });
  expect(response.output[0].content[0].text).toBe(await second.locator('.content').textContent());
  expect(await snippet(page, 'openai')).toContain('const response = await client.responses.create({');
  const anthropicCode = await snippet(page, '@anthropic-ai/sdk');
  expect(anthropicCode).toContain('// The same conversation as the last /responses call, in the Anthropic messages flavour.');
  expect(anthropicCode).toContain('const message = await client.messages.create({');

  // Tools: flat function tools; the forced call streams in as a card and its result goes back by call_id.
  await page.getByLabel('Stream the reply').check();
  await page.getByLabel('Max tokens').fill('200');
  await page.getByRole('button', { name: 'Clear conversation' }).click();
  await openBox(page, 'Tools');
  await page.getByLabel('Offer these tools to the model').check();
  await page.getByLabel('Tool choice').selectOption('get_time (forced)');
  await promptBox(page).fill('What time is it in Oslo?');
  await promptBox(page).press('Enter');
  const called = page.locator('.bubble-assistant').first();
  await expect(called).toHaveAttribute('data-state', 'done');
  await expect(called.locator('.meta')).toHaveText(/^completed · \d+ tokens$/);
  const card = called.getByTestId('tool-call');
  await expect(card).toHaveCount(1);
  await expect(card.getByTestId('tool-name')).toHaveText('get_time');
  const args = JSON.parse((await card.getByTestId('tool-arguments').textContent())!);
  expectToolArguments('get_time', args);
  await expect(page.getByTestId('inspector-summary')).toContainText(/^200 POST \/v1\/responses · .* SSE events$/);
  const asked = await sentBody(page);
  expect(asked.tools.map((t: Record<string, unknown>) => Object.keys(t))).toEqual([
    ['type', 'name', 'description', 'parameters'],
    ['type', 'name', 'description', 'parameters'],
  ]);
  expect(asked.tool_choice).toEqual({ type: 'function', name: 'get_time' });
  expect((await page.getByTestId('inspector-raw').textContent())!).toContain('event: response.function_call_arguments.delta');
  await called.getByLabel('Result of get_time').fill('12:00');
  await called.getByLabel('Result of get_time').press('Enter');
  await expect(page.locator('.bubble-assistant')).toHaveCount(2);
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.getByTestId('inspector-request')).toContainText('"type": "function_call_output"');
  const callId = (await called.locator('.tool-id').textContent())!;
  expect((await sentBody(page)).input).toEqual([
    { role: 'user', content: 'What time is it in Oslo?' },
    { type: 'function_call', call_id: callId, name: 'get_time', arguments: expect.any(String) },
    { type: 'function_call_output', call_id: callId, output: '12:00' },
  ]);
});

test('structured output: invalid JSON in a box is said inline and sends nothing; a schema the grammar cannot enforce gets the API\'s 400', async ({ page }, info) => {
  await page.setViewportSize({ width: 1280, height: 1100 });
  await openPlayground(page);
  const chatCalls = await countChatCalls(page);
  await openBox(page, 'Structured output');
  await page.getByLabel('Constrain the reply to this schema').check();
  const schema = page.getByLabel('JSON schema', { exact: true });
  await schema.fill('{"type": "object",');
  const error = page.getByTestId('chat-schema-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('Not valid JSON');
  await expect(schema).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('summary', { hasText: 'Structured output' })).toHaveText('Structured output · invalid JSON');
  await promptBox(page).fill('Hello');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByTestId('chat-status')).toContainText('Fix the JSON schema before sending. Not valid JSON');
  await expect(schema).toBeFocused();
  await expect(promptBox(page)).toHaveValue('Hello');
  await expect(page.locator('.bubble')).toHaveCount(0);
  await shot(page.locator('#panel-chat'), info, 'chat-schema-invalid-light');

  // The tools box too: JSON that is not an array of tools.
  await openBox(page, 'Tools');
  await page.getByLabel('Offer these tools to the model').check();
  await page.getByLabel('Tool definitions (JSON array)').fill('{"name": "get_weather"}');
  await expect(page.getByTestId('chat-tools-error')).toHaveText('The tools must be a JSON array of tool definitions.');
  await schema.fill('{"type": "object", "properties": {"a": {"type": "array", "uniqueItems": true}}}');
  await expect(error).toBeHidden();
  await expect(schema).not.toHaveAttribute('aria-invalid');
  await promptBox(page).press('Enter');
  await expect(page.getByTestId('chat-status')).toContainText('Fix the tool definitions before sending.');
  await expect(page.getByLabel('Tool definitions (JSON array)')).toBeFocused();
  expect(await chatCalls()).toBe(0);

  // Valid JSON the grammar cannot enforce: the API's 400, shown in the error view.
  await page.getByLabel('Offer these tools to the model').uncheck();
  await promptBox(page).press('Enter');
  const view = page.getByTestId('error-view').last();
  await expect(view).toContainText('The API answered 400 (invalid_request_error)');
  await expect(view).toContainText('uniqueItems is not supported');
  expect(await chatCalls()).toBe(1);
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
    await expect(text).toHaveText(new RegExp(`^[\\d.]+ KB / ${TINY_CHAT_KB} KB \\([3-8]\\d%\\)$`));
    await shot(page.locator('#panel-models'), info, 'models-loading-light');
    await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
    const loadMs = Date.now() - started;
    await expect(modelRow(page, 'tiny-chat').locator('td[data-label="State"] small')).toHaveText(new RegExp(`^in [\\d.]+ (ms|s) on WASM · ${TINY_CHAT_KB} KB read$`));

    const states = await page.evaluate(() => (window as unknown as { barStates: { text: string; value: number }[] }).barStates);
    const percents = states.map((s) => /\((\d+)%\)$/.exec(s.text)).filter((m) => m !== null).map((m) => Number(m[1]));
    const during = states.filter((s) => new RegExp(` KB / ${TINY_CHAT_KB} KB \\(\\d+%\\)$`).test(s.text));
    // Many distinct byte counts of the model's size, rising to 100%, with the bar's value matching the text.
    expect(new Set(during.map((s) => s.text)).size).toBeGreaterThanOrEqual(10);
    expect(percents.at(-1)).toBe(100);
    expect(percents.filter((p) => p > 0 && p < 100).length).toBeGreaterThanOrEqual(10);
    for (const s of during) expect(Math.floor(s.value * 100)).toBe(Number(/\((\d+)%\)/.exec(s.text)![1]));
    const rising = during.map((s) => s.value);
    expect(rising).toEqual([...rising].sort((a, b) => a - b));
    info.annotations.push({ type: 'timing', description: `paced load of tiny-chat (${TINY_CHAT_KB} KB): ${loadMs} ms, ${states.length} bar states` });
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
  await expect(row.locator('td[data-label="On disk"]')).toHaveText(`${TINY_CHAT_KB} KB`);
  // What the row shows is what GET /v1/models says of the model on this device.
  const local = () => page.evaluate(async () => (await (await fetch('/v1/models')).json()).data.find((m: { id: string }) => m.id === 'tiny-chat').local);
  // Its source names the group of its files, which the row's size and Delete go by.
  expect(await local()).toMatchObject({ state: 'loaded', downloaded: true, runnable: true, backend: 'wasm', requires: [], source: 'tiny-chat' });
  expect(Math.round((await local()).size_bytes / 1000)).toBe(TINY_CHAT_KB);
  await expect(modelRow(page, 'Qwen2.5-0.5B-Instruct')).toContainText('WebLLM');
  await expect(page.getByTestId('storage-text')).toHaveText(/^Storage: [\d.]+ [KMG]?B used of [\d.]+ [KMGT]B available to this site/);
  await shot(page.locator('#panel-models'), info, 'models-panel-light');

  const cachedFiles = () => page.evaluate(async () => (await (await caches.open('transformers-cache')).keys()).map((r) => new URL(r.url).pathname).filter((p) => p.includes('/tiny-chat/')));
  expect((await cachedFiles()).length).toBeGreaterThanOrEqual(4);
  const remove = row.getByRole('button', { name: 'Delete the downloaded files of tiny-chat' });
  await remove.click();
  await expect(remove).toHaveText(`Delete ${TINY_CHAT_KB} KB?`);
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
  await expect(row.locator('td[data-label="On disk"]')).toHaveText(`${TINY_CHAT_KB} KB`);
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
  await expect(modelRow(playground, 'tiny-chat').locator('td[data-label="On disk"]')).toHaveText(`${TINY_CHAT_KB} KB`);
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
  // Online, the engine's wasm comes from the browser itself (V8 keeps its compiled code only for a
  // file from the HTTP cache); offline, from the service worker's copy.
  const wasmAnswers: { online: boolean; fromServiceWorker: boolean; version: string | null }[] = [];
  let online = true;
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname.endsWith('.wasm')) wasmAnswers.push({ online, fromServiceWorker: response.fromServiceWorker(), version: url.searchParams.get('v') });
  });
  await openPlayground(page);
  await expect(modelRow(page, 'tiny-chat')).toHaveAttribute('data-state', 'loaded');
  await expect(modelRow(page, 'tiny-embed')).toHaveAttribute('data-state', 'loaded');

  await context.setOffline(true);
  online = false;
  await page.reload();
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  await expect(page.locator('#engine-status')).toContainText('offline');
  await promptBox(page).fill('Are you there?');
  await promptBox(page).press('Enter');
  await expect(page.locator('.bubble-assistant').last()).toHaveAttribute('data-state', 'done');
  await expect(page.locator('.bubble-assistant').last().locator('.meta')).toHaveText('stop · 40 tokens');
  await shot(page, info, 'offline-chat-light');
  expect(wasmAnswers).toEqual([
    // The URL names the onnxruntime version, so the offline copy kept under it cannot go stale.
    { online: true, fromServiceWorker: false, version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
    { online: false, fromServiceWorker: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
  ]);

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

test('states: on auto with a software WebGPU adapter (SwiftShader), transformers.js models run on WASM, and the page and the models API say why', async ({ page }) => {
  await openPlayground(page, '/?preload=none#models');
  await expect(page.locator('#fig-backend')).toContainText('WASM (CPU)');
  await expect(page.locator('#fig-backend')).toContainText('(software, slow)');
  await expect(page.locator('#fig-backend')).toContainText('software one (it runs on the CPU), slower than WebAssembly');
  const backend = modelRow(page, 'tiny-embed').locator('td[data-label="Backend"]');
  await expect(backend).toHaveText('WASM');
  await expect(backend).toHaveAttribute('title', /^auto: the WebGPU adapter \(.*\) is a software one, slower than WASM$/);
  const local = await page.evaluate(async () => (await (await fetch('/v1/models/tiny-embed')).json()).local);
  expect(local).toMatchObject({ backend: 'wasm', backend_reason: expect.stringMatching(/software one, slower than WASM/) });
});

test('model picker: grouped by family and size, each model saying whether this GPU (SwiftShader: no shader-f16) runs it, and why not', async ({ page }, info) => {
  await openPlayground(page, '/?preload=none');
  const picker = page.locator('#chat-model');
  const groups = await picker.locator('optgroup').evaluateAll((list) => list.map((g) => (g as HTMLOptGroupElement).label));
  expect(groups[0]).toBe('Featured');
  expect(groups).toEqual(expect.arrayContaining(['Qwen3', 'Llama-3.2', 'gemma-4', 'Phi-3.5-mini']));
  // Within a family, smallest first.
  const qwen3 = await picker.locator('optgroup[label="Qwen3"] option').evaluateAll((list) => list.map((o) => (o as HTMLOptionElement).value));
  expect(qwen3.findIndex((id) => id.startsWith('Qwen3-0.6B'))).toBeLessThan(qwen3.findIndex((id) => id.startsWith('Qwen3-8B')));
  const f16 = picker.locator('option[value="Qwen3-0.6B-q4f16_1-MLC"]');
  await expect(f16).toHaveText('Qwen3-0.6B-q4f16_1-MLC — cannot run here');
  await picker.selectOption('Qwen3-0.6B-q4f16_1-MLC');
  await expect(page.getByTestId('chat-model-needs')).toContainText('Needs WebGPU + shader-f16');
  await expect(page.getByTestId('chat-model-needs')).toContainText('GPU memory');
  await expect(page.getByTestId('chat-model-needs')).toContainText('Cannot run here: "Qwen3-0.6B-q4f16_1-MLC" runs f16 shaders');
  await picker.selectOption('Qwen3-0.6B');
  await expect(page.getByTestId('chat-model-needs')).toContainText('Runs here');
  await expect(page.getByTestId('chat-model-needs')).toContainText('thinks first');
  await expect(page.locator('#embed-model optgroup[label="snowflake-arctic-embed-s"]')).toBeAttached();
  await shot(page.locator('#panel-chat'), info, 'model-picker-light');

  // The models table shows the featured ones, and web-llm's whole list on demand, with what each needs.
  await page.getByRole('tab', { name: 'Models' }).click();
  await expect(modelRow(page, 'Qwen3-0.6B')).toBeVisible();
  await expect(modelRow(page, 'Qwen3-8B-q4f16_1-MLC')).toBeHidden();
  await page.getByLabel(/Show all \d+ models/).check();
  await expect(modelRow(page, 'Qwen3-8B-q4f16_1-MLC')).toBeVisible();
  await expect(modelRow(page, 'Qwen3-8B-q4f16_1-MLC').getByTestId('model-needs')).toContainText('needs WebGPU + shader-f16');
  await expect(modelRow(page, 'Qwen3-8B-q4f16_1-MLC')).toHaveAttribute('data-state', 'unsupported');
});
