/**
 * The chat path parses a body once, and only for a model that is not sent it as it came: each
 * model tried (the one asked for, then its fallbacks) is admitted the same neutral request
 * against its own limits.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, Engine, ModelInfo } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { parseChatCompletion } from '../protocol/openai/chat/parse.ts';
import { OPENAI } from '../protocol/openai/wire.ts';
import type { RemoteEngine } from '../remote/remote-engine.ts';
import { chatPath, type Served } from './chat-path.ts';

const MODELS: ModelInfo[] = [
  { id: 'broken', kind: 'chat', engine: 'test', contextWindow: 4096, maxOutputTokens: 1024, fallback: 'small' },
  { id: 'small', kind: 'chat', engine: 'test', contextWindow: 512, maxOutputTokens: 64 },
  { id: 'far', kind: 'chat', engine: 'remote', contextWindow: 0, upstream: { baseURL: 'http://up.test/v1' }, fallback: 'small' },
];

/** The chat path of one request for `body`, with what the engine was asked and how often the body was parsed. */
function pathFor(body: Record<string, unknown>, { upstreamDown = false } = {}) {
  const asked: ChatRequest[] = [];
  const engine: Engine = {
    listModels: async () => MODELS,
    async *chat(request) {
      asked.push(request);
      if (request.model === 'broken') throw new GatewayError('model_unavailable', 'Its files are missing.');
      yield { type: 'start', promptTokens: 3 };
      yield { type: 'token', text: 'hi' };
    },
    embed: async () => ({ embeddings: [], promptTokens: 0 }),
  };
  const remote = {
    speaks: (model: ModelInfo) => model.upstream !== undefined,
    async passThrough() {
      if (upstreamDown) throw new GatewayError('upstream_unreachable', 'Could not reach the upstream.');
      return new Response('{"as":"it came"}');
    },
  } as unknown as RemoteEngine;
  const request = new Request('http://local.test/v1/chat/completions', { method: 'POST', body: JSON.stringify(body) });
  const served: Served = {};
  const path = chatPath(
    {
      request,
      signal: new AbortController().signal,
      requestId: 'req_test',
      wire: OPENAI,
      engine,
      models: async () => MODELS,
      model: async (id) => MODELS.find((m) => m.id === id),
      scope: undefined,
      body: async () => body,
      rest: '',
      remoteStates: async () => new Map(),
    },
    remote,
    served,
  );
  let parses = 0;
  const parse = () => (parses++, parseChatCompletion(body));
  return { path, parse, asked, served, parses: () => parses };
}

const USER = [{ role: 'user', content: 'Hi.' }];

describe('the chat path', () => {
  it('parses the body once: its fallback is admitted the same request, with its own cap', async () => {
    const { path, parse, asked, served, parses } = pathFor({ model: 'broken', messages: USER });
    const answer = await path.generate('broken', parse);
    expect(answer.passed).toBeUndefined();
    expect(parses()).toBe(1);
    expect(asked.map((r) => [r.model, r.maxTokens])).toEqual([['broken', 1024], ['small', 64]]);
    expect(served).toMatchObject({ model: { id: 'small' }, from: { model: { id: 'broken' }, reason: 'model_unavailable' } });
  });

  it("holds the fallback to its own limits: a cap the model asked for takes, the fallback refuses", async () => {
    const { path, parse, parses } = pathFor({ model: 'broken', messages: USER, max_tokens: 100 });
    const failure = await path.generate('broken', parse).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'invalid_request', param: 'max_tokens', message: expect.stringMatching(/^max_tokens is too large: 100\. This model supports at most 64 completion tokens.*\(This was the fallback: 'broken' could not be served either/) });
    expect(parses()).toBe(1);
  });

  it('never parses a body sent as it came, and parses it once for the fallback of a server that cannot be reached', async () => {
    const through = pathFor({ model: 'far', messages: 'not even messages' });
    const answer = await through.path.generate('far', through.parse, { passThrough: { flavour: 'openai', path: '/chat/completions' } });
    expect(await answer.passed?.json()).toEqual({ as: 'it came' });
    expect(through.parses()).toBe(0);

    const down = pathFor({ model: 'far', messages: USER }, { upstreamDown: true });
    const fallback = await down.path.generate('far', down.parse, { passThrough: { flavour: 'openai', path: '/chat/completions' } });
    expect(fallback.passed).toBeUndefined();
    expect(down.parses()).toBe(1);
    expect(down.asked.map((r) => r.model)).toEqual(['small']);
  });
});
