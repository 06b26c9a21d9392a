/**
 * The official `@anthropic-ai/sdk` client against the gateway's `/messages` and `/models`, through
 * the SDK's `fetch` option and through msw/node, for every engine fixture.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_FIXTURES } from '../support/engines.ts';
import { FAULTS, type ChatCallRecord } from '../support/fault-engine.ts';
import { BASE, createHarness, readSSE, TRANSPORTS, type Harness } from '../support/harness.ts';

const user = (content: string) => [{ role: 'user' as const, content }];
const LEGACY = { headers: { 'anthropic-version': '2023-06-01' } };

describe.each(ENGINE_FIXTURES)('anthropic SDK on $name', (fixture) => {
  describe.each(TRANSPORTS)('via %s', (transport) => {
    let h: Harness;
    let an: Anthropic;
    let calls: ChatCallRecord[];
    const model = fixture.chatModel;

    beforeEach(async () => {
      const created = await fixture.create();
      calls = created.calls;
      h = createHarness(transport, { engine: created.engine });
      an = h.anthropic();
    });
    afterEach(() => h.close());

    describe('messages', () => {
      it('answers with a complete message, sent the way SDK 1.x sends it', async () => {
        const msg = await an.messages.create({ model, max_tokens: 16, messages: user('Say hi.') });
        const wire = h.seen.at(-1)!;
        expect(new URL(wire.url).pathname).toBe('/v1/messages');
        expect(wire.headers.get('anthropic-version')).toBe('2026-10-21');
        expect(wire.headers.get('authorization')).toBe('Bearer sk-ant-local');
        expect(msg.id).toMatch(/^msg_/);
        expect(msg.type).toBe('message');
        expect(msg.role).toBe('assistant');
        expect(msg.model).toBe(model);
        expect(msg.content[0]).toMatchObject({ type: 'text', text: expect.any(String) });
        expect(['end_turn', 'max_tokens']).toContain(msg.stop_reason);
        expect(msg.stop_sequence).toBeNull();
        expect(msg.usage.input_tokens).toBeGreaterThan(0);
        expect(calls.at(-1)!.tokens).toBeGreaterThanOrEqual(msg.usage.output_tokens);
        expect(msg.usage.output_tokens).toBeGreaterThan(0);
      });

      it('stops at max_tokens: 1 and accepts system as a string and as text blocks', async () => {
        const a = await an.messages.create({ model, max_tokens: 1, system: 'Be terse.', messages: user('Go on.') });
        expect(a.stop_reason).toBe('max_tokens');
        expect(a.usage.output_tokens).toBe(1);
        const b = await an.messages.create({ model, max_tokens: 1, system: [{ type: 'text', text: 'Be terse.' }], messages: user('Go on.') });
        expect(b.content).toEqual(a.content);
      });

      it('reports the stop sequence that ended the answer', async () => {
        const full = await an.messages.create({ model, max_tokens: 12, messages: user('Stop here.') });
        const text = (full.content[0] as Anthropic.TextBlock).text;
        const words = text.split(' ').filter(Boolean);
        const stop = ` ${words[2]}`;
        const cut = await an.messages.create({ model, max_tokens: 12, messages: user('Stop here.'), stop_sequences: ['never-there', stop] });
        expect(cut.stop_reason).toBe('stop_sequence');
        expect(cut.stop_sequence).toBe(stop);
        expect((cut.content[0] as Anthropic.TextBlock).text).toBe(text.slice(0, text.indexOf(stop)));
      });

      it('accepts both versions and both key headers', async () => {
        await an.messages.create({ model, max_tokens: 2, messages: user('x') }, LEGACY);
        expect(h.seen.at(-1)!.headers.get('anthropic-version')).toBe('2023-06-01');
        await an.messages.create({ model, max_tokens: 2, messages: user('x') }, { headers: { 'x-api-key': 'k', authorization: null } });
        expect(h.seen.at(-1)!.headers.get('authorization')).toBeNull();
        const viaSpecHeader = await h.fetch(`${BASE}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'vendor-version': '2023-06-01' },
          body: JSON.stringify({ model, max_tokens: 2, messages: user('x') }),
        });
        expect(viaSpecHeader.status).toBe(200);
        expect((await viaSpecHeader.json()).type).toBe('message');
      });

      it('takes temperature under 2023-06-01 and refuses it under 2026-10-21, as the real API does', async () => {
        const ok = await an.messages.create({ model, max_tokens: 2, messages: user('x'), temperature: 0 } as never, LEGACY);
        expect(ok.type).toBe('message');
        const error = await an.messages.create({ model, max_tokens: 2, messages: user('x'), temperature: 0 } as never).catch((e) => e);
        expect(error).toBeInstanceOf(Anthropic.BadRequestError);
        expect(error.error.error.message).toMatch(/temperature/);
      });
    });

    describe('message streams', () => {
      it('resolves the stream helper to the concatenated text', async () => {
        const stream = an.messages.stream({ model, max_tokens: 8, messages: user('Stream it.') });
        let text = '';
        stream.on('text', (delta) => (text += delta));
        const final = await stream.finalMessage();
        expect((final.content[0] as Anthropic.TextBlock).text).toBe(text);
        expect(await stream.finalText()).toBe(text);
        expect(final.stop_reason).toBe('max_tokens');
        expect(final.usage.output_tokens).toBe(8);
        const { response, request_id } = await stream.withResponse();
        expect(request_id).toMatch(/^req_/);
        expect(response.headers.get('request-id')).toBe(request_id);
      });

      it('sends the real event sequence with named events and no [DONE]', async () => {
        const response = await an.messages.create({ model, max_tokens: 5, messages: user('Events') , stream: true }).asResponse();
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const requestId = response.headers.get('request-id');
        expect(requestId).toMatch(/^req_/);
        const events = await readSSE(response);
        for (const e of events) expect(e.event).toBe(JSON.parse(e.data).type);
        expect(events.some((e) => e.data === '[DONE]')).toBe(false);
        const types = events.map((e) => e.event).filter((t) => t !== 'ping').join(' ');
        expect(types).toMatch(/^message_start (content_block_start (content_block_delta )+content_block_stop )+(message_delta )+message_stop$/);
        const start = JSON.parse(events[0]!.data);
        expect(start.message.content).toEqual([]);
        expect(start.message.usage.input_tokens).toBeGreaterThan(0);
        const delta = JSON.parse(events.filter((e) => e.event === 'message_delta').at(-1)!.data);
        expect(delta.usage.output_tokens).toBe(5);
        expect(delta.delta.stop_reason).toBe('max_tokens');
      });

      it('matches the non-streamed answer', async () => {
        const whole = await an.messages.create({ model, max_tokens: 10, messages: user('Same?') });
        const streamed = await an.messages.stream({ model, max_tokens: 10, messages: user('Same?') }).finalMessage();
        expect(streamed.content).toEqual(whole.content);
        expect(streamed.usage.output_tokens).toBe(whole.usage.output_tokens);
      });

      it('reports a failure after the first byte as an error event the SDK throws', async () => {
        const retrying = h.anthropic({ maxRetries: 2 });
        const before = h.seen.length;
        const stream = await retrying.messages.create({ model, max_tokens: 20, messages: user(`Go ${FAULTS.midstream}`), stream: true });
        const error = await (async () => {
          try {
            for await (const _ of stream);
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(Anthropic.APIError);
        expect((error as InstanceType<typeof Anthropic.APIError>).status).toBeUndefined();
        expect((error as { type?: string }).type).toBe('api_error');
        expect(h.seen.length - before).toBe(1);
      });

      it('stops the engine when the client aborts the stream', async () => {
        const stream = an.messages.stream({ model, max_tokens: 200, messages: user('Long answer please') });
        await new Promise<void>((resolve) => stream.on('text', () => resolve()));
        stream.abort();
        await stream.done().catch(() => {});
        await expect.poll(() => calls.at(-1)?.signal.aborted).toBe(true);
        expect(calls.at(-1)!.completed).toBe(false);
        const next = await an.messages.create({ model, max_tokens: 2, messages: user('Again') });
        expect(next.stop_reason).toBe('max_tokens');
      });
    });

    describe('models', () => {
      it('lists models in the Anthropic shape and pages through them to the end', async () => {
        const page = await an.models.list();
        expect(page.data.length).toBeGreaterThan(0);
        for (const m of page.data) {
          expect(m).toMatchObject({ type: 'model', id: expect.any(String), display_name: expect.any(String) });
          expect(Number.isFinite(Date.parse(m.created_at))).toBe(true);
        }
        const all: string[] = [];
        for await (const m of an.models.list({ limit: 1 })) all.push(m.id);
        expect(all).toEqual(page.data.map((m) => m.id));
        expect((await an.models.retrieve(model)).id).toBe(model);
        await expect(an.models.retrieve('no-such-model')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
      });

      it('answers the same path in the OpenAI shape when no version header is sent', async () => {
        const plain = await (await h.fetch(`${BASE}/models`)).json();
        expect(plain.object).toBe('list');
        expect(plain.data[0].object).toBe('model');
        const versioned = await (await h.fetch(`${BASE}/models`, { headers: { 'anthropic-version': '2023-06-01' } })).json();
        expect(versioned.has_more).toBe(false);
        expect(versioned.data[0].type).toBe('model');
      });
    });

    describe('errors', () => {
      const expectError = async (promise: Promise<unknown>, cls: new (...a: never[]) => Error, status: number, type: string) => {
        const error = await promise.then(
          () => undefined,
          (e) => e,
        );
        expect(error).toBeInstanceOf(cls);
        expect(error.status).toBe(status);
        expect(error.error.type).toBe('error');
        expect(error.error.error.type).toBe(type);
        expect(typeof error.error.request_id).toBe('string');
        expect(error.requestID).toBe(error.error.request_id);
        return error;
      };

      it('400 without max_tokens, with an empty message list, or with an image block', async () => {
        await expectError(an.post('/v1/messages', { body: { model, messages: user('x') } }), Anthropic.BadRequestError, 400, 'invalid_request_error');
        await expectError(an.messages.create({ model, max_tokens: 5, messages: [] }), Anthropic.BadRequestError, 400, 'invalid_request_error');
        const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AA==' } };
        await expectError(an.messages.create({ model, max_tokens: 5, messages: [{ role: 'user', content: [image] }] }), Anthropic.BadRequestError, 400, 'invalid_request_error');
      });

      it('400 naming the header when the version is missing or unknown', async () => {
        const missing = await expectError(
          an.messages.create({ model, max_tokens: 5, messages: user('x') }, { headers: { 'anthropic-version': null } }),
          Anthropic.BadRequestError,
          400,
          'invalid_request_error',
        );
        expect(missing.error.error.message).toMatch(/anthropic-version/);
        await expectError(
          an.messages.create({ model, max_tokens: 5, messages: user('x') }, { headers: { 'anthropic-version': '1999-01-01' } }),
          Anthropic.BadRequestError,
          400,
          'invalid_request_error',
        );
      });

      it('400 when max_tokens exceeds the model limit', async () => {
        await expectError(an.messages.create({ model, max_tokens: 10_000_000, messages: user('x') }, { timeout: 60_000 }), Anthropic.BadRequestError, 400, 'invalid_request_error');
      });

      it('404 not_found_error for an unknown model, with a hint for a base URL ending in /v1', async () => {
        await expectError(an.messages.create({ model: 'claude-nothing', max_tokens: 5, messages: user('x') }), Anthropic.NotFoundError, 404, 'not_found_error');
        const doubled = h.anthropic({ baseURL: BASE });
        const e = await expectError(doubled.messages.create({ model, max_tokens: 5, messages: user('x') }), Anthropic.NotFoundError, 404, 'not_found_error');
        expect(e.error.error.message).toMatch(/without the trailing \/v1/);
      });

      it('500, 503 and 429 in Anthropic types, and no retry of deterministic errors', async () => {
        await expectError(an.messages.create({ model, max_tokens: 5, messages: user(FAULTS.crash) }), Anthropic.InternalServerError, 500, 'api_error');
        await expectError(an.messages.create({ model, max_tokens: 5, messages: user(FAULTS.unavailable) }), Anthropic.InternalServerError, 503, 'api_error');
        await expectError(an.messages.create({ model, max_tokens: 5, messages: user(FAULTS.queueFull) }), Anthropic.RateLimitError, 429, 'rate_limit_error');
        const retrying = h.anthropic({ maxRetries: 2 });
        const before = h.seen.length;
        await expectError(retrying.messages.create({ model, max_tokens: 5, messages: [] }), Anthropic.BadRequestError, 400, 'invalid_request_error');
        expect(h.seen.length - before).toBe(1);
      });

      it('401 authentication_error without or with a wrong key, for either key header', async () => {
        h.close();
        const created = await fixture.create();
        h = createHarness(transport, { engine: created.engine, apiKeys: ['sk-ant-good'] });
        await expectError(h.anthropic({ apiKey: 'wrong' }).messages.create({ model, max_tokens: 2, messages: user('x') }), Anthropic.AuthenticationError, 401, 'authentication_error');
        const good = h.anthropic({ apiKey: 'sk-ant-good' });
        expect((await good.messages.create({ model, max_tokens: 2, messages: user('x') })).type).toBe('message');
        const legacy = await good.messages.create({ model, max_tokens: 2, messages: user('x') }, { headers: { 'x-api-key': 'sk-ant-good', authorization: null } });
        expect(legacy.type).toBe('message');
        await expectError(
          good.messages.create({ model, max_tokens: 2, messages: user('x') }, { headers: { authorization: null } }),
          Anthropic.AuthenticationError,
          401,
          'authentication_error',
        );
      });
    });
  });
});
