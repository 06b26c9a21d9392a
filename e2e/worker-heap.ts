/**
 * The JS heap of a page's workers, measured over the Chrome DevTools Protocol after a full garbage
 * collection. Playwright opens CDP sessions on pages only, so the page's session attaches to its
 * worker targets (the engine worker, the service worker) and talks to them through
 * `Target.sendMessageToTarget`. `performance.memory` is not exposed in workers, and
 * `measureUserAgentSpecificMemory` needs cross-origin isolation, which the test server lacks.
 */
import type { BrowserContext, CDPSession, Page } from '@playwright/test';

/** `Runtime.getHeapUsage`: bytes used and allocated by the V8 heap (wasm memory is not part of it). */
export interface HeapUsage {
  readonly usedSize: number;
  readonly totalSize: number;
}

interface Target {
  readonly sessionId: string;
  readonly type: string;
  readonly url: string;
}

export class WorkerHeaps {
  readonly #cdp: CDPSession;
  readonly #targets: Target[] = [];
  readonly #pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  #nextId = 1;

  private constructor(cdp: CDPSession) {
    this.#cdp = cdp;
  }

  static async attach(context: BrowserContext, page: Page): Promise<WorkerHeaps> {
    const heaps = new WorkerHeaps(await context.newCDPSession(page));
    const cdp = heaps.#cdp;
    cdp.on('Target.attachedToTarget', (event) => heaps.#targets.push({ sessionId: event.sessionId, type: event.targetInfo.type, url: event.targetInfo.url }));
    cdp.on('Target.detachedFromTarget', (event) => {
      const i = heaps.#targets.findIndex((t) => t.sessionId === event.sessionId);
      if (i >= 0) heaps.#targets.splice(i, 1);
    });
    cdp.on('Target.receivedMessageFromTarget', (event) => {
      const message = JSON.parse(event.message) as { id?: number; result?: unknown; error?: unknown };
      if (message.id !== undefined) heaps.#pending.get(message.id)?.(message);
    });
    // Not flattened: the worker sessions are then reached through this page session's own messages.
    await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
    return heaps;
  }

  /** Attached targets of a type (`worker` for dedicated workers, `service_worker`). */
  targets(type: string): readonly Target[] {
    return this.#targets.filter((t) => t.type === type);
  }

  /** Collects garbage in the target (twice, so objects freed by finalizers go too), then reads its heap. */
  async measure(target: Target): Promise<HeapUsage> {
    await this.#call(target, 'HeapProfiler.collectGarbage');
    await this.#call(target, 'HeapProfiler.collectGarbage');
    return (await this.#call(target, 'Runtime.getHeapUsage')) as HeapUsage;
  }

  async #call(target: Target, method: string): Promise<unknown> {
    const id = this.#nextId++;
    const reply = new Promise<{ result?: unknown; error?: unknown }>((resolve) => this.#pending.set(id, resolve));
    await this.#cdp.send('Target.sendMessageToTarget', { sessionId: target.sessionId, message: JSON.stringify({ id, method }) });
    const message = await reply;
    this.#pending.delete(id);
    if (message.error) throw new Error(`${method} in ${target.url}: ${JSON.stringify(message.error)}`);
    return message.result;
  }
}
