/**
 * The official `openai` client against the gateway, through the SDK's `fetch` option and through
 * msw/node, for every engine fixture: chat, streaming, embeddings, models, errors and retries, as
 * the SDK sees them.
 */
import { AutoTokenizer } from '@huggingface/transformers';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAULTS, type ChatCallRecord } from '../support/fault-engine.ts';
import { ENGINE_FIXTURES } from '../support/engines.ts';
import { BASE, createHarness, readSSE, TRANSPORTS, type Harness } from '../support/harness.ts';

const user = (content: string) => [{ role: 'user' as const, content }];

/** Each fixture's chat model as its engine lists it: what it can do decides which cases run. */
const INFO = new Map(
  await Promise.all(ENGINE_FIXTURES.map(async (f) => [f.name, (await (await f.create()).engine.listModels()).find((m) => m.id === f.chatModel)!] as const)),
);

describe.each(ENGINE_FIXTURES)('openai SDK on $name', (fixture) => {
  const info = INFO.get(fixture.name)!;
  describe.each(TRANSPORTS)('via %s', (transport) => {
    let h: Harness;
    let oa: OpenAI;
    let calls: ChatCallRecord[];
    const chat = fixture.chatModel;

    beforeEach(async () => {
      const created = await fixture.create();
      calls = created.calls;
      h = createHarness(transport, { engine: created.engine });
      oa = h.openai();
    });
    afterEach(() => h.close());

    describe('chat completions', () => {
      it('answers with a complete chat.completion body', async () => {
        const before = Math.floor(Date.now() / 1000);
        const res = await oa.chat.completions.create({ model: chat, messages: user('Say something.') });
        expect(res.object).toBe('chat.completion');
        expect(res.id).toMatch(/^chatcmpl-/);
        expect(res.model).toBe(chat);
        expect(Number.isInteger(res.created) && res.created >= before - 1 && res.created <= before + 86_400).toBe(true);
        expect(res.choices).toHaveLength(1);
        const [choice] = res.choices;
        expect(choice!.index).toBe(0);
        expect(choice!.message.role).toBe('assistant');
        expect(typeof choice!.message.content).toBe('string');
        expect(choice!.message.content!.length).toBeGreaterThan(0);
        expect(['stop', 'length']).toContain(choice!.finish_reason);
        expect(choice!.logprobs).toBeNull();
        expect(calls.at(-1)!.completed).toBe(true);
        const usage = res.usage!;
        expect(usage.prompt_tokens).toBeGreaterThan(0);
        expect(usage.completion_tokens).toBeGreaterThan(0);
        expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
      });

      it('is deterministic at temperature 0', async () => {
        const ask = () => oa.chat.completions.create({ model: chat, messages: user('Repeat after me.'), max_tokens: 10, temperature: 0 });
        const [a, b] = [await ask(), await ask()];
        expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content);
        // The same counts, but for what the second found in the engine's prefix cache.
        const { prompt_tokens_details: cachedA, ...countsA } = a.usage!;
        const { prompt_tokens_details: cachedB, ...countsB } = b.usage!;
        expect(countsB).toEqual(countsA);
        expect(cachedB!.cached_tokens).toBeGreaterThanOrEqual(cachedA!.cached_tokens!);
        expect(cachedB!.cached_tokens).toBeLessThan(countsB.prompt_tokens);
      });

      it('embeds identical inputs to cosine 1 and different inputs to less', async () => {
        const res = await oa.embeddings.create({ model: fixture.embedModel, input: ['The cat sleeps.', 'The cat sleeps.', 'Stock markets fell sharply today.'] });
        const [a, b, c] = res.data.map((d) => d.embedding);
        const cos = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0) / (Math.hypot(...x) * Math.hypot(...y));
        expect(cos(a!, b!)).toBeCloseTo(1, 6);
        expect(cos(a!, c!)).toBeLessThan(0.99);
      });

      it.each(['max_tokens', 'max_completion_tokens'] as const)('stops at %s: 1 with finish_reason length', async (key) => {
        const res = await oa.chat.completions.create({ model: chat, messages: user('Tell a long story.'), [key]: 1 });
        expect(res.choices[0]!.finish_reason).toBe('length');
        expect(res.usage!.completion_tokens).toBe(1);
      });

      it('cuts the answer at a stop sequence, which never appears in the content', async () => {
        const full = (await oa.chat.completions.create({ model: chat, messages: user('Stop test.'), max_tokens: 12 })).choices[0]!.message.content!;
        const words = full.split(' ').filter(Boolean);
        expect(words.length).toBeGreaterThan(3);
        const stop = ` ${words[2]}`;
        const res = await oa.chat.completions.create({ model: chat, messages: user('Stop test.'), max_tokens: 12, stop });
        const content = res.choices[0]!.message.content!;
        expect(content).toBe(full.slice(0, full.indexOf(stop)));
        expect(content).not.toContain(stop);
        expect(res.choices[0]!.finish_reason).toBe('stop');
      });

      it('accepts the developer role, text-part arrays and unknown extra fields', async () => {
        const res = await oa.chat.completions.create({
          model: chat,
          messages: [
            { role: 'developer', content: 'Be brief.' },
            { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: 'there' }] },
          ],
          max_tokens: 4,
          // @ts-expect-error: a field the API does not know must be ignored, not rejected
          some_future_field: { x: 1 },
          user: 'u-1',
        });
        expect(res.choices[0]!.message.content!.length).toBeGreaterThan(0);
      });

      if (info.logitBias) {
        it('applies logit_bias: +100 makes greedy choose that token, -100 bans it, and an output grammar still wins', async () => {
          // The engines that apply it run the tiny models, whose tokenizer gives the ids.
          const tokenizer = await AutoTokenizer.from_pretrained(chat);
          const [cat] = tokenizer.encode(' cat', { add_special_tokens: false });
          const ask = { model: chat, messages: user('Tell me about the hills.'), max_tokens: 6, temperature: 0 };
          const forced = await oa.chat.completions.create({ ...ask, logit_bias: { [String(cat)]: 100 } });
          expect(forced.choices[0]!.message.content).toBe(' cat'.repeat(6));
          const banned = await oa.chat.completions.create({ ...ask, max_tokens: 40, logit_bias: { [String(cat)]: -100 } });
          expect(banned.choices[0]!.message.content!.split(' ')).not.toContain('cat');
          if (!info.structuredOutput) return;
          const schema = { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'London'] } }, required: ['city'], additionalProperties: false };
          const shaped = await oa.chat.completions.create({ ...ask, max_tokens: 40, logit_bias: { [String(cat)]: 100 }, response_format: { type: 'json_schema', json_schema: { name: 'c', schema, strict: true } } });
          expect(JSON.parse(shaped.choices[0]!.message.content!)).toEqual({ city: expect.stringMatching(/^(Paris|London)$/) });
        });
      } else {
        it('refuses a non-empty logit_bias with a 400 naming it, since this engine cannot apply it, and takes an empty one', async () => {
          const error = await oa.chat.completions.create({ model: chat, messages: user('x'), logit_bias: { '5': 10 } }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error).toMatchObject({ status: 400, param: 'logit_bias', type: 'invalid_request_error' });
          expect((await oa.chat.completions.create({ model: chat, messages: user('x'), max_tokens: 2, logit_bias: {} })).choices).toHaveLength(1);
        });
      }

      it('exposes the request id and a JSON content type', async () => {
        const { data, response, request_id } = await oa.chat.completions.create({ model: chat, messages: user('Hi'), max_tokens: 2 }).withResponse();
        expect(request_id).toMatch(/^req_/);
        expect(response.headers.get('x-request-id')).toBe(request_id);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(typeof data).toBe('object');
      });
    });

    describe('chat completion streams', () => {
      it('streams chunks: role first, one finish, same id, no usage unless asked', async () => {
        const stream = await oa.chat.completions.create({ model: chat, messages: user('Stream please.'), max_tokens: 8, stream: true });
        const chunks = [];
        for await (const chunk of stream) chunks.push(chunk);
        expect(chunks.length).toBeGreaterThan(2);
        expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
        expect(new Set(chunks.map((c) => c.created)).size).toBe(1);
        for (const c of chunks) {
          expect(c.object).toBe('chat.completion.chunk');
          expect(c.usage ?? null).toBeNull();
        }
        expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
        const finishes = chunks.filter((c) => c.choices[0]?.finish_reason);
        expect(finishes).toHaveLength(1);
        expect(chunks.at(-1)).toBe(finishes[0]);
        expect(finishes[0]!.choices[0]!.finish_reason).toBe('length');
        const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
        const whole = await oa.chat.completions.create({ model: chat, messages: user('Stream please.'), max_tokens: 8 });
        expect(text).toBe(whole.choices[0]!.message.content);
      });

      it('ends with a usage chunk when stream_options.include_usage is set', async () => {
        const stream = await oa.chat.completions.create({
          model: chat,
          messages: user('Count tokens.'),
          max_tokens: 5,
          stream: true,
          stream_options: { include_usage: true },
        });
        const chunks = [];
        for await (const chunk of stream) chunks.push(chunk);
        const last = chunks.at(-1)!;
        expect(last.choices).toEqual([]);
        expect(last.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: 5, total_tokens: last.usage!.prompt_tokens + 5, prompt_tokens_details: { cached_tokens: expect.any(Number) } });
        for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
      });

      it('uses SSE framing without event lines and ends with [DONE]', async () => {
        const response = await oa.chat.completions.create({ model: chat, messages: user('Raw'), max_tokens: 3, stream: true }).asResponse();
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const body = await response.clone().text();
        expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
        for (const line of body.split('\n').filter(Boolean)) expect(line.startsWith('data: ')).toBe(true);
        const events = await readSSE(response);
        expect(events.every((e) => e.event === null)).toBe(true);
      });

      it('resolves the stream helper with the concatenated content', async () => {
        const runner = oa.chat.completions.stream({ model: chat, messages: user('Helper'), max_tokens: 6 });
        let deltas = '';
        runner.on('content', (delta) => (deltas += delta));
        const final = await runner.finalChatCompletion();
        expect(final.choices[0]!.message.content).toBe(deltas);
        expect(final.choices[0]!.finish_reason).toBe('length');
      });

      it('reports a failure after the first byte in-band, as an APIError without a status, and does not retry', async () => {
        const retrying = h.openai({ maxRetries: 2 });
        const before = h.seen.length;
        const stream = await retrying.chat.completions.create({ model: chat, messages: user(`Go ${FAULTS.midstream}`), max_tokens: 20, stream: true });
        const received: string[] = [];
        const error = await (async () => {
          try {
            for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(OpenAI.APIError);
        expect((error as InstanceType<typeof OpenAI.APIError>).status).toBeUndefined();
        expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ message: expect.any(String), type: 'server_error' });
        expect(received.join('').length).toBeGreaterThan(0);
        expect(h.seen.length - before).toBe(1);
      });

      it('stops the engine when the client breaks out of the stream', async () => {
        const stream = await oa.chat.completions.create({ model: chat, messages: user('Long answer please'), max_tokens: 200, stream: true });
        for await (const chunk of stream) {
          if (chunk.choices[0]?.delta.content) break;
        }
        await expect.poll(() => calls.at(-1)?.signal.aborted).toBe(true);
        expect(calls.at(-1)!.completed).toBe(false);
        // The engine is free again: the next request is served.
        const next = await oa.chat.completions.create({ model: chat, messages: user('Again'), max_tokens: 2 });
        expect(next.choices[0]!.finish_reason).toBe('length');
      });

      it('stops the engine when the request is aborted', async () => {
        const controller = new AbortController();
        const stream = await oa.chat.completions.create(
          { model: chat, messages: user('Abort me'), max_tokens: 200, stream: true },
          { signal: controller.signal },
        );
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        controller.abort();
        // openai-node ends the iteration quietly on a user abort (older versions threw): either is fine.
        const after = await iterator.next().catch(() => ({ done: true }));
        expect(after.done).toBe(true);
        await expect.poll(() => calls.at(-1)?.signal.aborted).toBe(true);
        expect(calls.at(-1)!.completed).toBe(false);
      });
    });

    describe('embeddings', () => {
      it('asks for base64 by default and hands back float arrays of the model dimension', async () => {
        const res = await oa.embeddings.create({ model: fixture.embedModel, input: 'The cat sat.' });
        const wire = await h.seen.at(-1)!.json();
        expect(wire.encoding_format).toBe('base64');
        const vector = res.data[0]!.embedding;
        const models = await oa.models.list();
        const info = models.data.find((m) => m.id === fixture.embedModel) as unknown as { dimensions: number };
        expect(vector).toHaveLength(info.dimensions);
        expect(vector.every(Number.isFinite)).toBe(true);
        const float = await oa.embeddings.create({ model: fixture.embedModel, input: 'The cat sat.', encoding_format: 'float' });
        expect(float.data[0]!.embedding.map(Math.fround)).toEqual(vector);
      });

      it('returns base64 of little-endian float32 bytes when asked explicitly', async () => {
        const b64 = await oa.embeddings.create({ model: fixture.embedModel, input: 'Bytes', encoding_format: 'base64' });
        const float = await oa.embeddings.create({ model: fixture.embedModel, input: 'Bytes', encoding_format: 'float' });
        const text = b64.data[0]!.embedding as unknown as string;
        expect(typeof text).toBe('string');
        const bytes = Buffer.from(text, 'base64');
        const native = float.data[0]!.embedding;
        expect(bytes.byteLength).toBe(4 * native.length);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const decoded = native.map((_, i) => view.getFloat32(i * 4, true));
        expect(decoded).toEqual(native.map(Math.fround));
      });

      it('keeps input order, indices and usage for several inputs', async () => {
        const res = await oa.embeddings.create({ model: fixture.embedModel, input: ['one', 'two words', 'three more words'] });
        expect(res.object).toBe('list');
        expect(res.model).toBe(fixture.embedModel);
        expect(res.data.map((d) => [d.object, d.index])).toEqual([['embedding', 0], ['embedding', 1], ['embedding', 2]]);
        const single = await oa.embeddings.create({ model: fixture.embedModel, input: 'two words' });
        expect(res.data[1]!.embedding).toEqual(single.data[0]!.embedding);
        expect(res.usage.prompt_tokens).toBeGreaterThan(0);
        expect(res.usage.total_tokens).toBe(res.usage.prompt_tokens);
      });

      it('truncates to `dimensions` and re-normalises', async () => {
        const res = await oa.embeddings.create({ model: fixture.embedModel, input: 'Short', dimensions: 4, encoding_format: 'float' });
        const v = res.data[0]!.embedding;
        expect(v).toHaveLength(4);
        expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      });

      // Only fixtures that have such a model define this test.
      if (fixture.fixedEmbedModel) it('refuses `dimensions` on a model that cannot truncate', async () => {
        const error = await oa.embeddings.create({ model: fixture.fixedEmbedModel!, input: 'x', dimensions: 2 }).catch((e) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error.param).toBe('dimensions');
      });

      it.each([
        ['an empty string', { input: '' }, 'input'],
        ['an empty array', { input: [] }, 'input'],
        ['an unknown encoding', { input: 'x', encoding_format: 'hex' }, 'encoding_format'],
      ])('rejects %s with a 400', async (_, patch, param) => {
        const error = await oa.embeddings.create({ model: fixture.embedModel, input: 'x', ...(patch as object) }).catch((e) => e);
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error.status).toBe(400);
        expect(error.type).toBe('invalid_request_error');
        expect(error.param).toBe(param);
      });
    });

    describe('models', () => {
      it('lists, retrieves and 404s models in the OpenAI shape', async () => {
        const list = await oa.models.list();
        expect(list.data.length).toBeGreaterThan(0);
        for (const m of list.data) {
          expect(m).toMatchObject({ id: expect.any(String), object: 'model', owned_by: expect.any(String) });
          expect(Number.isInteger(m.created)).toBe(true);
        }
        expect(list.data.map((m) => m.id)).toContain(chat);
        expect((await oa.models.retrieve(chat)).id).toBe(chat);
        await expect(oa.models.retrieve('no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      });
    });

    describe('errors', () => {
      const expectError = async (promise: Promise<unknown>, cls: new (...a: never[]) => Error, status: number) => {
        const error = await promise.then(
          () => undefined,
          (e) => e,
        );
        expect(error).toBeInstanceOf(cls);
        expect(error.status).toBe(status);
        expect(error.requestID).toMatch(/^req_/);
        return error;
      };

      it('400 for an empty message list', async () => {
        const e = await expectError(oa.chat.completions.create({ model: chat, messages: [] }), OpenAI.BadRequestError, 400);
        expect(e.type).toBe('invalid_request_error');
        expect(e.param).toBe('messages');
      });

      it('404 model_not_found for an unknown model', async () => {
        const e = await expectError(oa.chat.completions.create({ model: 'gpt-nothing', messages: user('x') }), OpenAI.NotFoundError, 404);
        expect(e.code).toBe('model_not_found');
      });

      it('400 for an embedding model used for chat', async () => {
        await expectError(oa.chat.completions.create({ model: fixture.embedModel, messages: user('x') }), OpenAI.BadRequestError, 400);
      });

      it.each([
        ['max_tokens above the model limit', { max_tokens: 10_000_000 }, 'max_tokens'],
        ['max_tokens of 0', { max_tokens: 0 }, 'max_tokens'],
        ['temperature above 2', { temperature: 2.5 }, 'temperature'],
        ['top_p above 1', { top_p: 1.5 }, 'top_p'],
        ['more than one choice', { n: 2 }, 'n'],
        ['an image content part', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] }, 'messages[0].content[0].type'],
        ['stop as a number', { stop: 5 }, 'stop'],
        ['a logit_bias above 100', { logit_bias: { '5': 101 } }, 'logit_bias'],
        ['a logit_bias key that is not a token id', { logit_bias: { hello: 1 } }, 'logit_bias'],
      ])('400 for %s', async (_, patch, param) => {
        const body = { model: chat, messages: user('x'), ...(patch as object) };
        const e = await expectError(oa.chat.completions.create(body as never), OpenAI.BadRequestError, 400);
        expect(e.param).toBe(param);
      });

      it('400 for a body that is not JSON or not declared as JSON', async () => {
        const notJson = await h.fetch(`${BASE}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
        expect(notJson.status).toBe(400);
        expect((await notJson.json()).error.type).toBe('invalid_request_error');
        const wrongType = await h.fetch(`${BASE}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ model: chat, messages: user('x') }),
        });
        expect(wrongType.status).toBe(400);
        expect((await wrongType.json()).error.message).toMatch(/Content-Type/);
      });

      it('413 for a body over the size limit', async () => {
        h.close();
        const created = await fixture.create();
        h = createHarness(transport, { engine: created.engine, maxBodyBytes: 1024 });
        oa = h.openai();
        const e = await expectError(oa.chat.completions.create({ model: chat, messages: user('x'.repeat(4096)) }), OpenAI.APIError, 413);
        expect(e.error.code).toBe('request_too_large');
      });

      it('404 for an unknown path, 405 for a wrong method', async () => {
        await expectError(oa.get('/completions/nothing'), OpenAI.NotFoundError, 404);
        await expectError(oa.get('/chat/completions'), OpenAI.APIError, 405);
      });

      it('500 when the engine crashes, 503 when the model cannot load, 429 with retry-after when the queue is full', async () => {
        await expectError(oa.chat.completions.create({ model: chat, messages: user(FAULTS.crash) }), OpenAI.InternalServerError, 500);
        const unavailable = await expectError(oa.chat.completions.create({ model: chat, messages: user(FAULTS.unavailable) }), OpenAI.InternalServerError, 503);
        expect(unavailable.headers.get('x-should-retry')).toBe('false');
        const busy = await expectError(oa.embeddings.create({ model: fixture.embedModel, input: FAULTS.queueFull }), OpenAI.RateLimitError, 429);
        expect(busy.headers.get('retry-after')).toBe('0');
      });

      it('does not retry deterministic errors, and retries a full queue', async () => {
        const retrying = h.openai({ maxRetries: 2 });
        let before = h.seen.length;
        await expectError(retrying.chat.completions.create({ model: chat, messages: [] }), OpenAI.BadRequestError, 400);
        expect(h.seen.length - before).toBe(1);
        before = h.seen.length;
        await expectError(retrying.embeddings.create({ model: fixture.embedModel, input: FAULTS.queueFull }), OpenAI.RateLimitError, 429);
        const attempts = h.seen.slice(before);
        expect(attempts.map((r) => r.headers.get('x-stainless-retry-count'))).toEqual(['0', '1', '2']);
      });

      it('401 without or with a wrong key when keys are configured, 404 for a model outside the key', async () => {
        h.close();
        const created = await fixture.create();
        h = createHarness(transport, { engine: created.engine, apiKeys: ['sk-good', { key: 'sk-embed-only', models: [fixture.embedModel] }] });
        const wrong = await expectError(h.openai({ apiKey: 'sk-bad' }).models.list(), OpenAI.AuthenticationError, 401);
        expect(wrong.code).toBe('invalid_api_key');
        const none = await h.fetch(`${BASE}/models`);
        expect(none.status).toBe(401);
        expect((await h.openai({ apiKey: 'sk-good' }).models.list()).data.length).toBeGreaterThan(1);
        const limited = h.openai({ apiKey: 'sk-embed-only' });
        expect((await limited.models.list()).data.map((m) => m.id)).toEqual([fixture.embedModel]);
        await expectError(limited.chat.completions.create({ model: chat, messages: user('x') }), OpenAI.NotFoundError, 404);
        expect((await limited.embeddings.create({ model: fixture.embedModel, input: 'ok' })).data).toHaveLength(1);
      });
    });
  });
});
