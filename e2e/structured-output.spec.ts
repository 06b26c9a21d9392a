/**
 * Constrained decoding in the engine worker (xgrammar's wasm in the browser), through the service
 * worker and in the page: `response_format: json_schema` answers parse and match the schema, JSON
 * and streamed, on the tiny random-weight model.
 */
import { z } from 'zod';
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
