/**
 * Anthropic's `POST /messages/count_tokens` with the official `@anthropic-ai/sdk` client
 * (`messages.countTokens`), through the SDK's `fetch` option and through msw/node, for every
 * engine fixture: the count is the whole prompt that `messages.create` then reports for the same
 * request (same model, system prompt, tools and messages), since both read the prompt the
 * model's own template makes: its `input_tokens` plus what it read from the prefix cache
 * (`cache_read_input_tokens`), as Anthropic counts them. What the endpoint refuses, it refuses in
 * Anthropic's error shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../src/core/engine.ts';
import { ENGINE_FIXTURES } from '../support/engines.ts';
import { BASE, createHarness, TRANSPORTS, type Harness } from '../support/harness.ts';

/** The whole prompt a message's usage reports: Anthropic counts cached input apart from `input_tokens`. */
const promptOf = ({ usage }: Anthropic.Message) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);

const TOOLS: Anthropic.Tool[] = [
  {
    name: 'get_weather',
    description: 'The forecast for a city.',
    input_schema: {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
      required: ['city', 'days'],
      additionalProperties: false,
    },
  },
];
const HEADERS = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };

/** What each fixture's chat model can do, known before the tests are collected. */
const INFO = new Map<string, ModelInfo>(
  await Promise.all(ENGINE_FIXTURES.map(async (f) => [f.name, (await (await f.create()).engine.listModels()).find((m) => m.id === f.chatModel)!] as const)),
);

describe.each(ENGINE_FIXTURES)('count_tokens on $name', (fixture) => {
  const info = INFO.get(fixture.name)!;
  const model = fixture.chatModel;
  describe.each(TRANSPORTS)('via %s', (transport) => {
    let h: Harness;
    let an: Anthropic;
    beforeEach(async () => {
      h = createHarness(transport, { engine: (await fixture.create()).engine });
      an = h.anthropic();
    });
    afterEach(() => h.close());

    it.each([
      ['a plain prompt', { messages: [{ role: 'user', content: 'Hello there.' }] }],
      ['a system prompt', { system: 'You are terse and precise.', messages: [{ role: 'user', content: 'Hello there.' }] }],
      [
        'several turns and text blocks',
        {
          system: [{ type: 'text', text: 'Be brief.' }],
          messages: [
            { role: 'user', content: 'My name is Ada.' },
            { role: 'assistant', content: 'Hello Ada.' },
            { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: 'my name?' }] },
          ],
        },
      ],
    ] as [string, Omit<Anthropic.MessageCountTokensParams, 'model'>][])('equals the input_tokens that messages.create reports, for %s', async (_, request) => {
      const counted = await an.messages.countTokens({ model, ...request });
      expect(new URL(h.seen.at(-1)!.url).pathname).toBe('/v1/messages/count_tokens');
      expect(Object.keys(counted)).toEqual(['input_tokens']);
      expect(counted.input_tokens).toBeGreaterThan(0);
      const created = await an.messages.create({ model, max_tokens: 4, ...request } as Anthropic.MessageCreateParamsNonStreaming);
      expect(counted.input_tokens).toBe(promptOf(created));
    });

    it('a system prompt counts: more tokens with one than without', async () => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hello there.' }];
      const plain = await an.messages.countTokens({ model, messages });
      const withSystem = await an.messages.countTokens({ model, messages, system: 'You are terse and precise.' });
      expect(withSystem.input_tokens).toBeGreaterThan(plain.input_tokens);
    });

    it(`with tools: ${info.toolCalling ? 'the tool definitions count, and the total equals messages.create' : 'the same 400 as messages.create, since the model has no tools'}`, async () => {
      const request = { model, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], tools: TOOLS, tool_choice: { type: 'auto' as const } };
      if (!info.toolCalling) {
        const counted = await an.messages.countTokens(request).catch((e: unknown) => e);
        const created = await an.messages.create({ ...request, max_tokens: 4 }).catch((e: unknown) => e);
        for (const error of [counted, created]) {
          expect(error).toBeInstanceOf(Anthropic.BadRequestError);
          expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
        }
        return;
      }
      const counted = await an.messages.countTokens(request);
      const plain = await an.messages.countTokens({ model, messages: request.messages });
      expect(counted.input_tokens).toBeGreaterThan(plain.input_tokens);
      const created = await an.messages.create({ ...request, max_tokens: 4 });
      expect(counted.input_tokens).toBe(promptOf(created));
      // A tool round trip's history counts too.
      const history: Anthropic.MessageParam[] = [
        ...request.messages,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', days: 2 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny, 21 degrees.' }] },
      ];
      const roundTrip = await an.messages.countTokens({ ...request, messages: history });
      expect(roundTrip.input_tokens).toBeGreaterThan(counted.input_tokens);
      expect(roundTrip.input_tokens).toBe(promptOf(await an.messages.create({ ...request, messages: history, max_tokens: 4 })));
    });

    describe('errors, in the Anthropic shape', () => {
      it('400 invalid_request_error without messages', async () => {
        const error = await an.messages.countTokens({ model } as Anthropic.MessageCountTokensParams).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Anthropic.BadRequestError);
        const body = (error as InstanceType<typeof Anthropic.BadRequestError>).error as { type: string; error: { type: string; message: string } };
        expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('messages') } });
        expect((error as InstanceType<typeof Anthropic.BadRequestError>).requestID).toEqual(expect.any(String));
      });

      it('404 not_found_error for an unknown model', async () => {
        const error = await an.messages.countTokens({ model: 'claude-nothing', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Anthropic.NotFoundError);
        expect((error as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('claude-nothing') } });
      });

      it.each([
        ['an empty message list', { model, messages: [] }],
        ['a missing model', { messages: [{ role: 'user', content: 'x' }] }],
        ['a message with an unknown role', { model, messages: [{ role: 'robot', content: 'x' }] }],
        ['a body that is not an object', [1, 2]],
      ])('400 for %s, with the error shape on the wire', async (_, body) => {
        const response = await h.fetch(`${BASE}/messages/count_tokens`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
        expect(response.status).toBe(400);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const json = (await response.json()) as Record<string, unknown>;
        expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.any(String) } });
        expect(Object.keys(json.error as object).sort()).toEqual(['message', 'type']);
      });

      it('405 for GET, which the endpoint does not serve', async () => {
        const response = await h.fetch(`${BASE}/messages/count_tokens`, { headers: HEADERS });
        expect(response.status).toBe(405);
        expect(await response.json()).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
      });
    });
  });
});
