import { wrap } from 'comlink';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedAdapter } from '../../test/support/scripted-adapter.ts';
import { ScriptedEngine } from '../../test/support/scripted-engine.ts';
import type { ChatEvent, ChatRequest } from '../core/engine.ts';
import { createModelHost, type ModelHost } from '../engines/hosting/model-host.ts';
import type { CallMessage, CallReply, EngineHostApi } from '../contracts/engine-host.ts';
import { linkEngine } from './engine-link.ts';
import { createHostService } from './expose-host.ts';
import { createGateway } from '../gateway/index.ts';

/** A link to a host serving the scripted engine (a test double), over real MessageChannels. */
function linkToScripted(options: ConstructorParameters<typeof ScriptedEngine>[0] = {}) {
  const engine = new ScriptedEngine(options);
  const host = { listModels: () => engine.listModels(), chat: engine.chat.bind(engine), embed: engine.embed.bind(engine) } as unknown as ModelHost;
  const { port1, port2 } = new MessageChannel();
  const service = createHostService(host);
  service.serve(port1);
  return { engine, service, link: linkEngine(wrap<EngineHostApi>(port2)) };
}

/** Every message posted on any port while the test runs: calls one way, replies the other. */
function recordPosts() {
  const posted: unknown[] = [];
  const original = MessagePort.prototype.postMessage;
  vi.spyOn(MessagePort.prototype, 'postMessage').mockImplementation(function (this: MessagePort, message: unknown, options?: StructuredSerializeOptions) {
    posted.push(message);
    return original.call(this, message, options);
  });
  return {
    calls: () => posted.filter((m): m is CallMessage => typeof (m as CallMessage)?.type === 'string' && typeof (m as CallMessage).id === 'number'),
    replies: () => posted.filter((m): m is CallReply => typeof (m as CallReply)?.id === 'number' && !('type' in (m as object))),
  };
}

const request: ChatRequest = { model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], maxTokens: 5, stop: [] };
const signal = () => new AbortController().signal;

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe('engine link', () => {
  it('delivers a whole answer in one reply, with the same events as a stream', async () => {
    const { link } = linkToScripted();
    const streamed = await collect(link.chat(request, { signal: signal() }));
    const posts = recordPosts();
    const whole = await collect(link.chat(request, { signal: signal(), whole: true }));
    expect(whole).toEqual(streamed);
    expect(posts.calls().map((c) => c.type)).toEqual(['chat']);
    expect(posts.replies()).toHaveLength(1);
  });

  it('streams one reply per event, the end travelling with done', async () => {
    const { link } = linkToScripted();
    const posts = recordPosts();
    const events = await collect(link.chat(request, { signal: signal() }));
    expect(events.map((e) => e.type)).toEqual(['start', 'token', 'token', 'token', 'token', 'token', 'end']);
    const replies = posts.replies().map((r) => ('messages' in r ? r.messages.map((m) => m.type) : []));
    expect(replies.at(-1)).toEqual(['end', 'done']);
    expect(replies).toHaveLength(events.length);
  });

  it('cancels a generation left early exactly once, and stops it', async () => {
    const { engine, link } = linkToScripted({ tokenDelayMs: 5, answerTokens: 50 });
    const controller = new AbortController();
    const posts = recordPosts();
    let tokens = 0;
    for await (const event of link.chat({ ...request, maxTokens: 50 }, { signal: controller.signal })) {
      if (event.type === 'token' && ++tokens === 2) {
        controller.abort(); // the client leaves, and the gateway returns the iterator as well
        break;
      }
    }
    await vi.waitFor(() => expect(engine.chatCalls[0]?.aborted).toBe(true));
    expect(posts.calls().filter((c) => c.type === 'cancel')).toHaveLength(1);
  });

  it('sends no cancel for a generation that ended by itself', async () => {
    const { link } = linkToScripted();
    const posts = recordPosts();
    await collect(link.chat(request, { signal: signal() }));
    expect(posts.calls().map((c) => c.type)).toEqual(['chat']);
  });

  it('sends no cancel when the gateway stops reading at the end of a finished answer', async () => {
    const { link } = linkToScripted();
    const gateway = createGateway({ engine: link });
    const posts = recordPosts();
    const body = JSON.stringify({ model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    const response = await gateway.fetch(new Request('https://llm.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    expect((await response.json()).usage.completion_tokens).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(posts.calls().map((c) => c.type)).toEqual(['chat']);
    expect(posts.replies()).toHaveLength(1);
  });

  it('embeds in one message each way, errors crossing as typed errors', async () => {
    const { link } = linkToScripted();
    const posts = recordPosts();
    const result = await link.embed({ model: 'scripted-embed', input: ['a', 'b'] }, { signal: signal() });
    expect(result.embeddings).toHaveLength(2);
    expect(posts.calls().map((c) => c.type)).toEqual(['embed']);
    expect(posts.replies()).toHaveLength(1);
    await expect(link.embed({ model: 'nope', input: ['a'] }, { signal: signal() })).rejects.toMatchObject({ name: 'GatewayError' });
  });
});

describe('engine link: model states', () => {
  it('asks the host on every call (states change), as a control call that leaves the call port alone', async () => {
    const host = createModelHost({ adapters: [new ScriptedAdapter()] });
    const { port1, port2 } = new MessageChannel();
    createHostService(host).serve(port1);
    const link = linkEngine(wrap<EngineHostApi>(port2));
    const stateOf = async (id: string) => (await link.modelStates!()).find((s) => s.id === id)?.state;
    const posts = recordPosts();
    expect(await stateOf('scripted-chat')).toBe('available');
    await host.load('scripted-chat');
    expect(await stateOf('scripted-chat')).toBe('loaded');
    expect(posts.calls()).toEqual([]);
    link.sever('The host tab closed.');
    await expect(link.modelStates!()).rejects.toMatchObject({ code: 'engine_unavailable' });
  });

  it('fails every call in flight at once with the error failAll is given, even when the engine never answers', async () => {
    const { GatewayError } = await import('../core/errors.ts');
    // An engine that hangs, as one may once its GPU device is gone.
    const hanging = {
      listModels: async () => [],
      chat: async function* () {
        yield { type: 'token', text: 'He' } as ChatEvent;
        await new Promise(() => {});
      },
      embed: () => new Promise(() => {}),
    } as unknown as ModelHost;
    const { port1, port2 } = new MessageChannel();
    const service = createHostService(hanging);
    service.serve(port1);
    const link = linkEngine(wrap<EngineHostApi>(port2));
    const seen: ChatEvent[] = [];
    const streamed = (async () => {
      for await (const event of link.chat(request, { signal: signal() })) seen.push(event);
    })().then(() => undefined, (error: unknown) => error);
    const embedded = link.embed({ model: 'scripted-embed', input: ['x'] }, { signal: signal() }).then(() => undefined, (error: unknown) => error);
    await vi.waitFor(() => expect(seen).toHaveLength(1));
    expect(service.failAll(new GatewayError('device_lost', 'The GPU device was lost.', { retryAfter: 1 }))).toBe(2);
    for (const error of await Promise.all([streamed, embedded])) {
      expect(error).toMatchObject({ code: 'device_lost', message: 'The GPU device was lost.', retryAfter: 1 });
    }
    expect(service.failAll(new GatewayError('device_lost', 'again'))).toBe(0);
    link.sever('done');
  });
});
