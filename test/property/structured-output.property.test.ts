/**
 * Valid by construction: for hundreds of generated JSON schemas (objects, arrays, enums, nested
 * objects, required fields, `additionalProperties: false`, bounded numbers and strings, formats),
 * every `json_schema` answer of the tiny random-weight chat model parses and validates with ajv,
 * JSON and streamed (real transformers.js inference, the grammar from xgrammar). The same holds
 * for tool calls: generated schemas as tools' parameters, called in either flavour.
 *
 * Every generated schema's largest instance fits the token budget (each token spells at least one
 * byte), so the only correct ending is `stop`: a cut-short answer fails the property too.
 * `STRUCTURED_CASES` sets how many schemas (default 200), `TOOL_CASES` how many tool sets
 * (default 100); `FC_SEED` the seed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { readSSE } from '../support/harness.ts';
import { transformersFixture } from '../support/engines.ts';
import { jsonSchemaArbitrary, maxInstanceChars, validatorFor, type JsonSchema } from './json-schemas.ts';

const CASES = Number(process.env.STRUCTURED_CASES ?? 200);
const TOOL_CASES = Number(process.env.TOOL_CASES ?? 100);
const SEED = Number(process.env.FC_SEED ?? 20261123);
const MAX_TOKENS = 256;

let gateway: Gateway;
beforeAll(async () => {
  gateway = createGateway({ engine: (await transformersFixture.create()).engine, baseUrl: 'https://llm.test/v1' });
});

async function ask(schema: JsonSchema, stream: boolean, seed: number): Promise<{ status: number; text: string; finish: string | null }> {
  const response = await gateway.fetch(
    new Request('https://llm.test/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny-chat',
        max_tokens: MAX_TOKENS,
        temperature: 1,
        seed,
        stream,
        messages: [{ role: 'user', content: 'Fill in the form.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'form', schema, strict: true } },
      }),
    }),
  );
  if (!stream) {
    const body = (await response.json()) as { choices?: { message: { content: string }; finish_reason: string }[] };
    return { status: response.status, text: body.choices?.[0]?.message.content ?? JSON.stringify(body), finish: body.choices?.[0]?.finish_reason ?? null };
  }
  let text = '';
  let finish: string | null = null;
  for (const { data } of await readSSE(response)) {
    if (!data.startsWith('{')) continue;
    const chunk = JSON.parse(data) as { choices: { delta: { content?: string }; finish_reason: string | null }[] };
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { status: response.status, text, finish };
}

describe('constrained decoding, as a property', () => {
  it(`every answer to ${CASES} generated schemas parses and validates, JSON and streamed`, async () => {
    const fitting = jsonSchemaArbitrary.filter((schema) => maxInstanceChars(schema) <= MAX_TOKENS);
    await fc.assert(
      fc.asyncProperty(fitting, fc.boolean(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (schema, stream, seed) => {
        const answer = await ask(schema, stream, seed);
        expect(answer.status).toBe(200);
        expect(answer.finish).toBe('stop');
        // Format checks by shape: the grammar's `date` does not know month lengths (2023-02-30).
        const { valid, errors } = validatorFor(schema, { formats: 'fast' })(JSON.parse(answer.text));
        expect(valid, `${answer.text}\n${errors}`).toBe(true);
      }),
      { numRuns: CASES, seed: SEED },
    );
  }, 600_000);

  // A call is its arguments with a space after each separator (as templates write JSON) and ~60
  // characters around them: instances of up to 100 compact characters fit 256 tokens.
  const toolSets = fc.array(jsonSchemaArbitrary.filter((schema) => maxInstanceChars(schema) <= 100), { minLength: 1, maxLength: 3 });

  it(`every call to ${TOOL_CASES} generated tool sets names a tool and its arguments validate, in both flavours, JSON and streamed`, async () => {
    await fc.assert(
      fc.asyncProperty(toolSets, fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (schemas, anthropic, stream, seed) => {
        const calls = await call(schemas, anthropic, stream, seed);
        expect(calls.status, calls.raw).toBe(200);
        expect(calls.finish, calls.raw).toBe(anthropic ? 'tool_use' : 'tool_calls');
        expect(calls.list).toHaveLength(1);
        const [{ name, input }] = calls.list as [{ name: string; input: string }];
        const index = Number(/^tool_(\d+)$/.exec(name)?.[1] ?? -1);
        expect(index, name).toBeGreaterThanOrEqual(0);
        const { valid, errors } = validatorFor(schemas[index]!, { formats: 'fast' })(JSON.parse(input));
        expect(valid, `${input}\n${errors}`).toBe(true);
      }),
      { numRuns: TOOL_CASES, seed: SEED },
    );
  }, 600_000);
});

/** One forced call (no parallel calls) to one of `schemas`, named `tool_<i>`; the calls read back in the flavour's shape. */
async function call(schemas: readonly JsonSchema[], anthropic: boolean, stream: boolean, seed: number) {
  const messages = [{ role: 'user', content: 'Use a tool.' }];
  const body = anthropic
    ? {
        model: 'tiny-chat', max_tokens: MAX_TOKENS, stream, messages,
        tools: schemas.map((schema, i) => ({ name: `tool_${i}`, input_schema: schema })),
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        // No seed in this flavour: the sampling varies with the question instead.
        system: `Case ${seed}.`,
      }
    : {
        model: 'tiny-chat', max_tokens: MAX_TOKENS, temperature: 1, seed, stream, messages,
        tools: schemas.map((schema, i) => ({ type: 'function', function: { name: `tool_${i}`, parameters: schema } })),
        tool_choice: 'required', parallel_tool_calls: false,
      };
  const response = await gateway.fetch(
    new Request(`https://llm.test/v1/${anthropic ? 'messages' : 'chat/completions'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    }),
  );
  const list: { name: string; input: string }[] = [];
  let finish: string | null = null;
  if (!stream) {
    const raw = await response.text();
    const json = JSON.parse(raw) as Record<string, unknown> & { content?: { type: string; name: string; input: unknown }[]; stop_reason?: string; choices?: { message: { tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string }[] };
    if (anthropic) for (const b of json.content ?? []) if (b.type === 'tool_use') list.push({ name: b.name, input: JSON.stringify(b.input) });
    if (!anthropic) for (const c of json.choices?.[0]?.message.tool_calls ?? []) list.push({ name: c.function.name, input: c.function.arguments });
    finish = (anthropic ? json.stop_reason : json.choices?.[0]?.finish_reason) ?? null;
    return { status: response.status, finish, list, raw };
  }
  const events = await readSSE(response);
  for (const { data } of events) {
    if (!data.startsWith('{')) continue;
    const event = JSON.parse(data) as Record<string, any>;
    if (anthropic) {
      if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') list.push({ name: event.content_block.name, input: '' });
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') list.at(-1)!.input += event.delta.partial_json;
      if (event.type === 'message_delta') finish = event.delta.stop_reason;
    } else {
      for (const delta of event.choices?.[0]?.delta?.tool_calls ?? []) {
        if (delta.id) list[delta.index] = { name: delta.function.name, input: '' };
        else list[delta.index]!.input += delta.function.arguments;
      }
      finish = event.choices?.[0]?.finish_reason ?? finish;
    }
  }
  return { status: response.status, finish, list, raw: events.map((e) => e.data).join('\n').slice(0, 2000) };
}
