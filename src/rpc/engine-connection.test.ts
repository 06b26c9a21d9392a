import { describe, expect, it } from 'vitest';
import { ScriptedAdapter } from '../../test/support/scripted-adapter.ts';
import type { ChatEvent, ChatRequest } from '../core/engine.ts';
import { GatewayError } from '../core/errors.ts';
import { createModelHost } from '../engines/hosting/model-host.ts';
import { createEngineConnection, type EngineConnectionOptions } from './engine-connection.ts';
import { createHostService } from './expose-host.ts';

/** A host serving the scripted adapter (a test double) over real MessageChannels: `connect()` is one offered port. */
function scriptedHost(tokenDelayMs = 0) {
  const service = createHostService(createModelHost({ adapters: [new ScriptedAdapter({ answerTokens: 6, tokenDelayMs })] }));
  return {
    connect() {
      const { port1, port2 } = new MessageChannel();
      service.serve(port1);
      return port2;
    },
  };
}

const chat: ChatRequest = { model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], maxTokens: 6, stop: [] };
const call = () => ({ signal: new AbortController().signal });

async function tokens(events: AsyncIterable<ChatEvent>): Promise<number> {
  let n = 0;
  for await (const event of events) if (event.type === 'token') n++;
  return n;
}

function connection(overrides: Partial<EngineConnectionOptions> = {}) {
  const asked: number[] = [];
  const options: EngineConnectionOptions = { requestPort: () => void asked.push(1), hostAlive: async () => true, waitMs: 200, ...overrides };
  return { connection: createEngineConnection(options), asked };
}

describe('createEngineConnection', () => {
  it('asks for a port on the first call, waits for it, then serves over it without asking again', async () => {
    const host = scriptedHost();
    const { connection: c, asked } = connection();
    expect(c.linked).toBe(false);
    const pending = c.listModels();
    expect(asked).toHaveLength(1);
    c.attach(host.connect(), 'tab-1');
    expect((await pending).map((m) => m.id)).toContain('scripted-chat');
    expect(await tokens(c.chat(chat, call()))).toBe(6);
    expect(asked).toHaveLength(1);
    expect(c.linked).toBe(true);
  });

  it('takes a port offered from inside requestPort (a page hosting the engine itself)', async () => {
    const host = scriptedHost();
    const own = createEngineConnection({ requestPort: () => own.attach(host.connect(), 'self'), hostAlive: async () => true, waitMs: 200 });
    expect(await tokens(own.chat(chat, call()))).toBe(6);
  });

  it('fails with a retryable 503 when no host offers a port in time', async () => {
    const { connection: c } = connection({ waitMs: 30 });
    const error = await c.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'engine_unavailable', retryAfter: 1 });
  });

  it('keeps the live link when the same host offers again, and replaces it (cutting calls in flight) when another does', async () => {
    const host = scriptedHost(20);
    const { connection: c } = connection();
    c.attach(host.connect(), 'tab-1');
    const running = tokens(c.chat(chat, call()));
    await new Promise((resolve) => setTimeout(resolve, 30));
    c.attach(host.connect(), 'tab-1');
    expect(await running).toBe(6);

    const cut = tokens(c.chat(chat, call())).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 30));
    c.attach(host.connect(), 'tab-2');
    expect(await cut).toMatchObject({ code: 'engine_unavailable', message: expect.stringMatching(/moved to another tab/) });
    expect(await tokens(c.chat(chat, call()))).toBe(6);
  });

  it('fails calls in flight within about a second once the host is gone (its watchdog), then asks for a new port', async () => {
    const host = scriptedHost(400); // 6 tokens take 2.4 s: the host "dies" long before the end
    let alive = true;
    const { connection: c, asked } = connection({ hostAlive: async () => alive });
    c.attach(host.connect(), 'tab-1');
    const started = performance.now();
    const cut = tokens(c.chat(chat, call())).catch((e: unknown) => e);
    alive = false;
    expect(await cut).toMatchObject({ code: 'engine_unavailable', message: expect.stringMatching(/closed/) });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(c.linked).toBe(false);
    const next = c.listModels();
    expect(asked).toHaveLength(1);
    c.attach(host.connect(), 'tab-2');
    await next;
  });

  it('detach fails calls in flight with the reason given', async () => {
    const host = scriptedHost(50);
    const { connection: c } = connection();
    c.attach(host.connect(), 'tab-1');
    const cut = tokens(c.chat(chat, call())).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    c.detach('The host restarted its engine.');
    expect(await cut).toMatchObject({ code: 'engine_unavailable', message: 'The host restarted its engine.' });
  });
});
