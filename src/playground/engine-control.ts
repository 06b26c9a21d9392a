/**
 * Model management that works from any playground tab. Only the tab hosting the engine gets load
 * progress and can call `load` / `status`, so the host relays them over a BroadcastChannel: other
 * playground tabs see the same progress bars and can ask the host to load a model.
 * (The runtime itself offers this to the hosting tab only.)
 * @module
 */
import type { Inference, LoadProgress, ModelStatus } from '../client/index.ts';

type RelayMessage =
  | { readonly type: 'progress'; readonly event: LoadProgress }
  | { readonly type: 'status?'; readonly id: string }
  | { readonly type: 'status'; readonly id: string; readonly models: readonly ModelStatus[] }
  | { readonly type: 'load'; readonly id: string; readonly model: string }
  | { readonly type: 'loaded'; readonly id: string; readonly error?: string };

export interface EngineControl {
  readonly isHost: () => boolean;
  /** Model states, from this tab's engine or the host's; null when no host answers. */
  status(): Promise<readonly ModelStatus[] | null>;
  load(model: string): Promise<void>;
  /** A fresh engine worker (frees every model's memory); host only. */
  restart(): Promise<void>;
}

const CHANNEL = 'inpage-llm:playground';
const ANSWER_MS = 1500;

/**
 * `inference` resolves once the runtime has started; `onProgress` receives this tab's own events
 * (passed in by main) and the host's relayed ones, so a panel listens in one place.
 */
export function createEngineControl(inference: Promise<Inference>, onProgress: (event: LoadProgress) => void) {
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : undefined;
  const pending = new Map<string, (message: RelayMessage) => void>();
  let host: Inference | undefined;
  void inference.then((value) => (host = value)).catch(() => {});

  channel?.addEventListener('message', (event: MessageEvent<RelayMessage>) => {
    const message = event.data;
    if (message.type === 'progress') {
      if (!host?.isHost) onProgress(message.event);
      return;
    }
    if ((message.type === 'status' || message.type === 'loaded') && pending.has(message.id)) {
      pending.get(message.id)!(message);
      pending.delete(message.id);
      return;
    }
    if (!host?.isHost) return;
    if (message.type === 'status?') {
      void host.status().then((models) => models && channel.postMessage({ type: 'status', id: message.id, models } satisfies RelayMessage));
    } else if (message.type === 'load') {
      host
        .load(message.model)
        .then(() => channel.postMessage({ type: 'loaded', id: message.id } satisfies RelayMessage))
        .catch((error: unknown) => channel.postMessage({ type: 'loaded', id: message.id, error: String(error instanceof Error ? error.message : error) } satisfies RelayMessage));
    }
  });

  const ask = (message: RelayMessage & { id: string }, timeout: number) =>
    new Promise<RelayMessage | undefined>((resolve) => {
      if (!channel) return resolve(undefined);
      pending.set(message.id, resolve);
      channel.postMessage(message);
      setTimeout(() => {
        if (pending.delete(message.id)) resolve(undefined);
      }, timeout);
    });

  const control: EngineControl = {
    isHost: () => host?.isHost ?? false,
    async status() {
      const inf = await inference;
      if (inf.isHost) return inf.status();
      const reply = await ask({ type: 'status?', id: crypto.randomUUID() }, ANSWER_MS);
      return reply?.type === 'status' ? reply.models : null;
    },
    async load(model) {
      const inf = await inference;
      if (inf.isHost) return inf.load(model);
      // Only a playground tab relays: another app's tab may host the engine, and it would not answer.
      if (!(await control.status())) throw new Error('The engine is hosted by another tab that is not a playground: load the model there, or close that tab.');
      // A large download can take many minutes: wait as long as it takes.
      const reply = await ask({ type: 'load', id: crypto.randomUUID(), model }, 24 * 3600_000);
      if (reply?.type === 'loaded' && reply.error) throw new Error(reply.error);
      if (!reply) throw new Error('No tab hosting the engine answered.');
    },
    async restart() {
      const inf = await inference;
      await inf.restartWorker();
    },
  };

  return {
    control,
    /** Main calls this for the events of this tab's engine; it also relays them. */
    relayProgress(event: LoadProgress) {
      onProgress(event);
      channel?.postMessage({ type: 'progress', event } satisfies RelayMessage);
    },
  };
}
