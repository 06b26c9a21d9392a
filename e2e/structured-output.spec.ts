/**
 * Constrained decoding in the engine worker (xgrammar's wasm in the browser), through the service
 * worker and in the page: `response_format: json_schema` answers and tool calls parse and match
 * their schemas, JSON and streamed, on the tiny random-weight model.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { jsonSchemaArbitrary, maxInstanceChars, validatorFor } from '../test/property/json-schemas.ts';
import { expect, startRuntime, test } from './fixtures.ts';

const Person = z.object({ name: z.string().max(10), age: z.number().int().min(0).max(120), pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3) }).strict();
const SCHEMA = z.toJSONSchema(Person);

for (const inPage of [false, true]) {
  test(`json_schema output parses and matches the schema, JSON and streamed (${inPage ? 'in the page' : 'through the service worker'})`, async ({ page }) => {
    await startRuntime(page, { inPage });
    const answers = await page.evaluate(async (schema) => {
      const ask = (stream: boolean, seed: number) =>
        fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'tiny-chat', max_tokens: 200, temperature: 1, seed, stream, messages: [{ role: 'user', content: 'A person, please.' }], response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } } }),
        });
      const out: { status: number; text: string; finish: string | null }[] = [];
      for (const seed of [1, 2, 3]) {
        const whole = await ask(false, seed);
        const body = await whole.json();
        out.push({ status: whole.status, text: body.choices?.[0]?.message?.content ?? JSON.stringify(body), finish: body.choices?.[0]?.finish_reason ?? null });
        const streamed = await ask(true, seed);
        let text = '';
        let finish: string | null = null;
        for (const line of (await streamed.text()).split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const chunk = JSON.parse(line.slice(6));
          text += chunk.choices[0]?.delta?.content ?? '';
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        out.push({ status: streamed.status, text, finish });
      }
      return out;
    }, SCHEMA);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.finish).toBe('stop');
      expect(Person.parse(JSON.parse(answer.text))).toBeTruthy();
    }
    // The same seed gives the same answer, streamed or not.
    for (let i = 0; i < answers.length; i += 2) expect(answers[i + 1]!.text).toBe(answers[i]!.text);
  });
}

/**
 * The Node property (test/property/structured-output.property.test.ts) in the browser: generated
 * schemas, answered through the service worker by the engine worker, each answer checked with ajv
 * here. `BROWSER_STRUCTURED_CASES` sets how many (default 200), half of them as tool parameters.
 */
test('generated schemas: every answer through the service worker parses and validates, as response_format and as a tool', async ({ page }) => {
  const cases = Number(process.env.BROWSER_STRUCTURED_CASES ?? 200);
  const fitting = jsonSchemaArbitrary.filter((schema) => maxInstanceChars(schema) <= 100);
  const schemas = fc.sample(fitting, { numRuns: cases, seed: Number(process.env.FC_SEED ?? 20261123) });
  await startRuntime(page);
  for (const [i, schema] of schemas.entries()) {
    const asTool = i % 2 === 1;
    const stream = i % 4 >= 2;
    const answer = await page.evaluate(
      async ({ schema, asTool, stream, seed }) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'tiny-chat', max_tokens: 256, temperature: 1, seed, stream,
            messages: [{ role: 'user', content: 'Fill in the form.' }],
            ...(asTool
              ? { tools: [{ type: 'function', function: { name: 'form', parameters: schema } }], tool_choice: 'required', parallel_tool_calls: false }
              : { response_format: { type: 'json_schema', json_schema: { name: 'form', schema, strict: true } } }),
          }),
        });
        let text = '';
        let finish: string | null = null;
        if (!stream) {
          const body = await response.json();
          const message = body.choices?.[0]?.message;
          return { status: response.status, text: (asTool ? message?.tool_calls?.[0]?.function.arguments : message?.content) ?? JSON.stringify(body), finish: body.choices?.[0]?.finish_reason ?? null };
        }
        for (const line of (await response.text()).split('\n')) {
          if (!line.startsWith('data: {')) continue;
          const choice = JSON.parse(line.slice(6)).choices[0];
          text += (asTool ? choice?.delta?.tool_calls?.[0]?.function?.arguments : choice?.delta?.content) ?? '';
          finish = choice?.finish_reason ?? finish;
        }
        return { status: response.status, text, finish };
      },
      { schema: schema as object, asTool, stream, seed: i },
    );
    const label = `case ${i} (${asTool ? 'tool' : 'response_format'}, ${stream ? 'streamed' : 'JSON'}): ${JSON.stringify(schema)}\n${answer.text}`;
    expect(answer.status, label).toBe(200);
    expect(answer.finish, label).toBe(asTool ? 'tool_calls' : 'stop');
    const { valid, errors } = validatorFor(schema, { formats: 'fast' })(JSON.parse(answer.text));
    expect(valid, `${label}\n${errors}`).toBe(true);
  }
});
