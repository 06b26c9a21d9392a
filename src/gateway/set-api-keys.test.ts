/**
 * A change of API keys (a host page offering others to the service worker) changes the gateway's
 * key table, not the gateway: what it has learnt of its remote servers, their health and the
 * requests in flight to them, is kept. The upstream is the scripted one (test/support): a real
 * server cannot be made to fail a request and pass a health check on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, ModelInfo } from '../core/engine.ts';
import { startScriptedUpstream, type ScriptedUpstream } from '../../test/support/scripted-upstream.ts';
import { createGateway } from './index.ts';

const BASE = 'http://app.local/v1';

let upstream: ScriptedUpstream;
beforeAll(async () => {
  upstream = await startScriptedUpstream();
});
afterAll(async () => {
  await upstream?.close();
});

/** An engine with one remote model on the scripted upstream (a remote model never reaches the engine). */
function remoteOnly(): Engine {
  const model: ModelInfo = { id: 'far', kind: 'chat', engine: 'remote', contextWindow: 4096, upstream: { baseURL: upstream.url, model: 'scripted-model' } };
  return {
    listModels: async () => [model],
    chat: () => {
      throw new Error('A remote model reached the engine.');
    },
    embed: () => {
      throw new Error('A remote model reached the engine.');
    },
  };
}

type Listed = { id: string; remote: { upstreams: { state: string; in_flight: number; last_error?: string }[] } };

describe('setApiKeys', () => {
  it('changes who is let in, and nothing the gateway learnt of its remote servers', async () => {
    const gateway = createGateway({ engine: remoteOnly(), baseUrl: BASE, apiKeys: ['sk-old-key-0001'] });
    const call = (key: string, path: string, body?: unknown) =>
      gateway.fetch(new Request(`${BASE}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined }));
    const upstreamOf = async (key: string) => ((await (await call(key, '/models')).json()) as { data: Listed[] }).data.find((m) => m.id === 'far')!.remote.upstreams[0]!;

    // A long stream, in flight across the change.
    upstream.reply = () => ({ chunks: Array.from({ length: 30 }, (_, i) => ` w${i}`), chunkDelayMs: 100 });
    const streaming = await call('sk-old-key-0001', '/chat/completions', { model: 'far', stream: true, messages: [{ role: 'user', content: 'Go.' }] });
    expect(streaming.status).toBe(200);
    // Then the server answers 503 (what a proxy says of a server behind it that is down): marked down.
    upstream.reply = () => ({ status: 503, body: 'no replicas' });
    expect((await call('sk-old-key-0001', '/chat/completions', { model: 'far', messages: [{ role: 'user', content: 'Hi.' }] })).status).toBe(503);
    const before = await upstreamOf('sk-old-key-0001');
    expect(before).toMatchObject({ state: 'down', in_flight: 1, last_error: 'answered 503 Service Unavailable' });

    gateway.setApiKeys(['sk-new-key-0002']);
    expect((await call('sk-old-key-0001', '/models')).status).toBe(401);
    // Within the health check's 5 s, a fresh pool would have probed the server (which is up for
    // probes) and known of no request in flight: the one that made it down is still in force.
    expect(await upstreamOf('sk-new-key-0002')).toEqual(before);

    // The stream begun under the old keys runs to its end.
    const text = await streaming.text();
    expect(text).toContain(' w29');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect((await upstreamOf('sk-new-key-0002')).in_flight).toBe(0);

    gateway.setApiKeys(undefined);
    expect((await call('anything', '/models')).status).toBe(200);
  });
});
