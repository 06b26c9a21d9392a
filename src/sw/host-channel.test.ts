import { describe, expect, it, vi } from 'vitest';
import type { PageMessage, WorkerMessage } from '../contracts/control-messages.ts';
import type { ApiKey } from '../gateway/auth.ts';
import { createHostChannel } from './host-channel.ts';

interface Setup {
  /** The host id a restarted worker finds in storage. */
  readonly stored?: string;
  readonly keys?: readonly ApiKey[];
  /** How long `clientExists` takes (a real `clients.get` is asynchronous). */
  readonly lookupMs?: number;
}

/** A channel over fake clients: tabs `tab-1`…`tab-3` exist until removed from `clients`. */
function setup({ stored, keys, lookupMs = 0 }: Setup = {}) {
  const clients = new Set(['tab-1', 'tab-2', 'tab-3']);
  const posted: { to: string; message: WorkerMessage }[] = [];
  const broadcasts: { message: WorkerMessage; except?: string }[] = [];
  const links: { hostId: string; apiKeys: readonly ApiKey[] | undefined }[] = [];
  const unlinks: string[] = [];
  const unlinkCodes: (string | undefined)[] = [];
  const hellos: string[] = [];
  const remote: string[][] = [];
  const state = { saved: stored, keys };
  const channel = createHostChannel({
    async clientExists(id) {
      await new Promise((resolve) => setTimeout(resolve, lookupMs));
      return clients.has(id);
    },
    async post(id, message) {
      if (!clients.has(id)) return false;
      posted.push({ to: id, message });
      return true;
    },
    broadcast: async (message, except) => void broadcasts.push({ message, ...(except ? { except } : {}) }),
    loadHost: async () => stored,
    saveHost: async (id) => void (state.saved = id),
    apiKeys: async () => state.keys,
    link(port, hostId, apiKeys) {
      links.push({ hostId, apiKeys });
      state.keys = apiKeys;
      port.close();
    },
    remoteModels: (models) => void remote.push(models.map((model) => model.id)),
    unlink(reason, code) {
      unlinks.push(reason);
      unlinkCodes.push(code);
    },
    hello(port) {
      hellos.push(`after ${links.length} links`);
      port.close();
    },
  });
  return { channel, clients, posted, broadcasts, links, unlinks, unlinkCodes, hellos, remote, state };
}

/** A port as a page would offer it, with its `close` watched (a dropped offer is closed). */
function port() {
  const { port1, port2 } = new MessageChannel();
  port1.close();
  return Object.assign(port2, { closed: vi.spyOn(port2, 'close') });
}

const offer = (p: MessagePort, apiKeys?: readonly ApiKey[], extra: { for?: string; hostLock?: string } = {}): PageMessage => ({ type: 'ENGINE_PORT', port: p, build: 'test', ...(apiKeys ? { apiKeys } : {}), ...extra });

describe('createHostChannel', () => {
  it("takes the host's remote models, and no other page's, while that host exists", async () => {
    const s = setup();
    const model = (id: string) => ({ id, kind: 'chat', engine: 'remote', contextWindow: 0, upstream: { baseURL: 'https://llm.example/v1' } }) as const;
    const told = (models: readonly unknown[]): PageMessage => ({ type: 'REMOTE_MODELS', models: models as never });
    // Before any host: nobody's list is taken.
    await s.channel.receive(told([model('early')]), 'tab-2');
    await s.channel.receive(offer(port()), 'tab-1');
    await s.channel.receive(told([model('team-chat'), { id: 'local-one', kind: 'chat' }]), 'tab-1');
    await s.channel.receive(told([model('forged')]), 'tab-2');
    await s.channel.receive(told([model('forged')]), null);
    expect(s.remote).toEqual([['team-chat']]);
  });

  it('takes the first tab to offer a link as the host, with its keys, and remembers it for a restart', async () => {
    const s = setup();
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    expect(s.links).toEqual([{ hostId: 'tab-1', apiKeys: ['sk-host-key-1234'] }]);
    expect(s.state.saved).toBe('tab-1');
  });

  it('drops an offer from another tab while the host exists: the link and the keys stay the host’s', async () => {
    const s = setup();
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    const forged = port();
    await s.channel.receive(offer(forged, []), 'tab-2');
    await s.channel.receive(offer(port()), 'tab-3');
    expect(s.links).toHaveLength(1);
    expect(forged.closed).toHaveBeenCalled();
    expect(s.state.keys).toEqual(['sk-host-key-1234']);
    expect(s.state.saved).toBe('tab-1');
    // The host itself may offer again (a retry, a new service worker), and change its keys.
    await s.channel.receive(offer(port(), ['sk-other-key-5678']), 'tab-1');
    expect(s.links.at(-1)).toEqual({ hostId: 'tab-1', apiKeys: ['sk-other-key-5678'] });
  });

  it('lets another tab take over once the host’s client is gone (a closed or crashed tab sends nothing)', async () => {
    const s = setup();
    await s.channel.receive(offer(port(), ['k1-long-enough']), 'tab-1');
    s.clients.delete('tab-1');
    await s.channel.receive(offer(port(), ['k2-long-enough']), 'tab-2');
    expect(s.links.at(-1)).toEqual({ hostId: 'tab-2', apiKeys: ['k2-long-enough'] });
    expect(s.state.saved).toBe('tab-2');
    // And now the new host is the one believed.
    await s.channel.receive(offer(port(), []), 'tab-3');
    expect(s.links).toHaveLength(2);
  });

  it('believes the host remembered across a restart: a forger cannot answer the restarted worker’s request first', async () => {
    const s = setup({ stored: 'tab-1', keys: ['sk-host-key-1234'] });
    await s.channel.requestPort();
    expect(s.posted).toEqual([{ to: 'tab-1', message: { type: 'PORT_REQUEST' } }]);
    expect(s.broadcasts).toEqual([]);
    await s.channel.receive(offer(port(), []), 'tab-2');
    expect(s.links).toEqual([]);
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    expect(s.links).toEqual([{ hostId: 'tab-1', apiKeys: ['sk-host-key-1234'] }]);
  });

  it('asks every tab for a link when the host is gone or unknown', async () => {
    const s = setup({ stored: 'tab-1' });
    s.clients.delete('tab-1');
    await s.channel.requestPort();
    expect(s.posted).toEqual([]);
    expect(s.broadcasts).toEqual([{ message: { type: 'PORT_REQUEST' } }]);
  });

  it('ignores HOST_GONE from any tab but the host; from the host it cuts the link, tells the others, and frees the place', async () => {
    const s = setup();
    await s.channel.receive(offer(port()), 'tab-1');
    await s.channel.receive({ type: 'HOST_GONE' }, 'tab-2');
    expect(s.unlinks).toEqual([]);
    expect(s.broadcasts).toEqual([]);
    await s.channel.receive({ type: 'HOST_GONE' }, 'tab-1');
    expect(s.unlinks).toEqual(['The tab hosting the inference engine was closed.']);
    expect(s.broadcasts).toEqual([{ message: { type: 'HOST_GONE' }, except: 'tab-1' }]);
    expect(s.state.saved).toBeUndefined();
    // The host stopped hosting but its tab is still open: the next tab in line takes over.
    await s.channel.receive(offer(port(), ['k-new-host']), 'tab-2');
    expect(s.links.at(-1)).toEqual({ hostId: 'tab-2', apiKeys: ['k-new-host'] });
  });

  it('keeps the host’s place through an engine restart (HOST_GONE with staying)', async () => {
    const s = setup();
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    await s.channel.receive({ type: 'HOST_GONE', staying: true }, 'tab-1');
    expect(s.unlinks).toEqual(['The tab hosting the inference engine restarted its engine; this request was cut off.']);
    await s.channel.receive(offer(port(), []), 'tab-2');
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    expect(s.links.map((l) => l.hostId)).toEqual(['tab-1', 'tab-1']);
    expect(s.state.keys).toEqual(['sk-host-key-1234']);
  });

  it('cuts calls with device_lost, and tells the other tabs why, when the host’s engine lost its GPU device', async () => {
    const s = setup();
    await s.channel.receive(offer(port()), 'tab-1');
    const exit = { reason: 'device_lost', message: 'The GPU device was lost (unknown).', at: '2026-11-23T00:00:00.000Z' } as const;
    await s.channel.receive({ type: 'HOST_GONE', staying: true, exit }, 'tab-1');
    expect(s.unlinks).toEqual(['The GPU device was lost (unknown). The engine is being rebuilt: retry the request.']);
    expect(s.unlinkCodes).toEqual(['device_lost']);
    expect(s.broadcasts).toEqual([{ message: { type: 'HOST_GONE', exit }, except: 'tab-1' }]);
  });

  it('passes a port on to a page only from the host', async () => {
    const s = setup();
    await s.channel.receive(offer(port()), 'tab-1');
    const forged = port();
    await s.channel.receive(offer(forged, undefined, { for: 'tab-3' }), 'tab-2');
    expect(forged.closed).toHaveBeenCalled();
    expect(s.posted).toEqual([]);
    const real = port();
    await s.channel.receive(offer(real, undefined, { for: 'tab-3', hostLock: 'lock-1' }), 'tab-1');
    expect(s.posted).toEqual([{ to: 'tab-3', message: { type: 'ENGINE_PORT', port: real, hostLock: 'lock-1' } }]);
    expect(real.closed).not.toHaveBeenCalled();
    // A page that has gone meanwhile: the port is closed, not leaked.
    const late = port();
    s.clients.delete('tab-3');
    await s.channel.receive(offer(late, undefined, { for: 'tab-3' }), 'tab-1');
    expect(late.closed).toHaveBeenCalled();
  });

  it('with keys configured, asks the host for a page’s link only when the page shows one of them', async () => {
    const s = setup();
    await s.channel.receive(offer(port(), ['sk-full-access-0001', { key: 'sk-embed-only-0002', models: ['tiny-embed'] }]), 'tab-1');
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST' }, 'tab-2');
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST', apiKey: 'sk-wrong-0003' }, 'tab-2');
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST', apiKey: '' }, 'tab-2');
    expect(s.posted).toEqual([]);
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST', apiKey: 'sk-embed-only-0002' }, 'tab-2');
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST', apiKey: 'sk-full-access-0001' }, 'tab-3');
    // Only the host is asked: no other tab learns the page's id, or gets to answer.
    expect(s.posted).toEqual([
      { to: 'tab-1', message: { type: 'PORT_REQUEST', for: 'tab-2' } },
      { to: 'tab-1', message: { type: 'PORT_REQUEST', for: 'tab-3' } },
    ]);
    expect(s.broadcasts).toEqual([]);
  });

  it('without keys, any page gets a link; with no host known, every tab is asked, for the worker’s link first', async () => {
    const s = setup();
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST' }, 'tab-2');
    expect(s.broadcasts).toEqual([
      { message: { type: 'PORT_REQUEST' }, except: 'tab-2' },
      { message: { type: 'PORT_REQUEST', for: 'tab-2' }, except: 'tab-2' },
    ]);
  });

  it('never believes a sender that is not a tab, even with no host', async () => {
    const s = setup();
    const p = port();
    await s.channel.receive(offer(p, []), null);
    await s.channel.receive({ type: 'PAGE_PORT_REQUEST' }, null);
    expect(s.links).toEqual([]);
    expect(p.closed).toHaveBeenCalled();
    expect(s.broadcasts).toEqual([]);
  });

  it('handles messages in arrival order: a HELLO after a dropped offer is answered once the offer is settled', async () => {
    const s = setup({ lookupMs: 30 });
    await s.channel.receive(offer(port(), ['sk-host-key-1234']), 'tab-1');
    const forged = port();
    const dropped = s.channel.receive(offer(forged, []), 'tab-2');
    const hello = s.channel.receive({ type: 'HELLO', port: port() }, 'tab-2');
    await hello;
    // The forged offer needed a slow lookup of the host; the HELLO still waited for it.
    expect(forged.closed).toHaveBeenCalled();
    expect(s.hellos).toEqual(['after 1 links']);
    await dropped;
  });

  it('survives malformed messages and a failing store', async () => {
    const s = setup();
    for (const message of [null, 'ENGINE_PORT', { type: 'ENGINE_PORT' }, { type: 'ENGINE_PORT', port: {} }, { type: 'HELLO', port: 'x' }, { type: 'NOPE' }]) {
      await expect(s.channel.receive(message as PageMessage, 'tab-1')).resolves.toBeUndefined();
    }
    expect(s.links).toEqual([]);
    const link = vi.fn();
    const failing = createHostChannel({
      clientExists: async () => true,
      post: async () => true,
      broadcast: async () => {},
      loadHost: () => Promise.reject(new Error('storage unavailable')),
      saveHost: () => Promise.reject(new Error('storage unavailable')),
      apiKeys: async () => undefined,
      link,
      remoteModels: () => {},
      unlink: () => {},
      hello: () => {},
    });
    await failing.receive(offer(port()), 'tab-1');
    await failing.receive(offer(port()), 'tab-2');
    // The failed save did not lose the host: the second tab was refused.
    expect(link.mock.calls.map((call) => call[1])).toEqual(['tab-1']);
  });
});
