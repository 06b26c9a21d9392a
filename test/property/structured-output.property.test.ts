/**
 * Valid by construction: for hundreds of generated JSON schemas (objects, arrays, enums, nested
 * objects, required fields, `additionalProperties: false`, bounded numbers and strings, formats),
 * every `json_schema` answer of the tiny random-weight chat model parses and validates with ajv,
 * JSON and streamed (real transformers.js inference, the grammar from xgrammar).
 *
 * Every generated schema's largest instance fits the token budget (each token spells at least one
 * byte), so the only correct ending is `stop`: a cut-short answer fails the property too.
 * `STRUCTURED_CASES` sets how many schemas (default 200); `FC_SEED` the seed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { readSSE } from '../support/harness.ts';
import { transformersFixture } from '../support/engines.ts';
import { jsonSchemaArbitrary, maxInstanceChars, validatorFor, type JsonSchema } from './json-schemas.ts';

const CASES = Number(process.env.STRUCTURED_CASES ?? 200);
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
});
