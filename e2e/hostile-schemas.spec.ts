/**
 * Hostile schemas in the browser: one tab sends the schemas that broke xgrammar (nested 60 and
 * 1,000 deep, a `$ref` to itself, one nested 100,000 deep as text, a pattern it aborts on) and
 * gets 400s naming the limit; then that tab and a second one (served by the first tab's engine
 * worker, through the service worker) each get a valid structured output and a tool call. And an
 * engine worker asked directly, past the gateway, refuses what passes the limits itself, and
 * replaces its xgrammar instance when the compiler fails, and goes on answering.
 */
import type { Page } from '@playwright/test';
import { engineWorker, expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';

interface Answer {
  readonly status: number;
  readonly body: { error?: { message: string; param: string }; choices?: { finish_reason: string; message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] } }[] };
}

/** Posts a chat request (its body as JSON text) from `page`. */
function post(page: Page, body: string): Promise<Answer> {
  return page.evaluate(async (text) => {
    const response = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    return { status: response.status, body: await response.json() };
  }, body);
}

const request = (extra: object) => JSON.stringify({ model: 'tiny-chat', max_tokens: 24, seed: 3, messages: [{ role: 'user', content: 'Go.' }], ...extra });
const withSchema = (schema: unknown) => request({ response_format: { type: 'json_schema', json_schema: { name: 's', schema } } });

function nested(levels: number): unknown {
  let schema: unknown = { type: 'integer' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'], additionalProperties: false };
  return schema;
}

/** Nested as text: a schema too deep for JSON.stringify to write. */
function deepText(levels: number): string {
  const schema = '{"type":"object","required":["a"],"properties":{"a":'.repeat(levels) + '{"type":"integer"}' + '}}'.repeat(levels);
  return request({ response_format: { type: 'json_schema', json_schema: { name: 's', schema: '@' } } }).replace('"@"', schema);
}

const DEPTH = `at #${'/properties/a'.repeat(32)}: schemas nest to level 33 here, over the limit of 32 levels`;
const HOSTILE: readonly (readonly [string, string, string])[] = [
  ['nested 60 deep', withSchema(nested(60)), DEPTH],
  ['nested 1,000 deep', withSchema(nested(1_000)), DEPTH],
  ['nested 100,000 deep', deepText(100_000), DEPTH],
  ['a $ref to itself', withSchema({ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }), 'at #/$ref: this reference leads into a cycle of references with no way out'],
  ['nested 60 deep, as tool parameters', request({ tools: [{ type: 'function', function: { name: 'f', parameters: nested(60) } }] }), DEPTH],
  ['a lookahead pattern', withSchema({ type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)b$' } } }), 'cannot be enforced: lookahead (?=…) is not supported'],
];
/** xgrammar (no lookahead) aborts on it: the gateway refuses it, so only an engine asked directly gets it. */
const ABORTS_COMPILER = { type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)b$' } }, required: ['s'], additionalProperties: false };
const SIMPLE = withSchema({ type: 'object', properties: { b: { type: 'integer', minimum: 0, maximum: 99 } }, required: ['b'], additionalProperties: false });
const TOOL_CALL = request({ max_tokens: 96, tool_choice: 'required', parallel_tool_calls: false, tools: [{ type: 'function', function: { name: 'set_flag', parameters: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], additionalProperties: false } } }] });

async function expectStructuredOutputWorks(page: Page, label: string): Promise<void> {
  const answer = await post(page, SIMPLE);
  expect(answer.status, `${label}: ${JSON.stringify(answer.body)}`).toBe(200);
  expect(answer.body.choices![0]!.finish_reason).toBe('stop');
  const { b } = JSON.parse(answer.body.choices![0]!.message.content!) as { b: number };
  expect(b >= 0 && b <= 99, label).toBe(true);
  const call = await post(page, TOOL_CALL);
  expect(call.status, `${label}: ${JSON.stringify(call.body)}`).toBe(200);
  expect(call.body.choices![0]!.finish_reason).toBe('tool_calls');
  const { name, arguments: args } = call.body.choices![0]!.message.tool_calls![0]!.function;
  expect(name).toBe('set_flag');
  expect(typeof (JSON.parse(args) as { on: unknown }).on, label).toBe('boolean');
}

/** xgrammar instances the engine worker has made since its first: each a fresh evaluation of its chunk. */
function freshInstances(page: Page): Promise<number> {
  return engineWorker(page).then((worker) => worker.evaluate(() => performance.getEntriesByType('resource').filter((entry) => /xgrammar-bundle.*#instance-/.test(entry.name)).length));
}

test('hostile schemas from one tab leave structured output working for it and for another tab', async ({ context }) => {
  const host = await context.newPage();
  await startRuntime(host);
  const guest = await context.newPage();
  await startRuntime(guest);
  expect(await host.evaluate(() => window.inference.isHost)).toBe(true);
  expect(await guest.evaluate(() => window.inference.isHost)).toBe(false);
  await expectStructuredOutputWorks(host, 'before');

  for (const [name, body, reason] of HOSTILE) {
    const answer = await post(host, body);
    expect(answer.status, name).toBe(400);
    expect(answer.body.error!.message, name).toContain(reason);
  }
  await expectStructuredOutputWorks(host, 'the tab that sent them');
  await expectStructuredOutputWorks(guest, 'another tab');
});

test('an engine worker asked directly holds schemas to the same limits, and replaces its xgrammar when it fails', async ({ page }) => {
  await page.goto(SDK_PAGE);
  // This page's own engine worker, behind a fetch shim for the good requests; the bad ones go to
  // the engine itself, past the gateway.
  await page.evaluate(() => {
    const engine = window.harness.createWorkerEngine({ device: 'wasm' });
    window.harness.installFetchShim({ engine });
    Object.assign(window, { directEngine: engine });
  });
  // The schema goes as text: Playwright does not pass an object nested this deep to the page.
  const askDirectly = (schema: unknown) =>
    page.evaluate(async (text) => {
      const engine = (window as unknown as { directEngine: import('../src/core/engine.ts').Engine }).directEngine;
      try {
        for await (const _event of engine.chat({ model: 'tiny-chat', messages: [{ role: 'user', content: 'Go.' }], maxTokens: 4, stop: [], output: { kind: 'json_schema', schema: JSON.parse(text) as Record<string, unknown>, strict: true } }, { signal: new AbortController().signal }));
        return null;
      } catch (error) {
        return { code: (error as { code?: string }).code, message: (error as Error).message };
      }
    }, JSON.stringify(schema));
  await expectStructuredOutputWorks(page, 'before');
  for (let i = 0; i < 3; i++) {
    // Refused by the worker's own limits: xgrammar never sees it.
    expect(await askDirectly(nested(60))).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(DEPTH) });
    // Aborts xgrammar inside the worker: the instance is replaced.
    expect(await askDirectly(ABORTS_COMPILER)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Aborted()') });
    await expectStructuredOutputWorks(page, `after failure ${i + 1}`);
    expect(await freshInstances(page)).toBe(i + 1);
  }
});
