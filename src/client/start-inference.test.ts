/**
 * The page host's messaging, in Node: the browser parts it talks to are stood in for at their
 * edges (the service-worker container, Web Locks, the pagehide listener), while the engine worker
 * is the product's own RPC host over real MessageChannels, serving the scripted adapter (a test
 * double for inference). The browser tests run the same flows in Chromium.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ScriptedAdapter } from '../../test/support/scripted-adapter.ts';
import { createModelHost } from '../engines/hosting/model-host.ts';
import { PROTOCOL, VERSION, type EngineWorkerMessage, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import { createHostService } from '../rpc/expose-host.ts';
import { startScriptedUpstream } from '../../test/support/scripted-upstream.ts';
import { startInference } from './start-inference.ts';

/** An engine worker in this thread: the same spawn protocol, the product's host service. */
function inThreadEngineWorker(tokenDelayMs = 0) {
  const service = createHostService(createModelHost({ adapters: [new ScriptedAdapter({ answerTokens: 6, tokenDelayMs })] }));
  const created: (EventTarget & { terminated: boolean; configured?: EngineWorkerMessage })[] = [];
  const create = () => {
    const worker = Object.assign(new EventTarget(), {
      terminated: false,
      configured: undefined as EngineWorkerMessage | undefined,
      postMessage(message: EngineWorkerMessage) {
        if (message.type === 'CONNECT') service.serve(message.port);
        else worker.configured = message;
      },
      terminate() {
        worker.terminated = true;
      },
    });
    created.push(worker);
    return worker as unknown as Worker;
  };
  return { create, created, service };
}

/** What the page sees of the service worker: a container that records what is posted to it. */
class FakeContainer extends EventTarget {
  readonly posted: PageMessage[] = [];
  /** What the worker answers to the handshake (`null`: nothing, as a worker that is not ours). */
  hello: { version?: string; protocol?: number } | null = { version: VERSION, protocol: PROTOCOL };
  readonly controller = {
    scriptURL: 'https://app.test/inpage-llm-sw.js?base=%2Fv1',
    postMessage: (message: PageMessage) => {
      this.posted.push(message);
      if (message.type === 'HELLO' && this.hello) message.port.postMessage({ type: 'HELLO_REPLY', build: 'test', baseUrl: '/v1', linked: false, ...this.hello } satisfies WorkerMessage);
    },
  };
  async register() {
    return { update: async () => {} };
  }
  /** A message from the service worker to this page. */
  deliver(message: WorkerMessage) {
    this.dispatchEvent(new MessageEvent('message', { data: message }));
  }
  ofType<T extends PageMessage['type']>(type: T) {
    return this.posted.filter((m): m is Extract<PageMessage, { type: T }> => m.type === type);
  }
}

/**
 * Web Locks with one lock name, enough for the host election. Ids are Web Locks' own (they are not
 * the service worker's Client ids): `lock-other` for another tab, `lock-self` for this one.
 */
function fakeLocks(heldByAnotherTab: boolean) {
  const waiting: (() => void)[] = [];
  const locks = {
    holder: heldByAnotherTab ? 'lock-other' : (undefined as string | undefined),
    async request(_name: string, ...rest: unknown[]) {
      const callback = rest.at(-1) as (lock: object | null) => Promise<void>;
      const ifAvailable = (rest[0] as { ifAvailable?: boolean } | undefined)?.ifAvailable;
      if (locks.holder) {
        if (ifAvailable) return callback(null);
        await new Promise<void>((granted) => waiting.push(granted));
      }
      locks.holder = 'lock-self';
      await callback({});
      locks.holder = undefined;
    },
    /** The other tab went away: the browser releases its lock and grants the next in line. */
    releaseOther() {
      locks.holder = undefined;
      waiting.shift()?.();
    },
    async query() {
      return { held: locks.holder ? [{ name: 'inpage-llm:engine-host', clientId: locks.holder, mode: 'exclusive' }] : [] };
    },
  };
  return locks;
}

const CHAT = JSON.stringify({ model: 'scripted-chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 6 });
const post = (body: string) => fetch('https://app.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

let container: FakeContainer;
let locks: ReturnType<typeof fakeLocks>;
let pagehide: (() => void) | undefined;
const originalFetch = globalThis.fetch;

function stubBrowser(heldByAnotherTab: boolean) {
  container = new FakeContainer();
  locks = fakeLocks(heldByAnotherTab);
  vi.stubGlobal('navigator', { serviceWorker: container, locks });
  vi.stubGlobal('location', new URL('https://app.test/'));
  vi.stubGlobal('addEventListener', (type: string, listener: () => void) => {
    if (type === 'pagehide') pagehide = listener;
  });
}

beforeEach(() => {
  pagehide = undefined;
});
afterEach(() => {
  globalThis.fetch = originalFetch;
  vi.unstubAllGlobals();
});

describe('startInference, the service worker handshake', () => {
  it('takes a worker of the same version as up to date', async () => {
    stubBrowser(false);
    const inference = await startInference({ engineWorker: inThreadEngineWorker().create });
    expect(inference.serviceWorker).toEqual({ scriptUrl: 'https://app.test/inpage-llm-sw.js?base=%2Fv1', version: VERSION, upToDate: true });
  });

  it('reports an older copy of the same protocol with the fix, and keeps serving through it', async () => {
    stubBrowser(false);
    container.hello = { version: '0.0.1', protocol: PROTOCOL };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const inference = await startInference({ engineWorker: inThreadEngineWorker().create });
    expect(inference.serviceWorker).toMatchObject({ version: '0.0.1', upToDate: false, warning: expect.stringContaining('npx inpage-llm init') });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(`is inpage-llm 0.0.1, this page's library ${VERSION}`));
    expect((await post(CHAT)).status).toBe(200);
    warn.mockRestore();
  });

  it('fails to start with the fix when the worker speaks another protocol', async () => {
    stubBrowser(false);
    container.hello = { version: '9.0.0', protocol: PROTOCOL + 1 };
    await expect(startInference({ engineWorker: inThreadEngineWorker().create })).rejects.toThrow(/inpage-llm 9\.0\.0, which cannot serve .*npx inpage-llm init/);
  });

  it('takes a worker from before the handshake (no version) as protocol 1, and says its version is unknown', async () => {
    stubBrowser(false);
    container.hello = {};
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const inference = await startInference({ engineWorker: inThreadEngineWorker().create });
    expect(inference.serviceWorker).toMatchObject({ version: 'unknown', upToDate: false });
    warn.mockRestore();
  });
});

describe('startInference, the hosting tab', () => {
  it('offers the service worker a port, answers its own requests over its own worker, and gives ports to tabs that ask', async () => {
    stubBrowser(false);
    const worker = inThreadEngineWorker();
    const inference = await startInference({ engineWorker: worker.create });
    expect(inference.isHost).toBe(true);
    expect(container.ofType('ENGINE_PORT')).toHaveLength(1);
    expect(container.ofType('ENGINE_PORT')[0]!.for).toBeUndefined();

    const answer = await post(CHAT);
    expect((await answer.json()).usage.completion_tokens).toBe(6);
    // Answered in the page: no port was asked of the service worker for it.
    expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(0);

    container.deliver({ type: 'PORT_REQUEST', for: 'tab-2' });
    const forGuest = container.ofType('ENGINE_PORT').at(-1)!;
    expect(forGuest.for).toBe('tab-2');
    expect(forGuest.port).toBeInstanceOf(MessagePort);
    // Other tabs watch the host by its Web Locks id.
    expect(forGuest.hostLock).toBe('lock-self');

    pagehide?.();
    expect(container.posted.at(-1)).toEqual({ type: 'HOST_GONE' });
  });

  it('with inPage: false leaves its requests to the service worker', async () => {
    stubBrowser(false);
    await startInference({ engineWorker: inThreadEngineWorker().create, inPage: false });
    expect(globalThis.fetch).toBe(originalFetch);
  });
});

describe('startInference, a tab that does not host', () => {
  it('asks the service worker for a port on its first request, then answers over it; HOST_GONE cuts its calls in flight', async () => {
    stubBrowser(true);
    const hostWorker = inThreadEngineWorker(30);
    const inference = await startInference({ engineWorker: inThreadEngineWorker().create });
    expect(inference.isHost).toBe(false);
    expect(container.ofType('ENGINE_PORT')).toHaveLength(0);

    const answer = post(CHAT);
    await vi.waitFor(() => expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(1));
    // The host tab's answer, passed on by the service worker.
    const { port1, port2 } = new MessageChannel();
    hostWorker.service.serve(port1);
    container.deliver({ type: 'ENGINE_PORT', port: port2, hostLock: 'lock-other' });
    expect((await (await answer).json()).usage.completion_tokens).toBe(6);

    const streamed = await post(CHAT.replace('"max_tokens":6', '"max_tokens":6,"stream":true'));
    const reader = streamed.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? '';
    container.deliver({ type: 'HOST_GONE' });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
    expect(text).toMatch(/"code":"engine_unavailable"/);
    expect(text).not.toContain('[DONE]');
    // The next request asks for a port again.
    void post(CHAT).catch(() => {});
    await vi.waitFor(() => expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(2));
  });

  it('keeps a call that runs for seconds while the host holds its lock, and cuts it within about a second once the lock is gone (a crashed host)', async () => {
    stubBrowser(true);
    const hostWorker = inThreadEngineWorker(300); // 6 tokens take 1.8 s
    await startInference({ engineWorker: inThreadEngineWorker().create });
    const answer = post(CHAT);
    await vi.waitFor(() => expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(1));
    const connect = () => {
      const { port1, port2 } = new MessageChannel();
      hostWorker.service.serve(port1);
      return port2;
    };
    container.deliver({ type: 'ENGINE_PORT', port: connect(), hostLock: 'lock-other' });
    expect((await (await answer).json()).usage.completion_tokens).toBe(6);

    const cut = post(CHAT.replace('"max_tokens":6', '"max_tokens":6,"stream":true')).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 100));
    locks.holder = undefined; // the host's renderer died: the browser released its lock, no HOST_GONE came
    const started = performance.now();
    const text = await cut;
    expect(text).toMatch(/"code":"engine_unavailable"/);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('takes over when the host goes, and answers a call that was waiting for a port over its own new worker at once', async () => {
    stubBrowser(true);
    const ownWorker = inThreadEngineWorker();
    const inference = await startInference({ engineWorker: ownWorker.create });
    const started = performance.now();
    const answer = post(CHAT);
    await vi.waitFor(() => expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(1));
    // No port comes from the old host: it is gone, and this tab is next in line.
    locks.releaseOther();
    expect((await (await answer).json()).usage.completion_tokens).toBe(6);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(inference.isHost).toBe(true);
    expect(ownWorker.created).toHaveLength(1);
  });
});

describe('startInference, stopped while waiting in line', () => {
  it('never hosts: a lock granted after stop() is given back', async () => {
    stubBrowser(true);
    const ownWorker = inThreadEngineWorker();
    const hostChanges: boolean[] = [];
    const inference = await startInference({ engineWorker: ownWorker.create, onHostChange: (isHost) => hostChanges.push(isHost) });
    await inference.stop();
    locks.releaseOther();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inference.isHost).toBe(false);
    expect(ownWorker.created).toHaveLength(0);
    expect(hostChanges).toEqual([]);
    expect(locks.holder).toBeUndefined();
  });
});

describe("startInference, the page's remote models", () => {
  /** An engine worker that never answers: anything that waited for it would hang. */
  const silentWorker = () => Object.assign(new EventTarget(), { postMessage() {}, terminate() {} }) as unknown as Worker;
  const remote = (baseURL: string) => ({ engine: 'remote', id: 'team-chat', upstream: { baseURL, model: 'scripted-model' } }) as const;

  it('tells the service worker them from its own settings, right after its port, without asking its engine worker', async () => {
    stubBrowser(false);
    await startInference({ engineWorker: silentWorker, engine: { models: [remote('http://127.0.0.1:9/v1')] } });
    const told = container.posted.findIndex((m) => m.type === 'REMOTE_MODELS');
    expect(container.posted[told - 1]).toMatchObject({ type: 'ENGINE_PORT' });
    expect(container.ofType('REMOTE_MODELS')).toEqual([{ type: 'REMOTE_MODELS', models: [expect.objectContaining({ id: 'team-chat', engine: 'remote', upstream: expect.objectContaining({ baseURL: 'http://127.0.0.1:9/v1' }) })] }]);
  });

  it('are answered in the page with no link to any engine, in a tab that does not host', async () => {
    const upstream = await startScriptedUpstream();
    try {
      stubBrowser(true);
      await startInference({ engineWorker: silentWorker, engine: { models: [remote(upstream.url)] } });
      const answer = await post(CHAT.replace('scripted-chat', 'team-chat'));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-inpage-llm-served-by')).toBe('team-chat');
      // Nobody was asked for a port to an engine worker.
      expect(container.ofType('PAGE_PORT_REQUEST')).toHaveLength(0);
    } finally {
      await upstream.close();
    }
  });

  it('are none where the settings are refused: the engine worker then answers with why, as before', async () => {
    stubBrowser(false);
    await startInference({ engineWorker: inThreadEngineWorker().create, engine: { models: [{ ...remote('http://127.0.0.1:9/v1'), fallback: 'nope' }] } });
    expect(container.ofType('REMOTE_MODELS')).toHaveLength(0);
  });
});

describe('startInference, an engine worker that ends on its own', () => {
  it('is replaced at once when it says it lost its GPU device: calls cut off fail with device_lost, the next is served by a fresh worker told why', async () => {
    stubBrowser(false);
    const worker = inThreadEngineWorker(300);
    const exits: unknown[] = [];
    await startInference({ engineWorker: worker.create, onEngineExit: (exit) => exits.push(exit) });
    const cut = post(CHAT.replace('"max_tokens":6', '"max_tokens":6,"stream":true')).then((r) => r.text());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const exit = { reason: 'device_lost', message: 'The GPU device was lost (unknown).', at: '2026-11-23T00:00:00.000Z' } as const;
    // What the worker's own channel carries when it closes itself after a loss.
    worker.created[0]!.dispatchEvent(new MessageEvent('message', { data: { type: 'EXITING', exit } }));
    const text = await cut;
    expect(text).toMatch(/"code":"device_lost"/);
    expect(text).toContain('The GPU device was lost (unknown). The engine is being rebuilt: retry the request.');
    expect(worker.created).toHaveLength(2);
    expect(worker.created[0]!.terminated).toBe(true);
    expect(worker.created[1]!.configured).toMatchObject({ type: 'CONFIGURE', previousExit: exit });
    expect(exits).toEqual([exit]);
    expect((await (await post(CHAT)).json()).usage.completion_tokens).toBe(6);
    // Other tabs and the service worker drop their links to the old worker.
    expect(container.ofType('HOST_GONE').length).toBeGreaterThan(0);
  });

  it('ends a load waiting on the worker when the worker ends, with the reason, instead of leaving it pending', async () => {
    stubBrowser(false);
    // A worker that never answers a call: a load sent to it would wait forever.
    const silent = Object.assign(new EventTarget(), { postMessage() {}, terminate() {} });
    let spawned = 0;
    const inference = await startInference({ engineWorker: () => (spawned++ === 0 ? silent : inThreadEngineWorker().create()) as unknown as Worker });
    const load = inference.load('scripted-chat').then(() => 'loaded', (error: { code?: string; message?: string }) => `${error.code}: ${error.message}`);
    const exit = { reason: 'device_lost', message: 'The GPU device was lost (unknown).', at: '2026-11-23T00:00:00.000Z' } as const;
    silent.dispatchEvent(new MessageEvent('message', { data: { type: 'EXITING', exit } }));
    expect(await load).toBe('device_lost: The GPU device was lost (unknown). The engine is being rebuilt: retry the request.');
    // The fresh worker answers the retry.
    await inference.load('scripted-chat');
    expect(spawned).toBe(2);
  });
});
