/**
 * The service worker's control channel, and whom it believes. Only the hosting tab's own channel
 * is trusted: the client that offered the current engine link may replace it (keys included), pass
 * ports to other tabs and say that its engine is gone; the same messages from any other client are
 * dropped while that host still exists, so a page cannot capture the requests, lower the keys or
 * cut everyone's calls by posting a message. Once the host has left (it said so, or its client no
 * longer exists, as after a crash), the next tab to offer a link becomes the host: that is how
 * another tab takes over. A page asking for a link of its own shows a key where keys are
 * configured. Messages are handled one at a time, in the order they arrive.
 * See docs/decisions/trusted-host-channel.md.
 * @module
 */
import { describeExit, type PageMessage, type WorkerMessage } from '../contracts/control-messages.ts';
import type { ModelInfo } from '../core/engine.ts';
import { createKeyTable, type ApiKey } from '../gateway/auth.ts';

export interface HostChannelOptions {
  /** Whether the client with this id still exists (a closed or crashed tab does not). */
  clientExists(id: string): Promise<boolean>;
  /** Posts to the window client with this id; false when there is none. */
  post(id: string, message: WorkerMessage, transfer?: Transferable[]): Promise<boolean>;
  /** Posts to every window client but `except`. */
  broadcast(message: WorkerMessage, except?: string): Promise<void>;
  /** The host's client id as last saved: a restarted service worker must still know whom to believe. */
  loadHost(): Promise<string | undefined>;
  saveHost(id: string | undefined): Promise<void>;
  /** The keys in force. */
  apiKeys(): Promise<readonly ApiKey[] | undefined>;
  /** The host offered a port to its engine worker, with its keys. */
  link(port: MessagePort, hostId: string, apiKeys: readonly ApiKey[] | undefined): void;
  /** The host told its remote models (which the service worker serves without the engine). */
  remoteModels(models: readonly ModelInfo[]): void;
  /** The host's engine worker is gone: calls over the link fail now (with `device_lost` when its GPU device went). */
  unlink(reason: string, code?: 'engine_unavailable' | 'device_lost'): void;
  /** Answers a HELLO (anyone may ask). */
  hello(port: MessagePort): void;
}

export interface HostChannel {
  /**
   * Handles one message from the window client with id `source` (null: any other sender, which is
   * never trusted). Resolves, never rejects, once the message has been handled.
   */
  receive(message: PageMessage, source: string | null): Promise<void>;
  /** Asks for a link for the service worker itself: from the host while it exists, else from every tab. */
  requestPort(): Promise<void>;
}

const CLOSED = 'The tab hosting the inference engine was closed.';
const RESTARTED = 'The tab hosting the inference engine restarted its engine; this request was cut off.';

export function createHostChannel(options: HostChannelOptions): HostChannel {
  /** The client that offered the current link; undefined: none yet, or it left. */
  let host: string | undefined;
  const loaded = options.loadHost().then(
    (id) => void (host = id),
    () => {},
  );
  let queue: Promise<void> = loaded;

  const setHost = async (id: string | undefined) => {
    if (id === host) return;
    host = id;
    await options.saveHost(id).catch(() => {});
  };
  /** The host, while its client exists. */
  const liveHost = async () => (host !== undefined && (await options.clientExists(host)) ? host : undefined);
  /** Whether `key` opens the engine: any key in force (none configured: no key needed). */
  const admits = async (key: unknown) => {
    const table = createKeyTable(await options.apiKeys());
    return table === undefined || (typeof key === 'string' && table.has(key));
  };

  async function handle(message: PageMessage, source: string | null): Promise<void> {
    switch (message?.type) {
      case 'ENGINE_PORT': {
        const { port } = message;
        if (!(port instanceof MessagePort)) return;
        if (message.for !== undefined) {
          // Passing a port on to a page: only the host's own, or a page could be linked to any
          // port a forger made.
          const passed = source !== null && source === host && (await options.post(message.for, { type: 'ENGINE_PORT', port, ...(message.hostLock ? { hostLock: message.hostLock } : {}) }, [port]));
          if (!passed) port.close();
          return;
        }
        // The host offering again, or a new host once the old one has left.
        if (source === null || (source !== host && (await liveHost()) !== undefined)) return port.close();
        await setHost(source);
        options.link(port, source, message.apiKeys);
        return;
      }
      case 'REMOTE_MODELS': {
        // Another page's list could send everyone's requests for a model to a server of its choosing.
        if (source === null || source !== host || !Array.isArray(message.models)) return;
        options.remoteModels(message.models.filter((model) => typeof model?.id === 'string' && typeof model.upstream === 'object' && model.upstream !== null));
        return;
      }
      case 'HOST_GONE': {
        if (source === null || source !== host) return;
        const cut = message.exit ? describeExit(message.exit) : undefined;
        options.unlink(cut?.reason ?? (message.staying ? RESTARTED : CLOSED), cut?.code);
        if (!message.staying) await setHost(undefined);
        await options.broadcast({ type: 'HOST_GONE', ...(message.exit ? { exit: message.exit } : {}) }, source);
        return;
      }
      case 'PAGE_PORT_REQUEST': {
        // A port reaches the engine past every key check: where keys are configured, no key, no port.
        if (source === null || !(await admits(message.apiKey))) return;
        const current = await liveHost();
        if (current !== undefined) {
          await options.post(current, { type: 'PORT_REQUEST', for: source });
          return;
        }
        // No host known (none has offered since this worker's storage was cleared): every tab is
        // asked, the host answering first for this worker's own link, which makes it known.
        await options.broadcast({ type: 'PORT_REQUEST' }, source);
        await options.broadcast({ type: 'PORT_REQUEST', for: source }, source);
        return;
      }
      case 'HELLO':
        if (message.port instanceof MessagePort) options.hello(message.port);
        return;
    }
  }

  return {
    receive(message, source) {
      queue = queue.then(() => handle(message, source)).catch(() => {});
      return queue;
    },
    async requestPort() {
      await loaded;
      const current = await liveHost();
      if (current === undefined || !(await options.post(current, { type: 'PORT_REQUEST' }))) await options.broadcast({ type: 'PORT_REQUEST' });
    },
  };
}
