/**
 * `response_format` (json_object, json_schema) through the gateway, with the official openai
 * client and its helpers: constrained decoding makes even the tiny random-weight model's output
 * JSON that parses and matches the schema (real transformers.js inference, the grammar from
 * xgrammar). What the gateway refuses, it refuses with a 400 in OpenAI's shape.
 */
import { zodResponseFormat } from 'openai/helpers/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedFixture, transformersFixture } from '../support/engines.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { validatorFor, type JsonSchema } from '../property/json-schemas.ts';

const Person = z.object({
  name: z.string().max(10),
  age: z.number().int().min(0).max(120),
  pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3),
  address: z.object({ city: z.string().max(8), zip: z.string().max(5) }),
});
const PERSON_SCHEMA = z.toJSONSchema(Person) as Record<string, unknown>;
const MESSAGES = [{ role: 'user' as const, content: 'Describe a person.' }];

let harness: Harness;
afterEach(() => harness.close());

describe('structured output on transformers.js (tiny-chat)', () => {
  beforeEach(async () => {
    harness = createHarness('fetch option', { engine: (await transformersFixture.create()).engine });
  });

  it('chat.completions.parse with zodResponseFormat returns a parsed object that matches the schema', async () => {
    for (const seed of [1, 2, 3]) {
      const completion = await harness.openai().chat.completions.parse({
        model: 'tiny-chat',
        messages: MESSAGES,
        max_tokens: 256,
        temperature: 1,
        seed,
        response_format: zodResponseFormat(Person, 'person'),
      });
      const choice = completion.choices[0]!;
      expect(choice.finish_reason).toBe('stop');
      expect(Person.parse(choice.message.parsed)).toEqual(choice.message.parsed);
      // Compact: the grammar allows no whitespace between tokens.
      expect(choice.message.content).toBe(JSON.stringify(JSON.parse(choice.message.content!)));
    }
  });

  it("takes zod's usual integers and numbers: int() (bounds at ±2^53 are none), nonnegative(), positive(), plain numbers", async () => {
    const Counts = z.object({ any: z.number().int(), zero: z.number().int().nonnegative(), one: z.number().int().positive(), x: z.number() });
    // create, not parse: parse throws when a random model runs out of tokens in an unbounded number.
    const completion = await harness.openai().chat.completions.create({ model: 'tiny-chat', messages: MESSAGES, max_tokens: 256, seed: 5, response_format: zodResponseFormat(Counts, 'counts') });
    const { finish_reason, message } = completion.choices[0]!;
    if (finish_reason === 'stop') {
      // Counts.parse checks int() as a safe integer: the grammar keeps it within 15 digits.
      const counts = Counts.parse(JSON.parse(message.content!));
      expect(counts.zero).toBeGreaterThanOrEqual(0);
      expect(counts.one).toBeGreaterThanOrEqual(1);
    } else {
      // Unbounded digits can outrun a random model's budget; what it wrote is still a prefix of the form.
      expect(message.content!.startsWith('{"any":')).toBe(true);
    }
  });

  it('streams constrained output: the deltas join into the same JSON the non-streamed call returns, with exact usage', async () => {
    const request = { model: 'tiny-chat', messages: MESSAGES, max_tokens: 256, seed: 7, temperature: 0.8, response_format: { type: 'json_schema' as const, json_schema: { name: 'person', schema: PERSON_SCHEMA, strict: true } } };
    const whole = await harness.openai().chat.completions.create(request);
    const stream = await harness.openai().chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let chunks = 0;
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.delta.content) chunks++;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(Person.parse(JSON.parse(text))).toBeTruthy();
    expect(chunks).toBeGreaterThan(5);
    expect(usage).toEqual(whole.usage);
  });

  it('json_object constrains to an object: a random model rarely closes a key it opened, so within the budget it is an object cut short', async () => {
    for (const seed of [1, 2, 3]) {
      const completion = await harness.openai().chat.completions.create({ model: 'tiny-chat', messages: MESSAGES, max_tokens: 64, seed, temperature: 1, response_format: { type: 'json_object' } });
      const { finish_reason, message } = completion.choices[0]!;
      if (finish_reason === 'stop') {
        expect(JSON.parse(message.content!)).toBeTypeOf('object');
      } else {
        expect(message.content).toMatch(/^\{"[^"\u0000-\u001f]*/u);
        expect(completion.usage?.completion_tokens).toBe(64);
      }
    }
  });

  it('a stop sequence never cuts constrained output: the grammar decides where it ends', async () => {
    const completion = await harness.openai().chat.completions.create({
      model: 'tiny-chat',
      messages: MESSAGES,
      max_tokens: 256,
      stop: ['"', ','],
      response_format: zodResponseFormat(Person, 'person'),
    });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(Person.parse(JSON.parse(completion.choices[0]!.message.content!))).toBeTruthy();
  });

  it('max_tokens still bounds it: a cut-short value ends with finish_reason length, as OpenAI does', async () => {
    const completion = await harness.openai().chat.completions.create({ model: 'tiny-chat', messages: MESSAGES, max_tokens: 3, response_format: zodResponseFormat(Person, 'person') });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(3);
    expect(completion.choices[0]!.message.content!.startsWith('{"')).toBe(true);
  });

  it.each([
    [{ type: 'object', properties: { a: { not: { enum: ['x'] } } } }, "#/properties/a/not: not is supported only for whole types"],
    [{ type: 'object', properties: { a: { type: 'array', uniqueItems: true } } }, '#/properties/a/uniqueItems: uniqueItems is not supported'],
    [{ type: 'object', properties: { a: { type: 'strnig' } } }, '#/properties/a/type: unknown type "strnig"'],
    [{ type: 'object', properties: { a: { type: 'string', pattern: '[a-z' } } }, 'cannot be enforced: not a valid regular expression'],
    [{ type: 'object', properties: { a: { type: 'string', pattern: '^(?=a)b$' } } }, 'cannot be enforced: lookahead (?=…) is not supported'],
    [{ type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } }, 'is not inside this schema'],
    [{ type: 'object', properties: { a: { type: 'string', format: 'regex' } } }, 'the format "regex" is not supported'],
    [{ type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'string', maxLength: 3 }] } } }, 'oneOf branches 0 and 1 may both match one value'],
    [{ type: 'object', if: { required: ['a'] }, then: { required: ['b'] } }, '#/if: if / then / else is not supported'],
  ])('refuses a schema it cannot enforce, naming the feature and where: %j', async (schema, message) => {
    const error = await harness
      .openai()
      .chat.completions.create({ model: 'tiny-chat', messages: MESSAGES, max_tokens: 8, response_format: { type: 'json_schema', json_schema: { name: 's', schema } } })
      .catch((e: unknown) => e as { status: number; error: { message: string; param: string; type: string } });
    expect(error).toMatchObject({ status: 400, error: { param: 'response_format.json_schema.schema', type: 'invalid_request_error' } });
    expect((error as { error: { message: string } }).error.message).toContain(message);
  });

  it.each([
    [{ type: 'object', properties: { a: { not: { type: 'string' } } }, required: ['a'], additionalProperties: false }],
    [{ type: 'object', patternProperties: { '^a': { type: 'string' } }, additionalProperties: false }],
    [{ type: 'object', properties: { a: { type: 'integer', minimum: 5 } }, required: ['a'], additionalProperties: false }],
    [{ type: 'object', properties: { a: { type: 'number', minimum: 0, maximum: 1 } }, required: ['a'], additionalProperties: false }],
    [{ type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 20000 } }, required: ['a'], additionalProperties: false }],
    [{ type: 'object', properties: { a: { anyOf: [{ type: 'string', maxLength: 4 }, { type: 'null' }] }, b: { allOf: [{ type: 'integer', minimum: -3 }, { type: 'integer', maximum: 3 }] } }, required: ['a', 'b'], additionalProperties: false }],
    [{ type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'boolean' }] }, b: { type: 'string', format: 'date' } }, required: ['a', 'b'], additionalProperties: false }],
  ])('enforces what the schema matcher reads (once refused with the grammar engine): %j', async (schema) => {
    const completion = await harness.openai().chat.completions.create({ model: 'tiny-chat', messages: MESSAGES, max_tokens: 200, seed: 3, response_format: { type: 'json_schema', json_schema: { name: 's', schema } } });
    const { finish_reason, message } = completion.choices[0]!;
    if (finish_reason === 'stop') expect(validatorFor(schema as JsonSchema)(JSON.parse(message.content!)).valid, message.content!).toBe(true);
    else expect(message.content!.startsWith('{')).toBe(true);
  });

  it.each([
    [{ type: 'xml' }, 'response_format.type'],
    [{ type: 'json_schema' }, 'response_format.json_schema'],
    [{ type: 'json_schema', json_schema: { name: 'has spaces', schema: {} } }, 'response_format.json_schema.name'],
    [{ type: 'json_schema', json_schema: { name: 'n', schema: [] } }, 'response_format.json_schema.schema'],
    ['json', 'response_format'],
  ])('refuses a malformed response_format %j with a 400 naming %s', async (format, param) => {
    const response = await harness.fetch('https://llm.test/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-chat', messages: MESSAGES, response_format: format }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
  });

  it('refuses a prefill with a JSON format', async () => {
    const error = await harness
      .openai()
      .chat.completions.create({ model: 'tiny-chat', messages: [...MESSAGES, { role: 'assistant', content: '{"' }], response_format: { type: 'json_object' } })
      .catch((e: unknown) => e as { status: number; error: { param: string } });
    expect(error).toMatchObject({ status: 400, error: { param: 'messages' } });
  });
});

it('an engine without constrained decoding (the scripted test double) says so with a 400', async () => {
  harness = createHarness('fetch option', { engine: (await scriptedFixture.create()).engine });
  const error = await harness
    .openai()
    .chat.completions.create({ model: 'scripted-chat', messages: MESSAGES, response_format: { type: 'json_object' } })
    .catch((e: unknown) => e as { status: number; error: { param: string; message: string } });
  expect(error).toMatchObject({ status: 400, error: { param: 'response_format', message: expect.stringContaining("not supported by model 'scripted-chat'") } });
});
