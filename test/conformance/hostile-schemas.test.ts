/**
 * Hostile schemas against the real transformers.js engine on the tiny models (xgrammar's wasm in
 * Node, as `inpage-llm serve --tiny` runs it): the schemas that broke the grammar compiler are
 * 400s naming the limit they pass, at the gateway and in the engine asked directly; a failure
 * inside the compiler replaces its wasm instance; structured output and tool calls keep working
 * after each, round after round, in bounded memory. Remote models get the schema as sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { loadXGrammar } from '../../src/engines/grammar/load-xgrammar.node.ts';
import { createNodeEngine } from '../../src/node/index.ts';
import { tinyModelDir, transformersFixture } from '../support/engines.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.ts';

/** `levels` objects, each holding the next as its required property `a`. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'integer' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema }, required: ['a'], additionalProperties: false };
  return schema;
}

/** A request body with a schema nested `levels` deep, as text: too deep for JSON.stringify to write. */
function deepBodyText(levels: number): string {
  const open = '{"type":"object","required":["a"],"properties":{"a":';
  const schema = open.repeat(levels) + '{"type":"integer"}' + '}}'.repeat(levels);
  return `{"model":"tiny-chat","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":${schema}}}}`;
}

const SELF_REF = { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' };
/** What each hostile schema is refused for: the limit, and where. */
const HOSTILE: readonly (readonly [string, Record<string, unknown>, string])[] = [
  ['nested 60 deep', nested(60), `at #${'/properties/a'.repeat(32)}: schemas nest to level 33 here, over the limit of 32 levels`],
  ['nested 1,000 deep', nested(1_000), `at #${'/properties/a'.repeat(32)}: schemas nest to level 33 here, over the limit of 32 levels`],
  ['a $ref to itself', SELF_REF, 'at #/$ref: this reference leads into a cycle of references with no way out'],
];
/** xgrammar aborts on it (it has no lookahead): the gateway refuses it, so only the engine asked directly gets it. */
const ABORTS_COMPILER = { type: 'object', properties: { s: { type: 'string', pattern: '^(?=a)b$' } }, required: ['s'], additionalProperties: false };
const SIMPLE = { type: 'object', properties: { b: { type: 'integer', minimum: 0, maximum: 99 } }, required: ['b'], additionalProperties: false };
const TOOL = { type: 'function' as const, function: { name: 'set_flag', parameters: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], additionalProperties: false } } };
const USER = [{ role: 'user' as const, content: 'Go.' }];

let engine: Engine;
let harness: Harness;
beforeAll(async () => {
  engine = (await transformersFixture.create()).engine;
  harness = createHarness('fetch option', { engine });
});
afterAll(() => harness.close());

const format = (schema: unknown) => ({ type: 'json_schema' as const, json_schema: { name: 's', schema: schema as Record<string, unknown> } });

async function refusedWith(request: Promise<unknown>): Promise<{ status: number; message: string; param: string }> {
  const error = (await request.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; error: { message: string; param: string } } | undefined;
  expect(error, 'expected a refusal').toBeDefined();
  return { status: error!.status, message: error!.error.message, param: error!.error.param };
}

/** A schema's answer and a tool call, both as they must be. */
async function expectStructuredOutputWorks(round = 0): Promise<void> {
  const client = harness.openai();
  const answer = await client.chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 24, seed: round, response_format: format(SIMPLE) });
  expect(answer.choices[0]!.finish_reason).toBe('stop');
  const { b } = JSON.parse(answer.choices[0]!.message.content!) as { b: number };
  expect(b).toBeGreaterThanOrEqual(0);
  expect(b).toBeLessThanOrEqual(99);
  const call = await client.chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 96, seed: round, tools: [TOOL], tool_choice: 'required', parallel_tool_calls: false });
  expect(call.choices[0]!.finish_reason).toBe('tool_calls');
  const toolCall = call.choices[0]!.message.tool_calls![0]!;
  expect(toolCall.type === 'function' && toolCall.function.name).toBe('set_flag');
  expect(typeof (JSON.parse(toolCall.type === 'function' ? toolCall.function.arguments : '{}') as { on: unknown }).on).toBe('boolean');
}

/** Asks the engine itself, past the gateway and its limits: what xgrammar does with a schema the limits keep out. */
async function askEngineDirectly(schema: Record<string, unknown>): Promise<unknown> {
  try {
    for await (const _event of engine.chat({ model: 'tiny-chat', messages: USER, maxTokens: 4, stop: [], output: { kind: 'json_schema', schema, strict: true } }, { signal: new AbortController().signal }));
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('hostile schemas on transformers.js (tiny-chat)', () => {
  it('a schema no value meets is a 400 (decoding under it would have no token to take)', async () => {
    const schema = { type: 'string', enum: [1, 2] };
    const refused = await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(schema) }));
    expect(refused).toMatchObject({ status: 400, param: 'response_format.json_schema.schema' });
    expect(refused.message).toContain('Invalid schema for response_format at #: no JSON value is valid under this schema');
    await expectStructuredOutputWorks();
  });

  it.each(HOSTILE)('%s is a 400 naming the limit and the path, as response_format and as tool parameters', async (_name, schema, reason) => {
    const asFormat = await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(schema) }));
    expect(asFormat).toMatchObject({ status: 400, param: 'response_format.json_schema.schema' });
    expect(asFormat.message).toContain(`Invalid schema for response_format ${reason}`);
    const asTool = await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, tools: [{ type: 'function', function: { name: 'f', parameters: { ...schema, type: 'object' } } }] }));
    expect(asTool).toMatchObject({ status: 400, param: 'tools[0].function.parameters' });
    const asAnthropic = await harness
      .anthropic()
      .messages.create({ model: 'tiny-chat', max_tokens: 8, messages: USER, output_config: { format: { type: 'json_schema', schema } } } as never)
      .then(
        () => undefined,
        (e: { status: number; error: { error: { message: string } } }) => e,
      );
    expect(asAnthropic?.status).toBe(400);
    expect(asAnthropic?.error.error.message).toContain(reason);
    await expectStructuredOutputWorks();
  });

  it('a schema nested 100,000 deep, sent as text, is a 400 too, not a stack overflow', async () => {
    const response = await harness.fetch('https://llm.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: deepBodyText(100_000) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('over the limit of 32 levels');
  });

  it('a pattern xgrammar would abort on is a 400 naming the feature, before the compiler', async () => {
    const refused = await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(ABORTS_COMPILER) }));
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('at #/properties/s/pattern: the pattern "^(?=a)b$" cannot be enforced: lookahead (?=…) is not supported') });
  });

  it('a failure inside the compiler is a 400 and replaces its wasm instance: the next schema and tool call compile on a fresh one', async () => {
    const before = await loadXGrammar();
    expect(await askEngineDirectly(ABORTS_COMPILER)).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('This JSON schema cannot be enforced: Aborted()') });
    expect(await loadXGrammar()).not.toBe(before);
    await expectStructuredOutputWorks();
  });

  it('the engine holds the schemas it gets to the same limits: sent to it directly, the hostile ones are 400s before xgrammar sees them', async () => {
    const before = await loadXGrammar();
    for (const [, schema, reason] of HOSTILE) {
      expect(await askEngineDirectly(schema)).toMatchObject({ code: 'invalid_request', param: 'response_format', message: expect.stringContaining(`Invalid schema for response_format ${reason}`) });
    }
    expect(await loadXGrammar()).toBe(before);
    await expectStructuredOutputWorks();
  });

  it('a schema within the limits whose grammar would be too large to compile is answered by the schema matcher, quickly', async () => {
    const many = Object.fromEntries(Array.from({ length: 4_900 }, (_, i) => [`field_${i}`, { type: 'integer' }]));
    const schema = { type: 'object', properties: many, required: Object.keys(many), additionalProperties: false };
    const started = performance.now();
    // No grammar is compiled for a JSON answer: the matcher reads the schema and masks as it goes.
    const answered = await harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(schema) });
    // In the schema's order; eight tokens may end before the first name does.
    const content = answered.choices[0]!.message.content!;
    expect(content.startsWith('{"field_0":') || '{"field_0":'.startsWith(content), content).toBe(true);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it(
    '50 rounds of hostile schemas, compiler failures and good requests keep memory bounded',
    async () => {
      let first = 0;
      let peak = 0;
      for (let round = 0; round < 50; round++) {
        for (const [, schema, reason] of HOSTILE) {
          const refused = await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(schema) }));
          expect(refused.message).toContain(reason);
        }
        expect((await refusedWith(harness.openai().chat.completions.create({ model: 'tiny-chat', messages: USER, max_tokens: 8, response_format: format(ABORTS_COMPILER) }))).status).toBe(400);
        // Past the gateway: the engine's own limits, and a failure inside xgrammar that replaces its instance.
        expect(await askEngineDirectly(nested(60))).toMatchObject({ code: 'invalid_request' });
        expect(await askEngineDirectly(ABORTS_COMPILER)).toMatchObject({ code: 'invalid_request' });
        await expectStructuredOutputWorks(round);
        const rss = process.memoryUsage().rss;
        if (round === 0) first = rss;
        peak = Math.max(peak, rss);
      }
      // Measured on a 2-core machine: 37 MB over the first round's at most (the issue saw 350 MB a request).
      expect(peak - first).toBeLessThan(120 * 1024 * 1024);
    },
    180_000,
  );
});

describe('remote models', () => {
  let upstream: ScriptedUpstream;
  let remote: Harness;
  beforeAll(async () => {
    upstream = await startScriptedUpstream();
    const host = createNodeEngine({ localModelPath: await tinyModelDir(), models: [{ engine: 'remote', id: 'remote-chat', upstream: { baseURL: upstream.url, model: 'upstream-model' } }] });
    remote = createHarness('fetch option', { engine: host });
  });
  afterAll(async () => {
    remote.close();
    await upstream.close();
  });

  it('get the schema as sent: the limits are for the local grammar compiler', async () => {
    for (const [, schema] of HOSTILE) {
      const answer = await remote.openai().chat.completions.create({ model: 'remote-chat', messages: USER, max_tokens: 8, response_format: format(schema) });
      expect(answer.choices[0]!.message.content).toBe('Hello there');
      expect((upstream.posts().at(-1)!.body!.response_format as { json_schema: { schema: unknown } }).json_schema.schema).toEqual(schema);
    }
  });
});
