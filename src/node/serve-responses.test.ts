/**
 * `/responses` and `/messages/count_tokens` over real HTTP from `serveGateway`: the official SDKs
 * with no `fetch` option, on the scripted engine (a test double: the endpoints' translation is
 * what is under test here; test/conformance runs them on the real tiny models).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import { serveGateway, type GatewayServer } from './index.ts';

let server: GatewayServer;
beforeAll(async () => {
  server = await serveGateway({ engine: new ScriptedEngine({ answerTokens: 8 }), port: 0 });
});
afterAll(() => server?.close());

describe('serveGateway: the Responses API and token counting over HTTP', () => {
  it('creates, streams, continues, retrieves and deletes responses with the openai client', async () => {
    const client = new OpenAI({ baseURL: server.url, apiKey: 'sk-local', maxRetries: 0 });
    const first = await client.responses.create({ model: 'scripted-chat', input: 'Say hi.', instructions: 'Be brief.' });
    expect(first).toMatchObject({ object: 'response', status: 'completed', instructions: 'Be brief.' });
    expect(first.output_text.length).toBeGreaterThan(0);

    const stream = client.responses.stream({ model: 'scripted-chat', input: 'And again.', previous_response_id: first.id });
    let deltas = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta;
    const second = await stream.finalResponse();
    expect(second.output_text).toBe(deltas);
    expect(second.previous_response_id).toBe(first.id);
    // The first turn's input and output were sent again: the prompt grew.
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens);

    expect((await client.responses.retrieve(second.id)).output_text).toBe(second.output_text);
    await client.responses.delete(second.id);
    await expect(client.responses.retrieve(second.id)).rejects.toMatchObject({ status: 404 });
  });

  it('lets a browser on another origin delete a stored response (DELETE in the preflight)', async () => {
    const preflight = await fetch(`${server.url}/responses/resp_x`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
  });

  it('counts tokens with the Anthropic client, equal to what the same request then reports', async () => {
    const client = new Anthropic({ baseURL: server.url.replace(/\/v1$/, ''), apiKey: 'sk-ant-local', maxRetries: 0 });
    const request = { model: 'scripted-chat', system: 'Be brief.', messages: [{ role: 'user' as const, content: 'Say hi, please.' }] };
    const counted = await client.messages.countTokens(request);
    const answered = await client.messages.create({ ...request, max_tokens: 4 });
    expect(counted.input_tokens).toBe(answered.usage.input_tokens);
  });
});
