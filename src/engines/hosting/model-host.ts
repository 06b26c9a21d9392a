/**
 * The model host: one Engine over several adapters. It runs one call at a time per model with a
 * bounded wait queue (overflow is a 429), merges concurrent embedding requests into batches, loads
 * models on first use, and keeps at most `maxLoaded` models in memory by unloading the least
 * recently used idle one.
 * @module
 */
import type { CallOptions, ChatEvent, ChatRequest, EmbedRequest, EmbedResult, Engine, LocalFacts, ModelInfo, ModelLocalState } from '../../core/engine.ts';
import { abortedError, GatewayError } from '../../core/errors.ts';
import { modelNotFound } from '../../core/models.ts';
import type { LoadProgress, ModelState, ModelStatus } from '../../contracts/model-progress.ts';
import type { EngineExit } from '../../contracts/control-messages.ts';
import type { EngineAdapter } from './adapter.ts';
import { createEmbedBatcher, type EmbedBatcherOptions } from './embed-batcher.ts';

export interface ModelHostOptions {
  readonly adapters: readonly EngineAdapter[];
  /**
   * Models served by other servers (`upstream` set): listed with the others, so every gateway
   * linked to this host forwards their requests; the host itself never runs them.
   */
  readonly remoteModels?: readonly ModelInfo[];
  /** Models kept loaded at once. Default 2 (one chat and one embedding model). */
  readonly maxLoaded?: number;
  /** Calls allowed to wait per model behind the running one. Default 16. */
  readonly maxQueue?: number;
  readonly onProgress?: (progress: LoadProgress) => void;
  /** Dynamic batching of concurrent embedding requests (for adapters with exact batches). */
  readonly batching?: EmbedBatcherOptions;
}

export interface ModelHost extends Engine {
  /** Loads a model ahead of its first request. */
  load(model: string): Promise<void>;
  unload(model: string): Promise<void>;
  /** Each model's status (see ModelStatus). */
  status(): ModelStatus[];
  /** Each model's state with what its adapter says of files on disk and device support. */
  modelStates(): Promise<readonly ModelLocalState[]>;
  /** How the engine before this one ended (its GPU device lost, a crash): shown in the states of the models it hit. */
  recordExit?(exit: EngineExit): void;
}

interface Slot {
  readonly adapter: EngineAdapter;
  busy: boolean;
  readonly waiting: (() => void)[];
  state: ModelState;
  loading?: Promise<void>;
  lastUsed: number;
  loads: number;
  requests: number;
  engineCalls: number;
  error?: string;
}

export function createModelHost(options: ModelHostOptions): ModelHost {
  const maxLoaded = options.maxLoaded ?? 2;
  const maxQueue = options.maxQueue ?? 16;
  const slots = new Map<string, Slot>();
  /** Each adapter's models, in adapter order; a list read at run time replaces the first one once read. */
  const listed = new Map<EngineAdapter, readonly ModelInfo[]>();
  const remoteModels = options.remoteModels ?? [];
  const newSlot = (adapter: EngineAdapter): Slot => ({ adapter, busy: false, waiting: [], state: 'available', lastUsed: 0, loads: 0, requests: 0, engineCalls: 0 });
  for (const adapter of options.adapters) {
    for (const info of adapter.models) {
      if (slots.has(info.id)) throw new Error(`Model id '${info.id}' is served by two adapters.`);
      slots.set(info.id, newSlot(adapter));
    }
    listed.set(adapter, adapter.models);
  }
  for (const info of remoteModels) {
    if (slots.has(info.id) || remoteModels.filter((m) => m.id === info.id).length > 1) throw new Error(`Model id '${info.id}' is served by two adapters.`);
  }
  const models = () => [...[...listed.values()].flat(), ...remoteModels];
  // The lists read at run time, once, on the first lookup that needs them (see EngineAdapter.listModels).
  let complete: Promise<void> | undefined;
  const completeList = () =>
    (complete ??= Promise.all(
      options.adapters.filter((adapter) => adapter.listModels).map(async (adapter) => {
        let infos: readonly ModelInfo[];
        try {
          infos = await adapter.listModels!();
        } catch (error) {
          // Its models known at once stay listed; their loads then say what failed.
          console.warn('inpage-llm: an engine could not list its models:', error);
          return;
        }
        const kept: ModelInfo[] = [];
        for (const info of infos) {
          const slot = slots.get(info.id);
          if (slot && slot.adapter !== adapter) {
            console.warn(`inpage-llm: the model id '${info.id}' is served by another engine already; the later one is not listed.`);
            continue;
          }
          if (!slot) slots.set(info.id, newSlot(adapter));
          if (!remoteModels.some((m) => m.id === info.id)) kept.push(info);
        }
        listed.set(adapter, kept);
      }),
    ).then(() => {}));
  let clock = 0;
  let previousExit: EngineExit | undefined;

  const slotOf = async (model: string): Promise<Slot> => {
    if (!slots.has(model)) await completeList();
    const slot = slots.get(model);
    if (slot) return slot;
    // Only a caller past the gateway (the engine's own API) gets here for a remote model.
    // Or a service worker from before remote models, which does not know to forward them.
    if (remoteModels.some((m) => m.id === model)) {
      throw new GatewayError(
        'invalid_request',
        `The model '${model}' runs on another server: send its requests through the gateway, which forwards them. (A service worker copied from an older version of inpage-llm does not: run \`npx inpage-llm init <public folder>\` again.)`,
        { param: 'model' },
      );
    }
    throw modelNotFound(model);
  };

  async function ensureLoaded(model: string, slot: Slot): Promise<void> {
    slot.lastUsed = ++clock;
    if (slot.state === 'loaded') return;
    if (!slot.loading) {
      await evictFor(model);
      slot.state = 'loading';
      slot.loading = slot.adapter
        .load(model, { onProgress: options.onProgress })
        .then(() => {
          slot.state = 'loaded';
          slot.loads++;
          slot.error = undefined;
        })
        .catch((error: unknown) => {
          slot.state = 'failed';
          const failure = GatewayError.from(error);
          slot.error = failure.message;
          options.onProgress?.({ status: 'error', model, message: failure.message });
          throw failure.code === 'internal' ? new GatewayError('model_unavailable', `The model '${model}' could not be loaded: ${failure.message}`) : failure;
        })
        .finally(() => (slot.loading = undefined));
    }
    await slot.loading;
  }

  /** Unloads least recently used idle models until there is room for one more. */
  async function evictFor(model: string): Promise<void> {
    if (slots.get(model)?.adapter.holdsNoMemory) return;
    const loaded = [...slots].filter(([id, s]) => id !== model && !s.adapter.holdsNoMemory && (s.state === 'loaded' || s.state === 'loading'));
    const idle = loaded.filter(([, s]) => s.state === 'loaded' && !s.busy && s.waiting.length === 0).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    // A busy model is never unloaded under its user; the bound is then exceeded until it frees up.
    for (let excess = loaded.length + 1 - maxLoaded; excess > 0 && idle.length > 0; excess--) {
      const [id, slot] = idle.shift()!;
      slot.state = 'available';
      await slot.adapter.unload(id);
    }
  }

  /** Waits for the model's turn; the returned function gives it back. */
  async function acquire(model: string, slot: Slot, signal: AbortSignal): Promise<() => void> {
    if (slot.busy) {
      if (slot.waiting.length >= maxQueue) {
        throw new GatewayError('queue_full', `Too many requests are waiting for '${model}' (${maxQueue} queued); try again shortly.`, { retryAfter: 1 });
      }
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          slot.waiting.splice(slot.waiting.indexOf(turn), 1);
          reject(abortedError('while waiting for the model'));
        };
        slot.waiting.push(turn);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    }
    slot.busy = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slot.busy = false;
      slot.waiting.shift()?.();
    };
  }

  async function run<T>(model: string, signal: AbortSignal, work: (slot: Slot) => Promise<T>): Promise<[T, () => void]> {
    const slot = await slotOf(model);
    const release = await acquire(model, slot, signal);
    try {
      // The load runs on its own: a request that stops waiting for it (its client left, or its
      // runtime's deadline passed) leaves it going, so the next request finds it further along.
      await untilAborted(ensureLoaded(model, slot), signal);
      return [await work(slot), release];
    } catch (error) {
      release();
      throw error;
    }
  }

  const embedNow = async (request: EmbedRequest, signal: AbortSignal): Promise<EmbedResult> => {
    const [result, release] = await run(request.model, signal, (slot) => {
      slot.engineCalls++;
      return slot.adapter.embed(request, { signal });
    });
    release();
    return result;
  };
  const batcher = createEmbedBatcher(embedNow, options.batching);

  return {
    async listModels() {
      await completeList();
      return models();
    },
    async *chat(request: ChatRequest, callOptions: CallOptions): AsyncGenerator<ChatEvent> {
      (await slotOf(request.model)).requests++;
      const [events, release] = await run(request.model, callOptions.signal, async (slot) => {
        slot.engineCalls++;
        return slot.adapter.chat(request, callOptions);
      });
      try {
        // Past the queue and the load: a stream may begin now, before the prompt is read.
        yield { type: 'accepted' };
        yield* events;
      } finally {
        release();
      }
    },
    async embed(request: EmbedRequest, callOptions: CallOptions): Promise<EmbedResult> {
      const slot = await slotOf(request.model);
      slot.requests++;
      if (slot.adapter.exactEmbeddingBatches) return batcher.embed(request, callOptions.signal);
      return embedNow(request, callOptions.signal);
    },
    async load(model) {
      await ensureLoaded(model, await slotOf(model));
    },
    async unload(model) {
      const slot = await slotOf(model);
      await slot.loading?.catch(() => {});
      slot.state = 'available';
      await slot.adapter.unload(model);
    },
    status() {
      return [...slots].map(([model, s]) => ({ model, state: s.state, loads: s.loads, requests: s.requests, engineCalls: s.engineCalls, ...(s.error ? { error: s.error } : {}) }));
    },
    async modelStates() {
      await completeList();
      const adapters = [...new Set([...slots.values()].map((slot) => slot.adapter))];
      // One adapter that cannot read its facts must not hide the others' models.
      const facts = new Map(await Promise.all(adapters.map(async (adapter) => [adapter, await adapter.localFacts?.().catch(() => undefined)] as const)));
      return [...slots].map(([id, slot]) => toLocalState(id, slot, facts.get(slot.adapter)?.get(id), previousExit));
    },
    recordExit(exit) {
      previousExit = exit;
    },
  };
}

/**
 * An adapter that cannot tell (no `localFacts`, or reading them failed) is taken to run its models,
 * with nothing stored: its loads then say otherwise through `state` and `error`.
 */
function toLocalState(id: string, slot: Slot, facts: LocalFacts | undefined, exit: EngineExit | undefined): ModelLocalState {
  const { downloaded = false, bytesOnDisk = 0, partialBytes, prefixCache, runnable = true, backend, backendReason, cpu, reason, requires = [], variant, vramRequiredMB, lowResource, downloadBytes, source } = facts ?? {};
  // A lost GPU device concerns the models that run on the GPU; a crash, every model.
  const hit = exit && (exit.reason === 'crashed' || requires.includes('webgpu') || backend === 'webgpu');
  return {
    id,
    state: slot.state,
    downloaded,
    bytesOnDisk,
    ...(partialBytes ? { partialBytes } : {}),
    ...(prefixCache ? { prefixCache } : {}),
    runnable,
    requires,
    ...(backend ? { backend } : {}),
    ...(backendReason ? { backendReason } : {}),
    ...(cpu ? { cpu } : {}),
    ...(reason ? { reason } : {}),
    ...(variant !== undefined ? { variant } : {}),
    ...(vramRequiredMB !== undefined ? { vramRequiredMB } : {}),
    ...(lowResource !== undefined ? { lowResource } : {}),
    ...(downloadBytes !== undefined ? { downloadBytes } : {}),
    ...(source !== undefined ? { source } : {}),
    ...(slot.state === 'failed' && slot.error ? { error: slot.error } : {}),
    ...(hit ? { lastExit: exit } : {}),
  };
}

/** `work`, or an aborted error as soon as `signal` fires; `work` itself goes on (its failure then unobserved). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortedError('while its model was loading'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(abortedError('while its model was loading'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
