/**
 * Message traffic of the page's MessagePorts: how chatty the product's RPC is per request. The
 * wrappers must exist before the ports do, so importing this module installs them (bench.ts
 * imports it first) and they stay for the whole run, at well under a microsecond per page-side
 * message; they count only inside `countMessages` (one diagnostic call per path, outside every
 * timed loop).
 * @module
 */

const traffic = { on: false, sent: 0, received: 0 };

function countTraffic(): void {
  const proto = MessagePort.prototype;
  const post = proto.postMessage;
  const add = proto.addEventListener;
  const remove = proto.removeEventListener;
  const wrapped = new WeakMap<object, EventListener>();
  proto.postMessage = function (this: MessagePort, ...args: Parameters<MessagePort['postMessage']>) {
    if (traffic.on) traffic.sent++;
    return post.apply(this, args as never);
  } as MessagePort['postMessage'];
  proto.addEventListener = function (this: MessagePort, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions) {
    if (type !== 'message' || typeof listener !== 'function') return add.call(this, type, listener as EventListenerOrEventListenerObject, options);
    let counted = wrapped.get(listener);
    if (!counted) {
      const inner = listener;
      counted = function (this: MessagePort, event: Event) {
        if (traffic.on) traffic.received++;
        return inner.call(this, event);
      };
      wrapped.set(listener, counted);
    }
    return add.call(this, type, counted, options);
  } as MessagePort['addEventListener'];
  proto.removeEventListener = function (this: MessagePort, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions) {
    return remove.call(this, type, ((listener && wrapped.get(listener)) ?? listener) as EventListenerOrEventListenerObject, options);
  } as MessagePort['removeEventListener'];
  // `port.onmessage = …` too (it also starts the port, as before).
  const handler = Object.getOwnPropertyDescriptor(proto, 'onmessage')!;
  const own = new WeakMap<MessagePort, unknown>();
  Object.defineProperty(proto, 'onmessage', {
    configurable: true,
    enumerable: handler.enumerable,
    get(this: MessagePort) {
      return own.has(this) ? own.get(this) : handler.get!.call(this);
    },
    set(this: MessagePort, fn: ((event: MessageEvent) => unknown) | null) {
      own.set(this, fn);
      handler.set!.call(
        this,
        typeof fn === 'function'
          ? function (this: MessagePort, event: MessageEvent) {
              if (traffic.on) traffic.received++;
              return fn.call(this, event);
            }
          : fn,
      );
    },
  });
}
countTraffic();

/** MessagePort messages the page sends and receives while `run` runs. */
export async function countMessages(run: () => Promise<unknown>): Promise<{ sent: number; received: number }> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  Object.assign(traffic, { on: true, sent: 0, received: 0 });
  await run();
  // Late messages of the call (a cancel, a proxy release) land within a few milliseconds.
  await new Promise((resolve) => setTimeout(resolve, 50));
  traffic.on = false;
  return { sent: traffic.sent, received: traffic.received };
}
