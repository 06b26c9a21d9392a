/**
 * Each model's state on this device as `GET /models` shows it, in both flavours: one nested
 * `local` object beside the real APIs' fields (their SDKs ignore keys they do not know), so it
 * is never mistaken for one of theirs. Reading the states is best effort: a listing never fails,
 * or waits long, for want of them.
 * @module
 */
import type { Engine, ModelLocalState } from './engine.ts';

/** The `local` object of a model in `GET /models` and `GET /models/{id}`. */
export interface WireLocalState {
  /** `available` (not in memory), `loading`, `loaded`, or `failed` (its last load failed). */
  readonly state: ModelLocalState['state'];
  /** Its files are stored on this device, so it loads without network. */
  readonly downloaded: boolean;
  /** Bytes of its files in the browser's storage (Cache Storage). */
  readonly size_bytes: number;
  /** Present when a download of its files stopped midway: the bytes of it kept to resume (counted in `size_bytes`). */
  readonly partial_bytes?: number;
  /**
   * Present for a chat model whose engine keeps earlier requests' caches to reuse prompt
   * beginnings: this model's entries and bytes in memory, and the bound all its engine's models share.
   */
  readonly prefix_cache?: { readonly entries: number; readonly bytes: number; readonly max_bytes: number };
  /** Whether this device can run it. */
  readonly runnable: boolean;
  /** What it needs of the device for the variant it would run, e.g. `["webgpu", "shader-f16"]`; `[]` for none. */
  readonly requires: readonly string[];
  /** Present when runnable: `webgpu`, `wasm` or `cpu`. */
  readonly backend?: ModelLocalState['backend'];
  /** Why that backend, in words (`auto: the WebGPU adapter (SwiftShader) is a software one, slower than WASM`). */
  readonly backend_reason?: string;
  /**
   * Present on the `wasm` backend: the CPU engine (`runtime`), the threads it runs on, and why
   * that many (`one thread: the page is not cross-origin isolated…`).
   */
  readonly cpu?: { readonly runtime: string; readonly threads: number; readonly reason: string };
  /** Present when not runnable: why, in words. */
  readonly reason?: string;
  /** The engine's own id of the variant a load would use on this device (web-llm's `model_id`). */
  readonly variant?: string;
  /** GPU memory that variant needs, in MB (web-llm's `vram_required_MB`). */
  readonly vram_required_MB?: number;
  /** Its engine marks it fit for low-memory devices such as phones (web-llm's `low_resource_required`). */
  readonly low_resource_required?: boolean;
  /** Bytes to download in all, where known (a web-llm model: once its weight index is stored). */
  readonly download_size_bytes?: number;
  /** Where its files come from (a transformers.js model's hub repo or folder of the app), in the browser. */
  readonly source?: string;
  /** Present while `state` is `failed`: the last load's error message. */
  readonly error?: string;
  /** Present when the engine was rebuilt after its GPU device was lost (or it crashed): why and when. */
  readonly last_exit?: ModelLocalState['lastExit'];
}

/** How long a listing waits for the engine's states before answering without them. */
export const LOCAL_STATES_TIMEOUT_MS = 3000;

/** The engine's states by model id; empty when it offers none, fails, or is slower than `timeoutMs`. */
export async function readLocalStates(engine: Engine, timeoutMs = LOCAL_STATES_TIMEOUT_MS): Promise<ReadonlyMap<string, ModelLocalState>> {
  if (!engine.modelStates) return new Map();
  const states = await readWithin(() => engine.modelStates!(), timeoutMs);
  return new Map(states?.map((s) => [s.id, s]));
}

/** What `read` gives within `timeoutMs`, else undefined (also when it fails): a listing never waits long for extras. */
export async function readWithin<T>(read: () => Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs, undefined)));
  try {
    return await Promise.race([read(), late]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export function toWireLocalState(state: ModelLocalState): WireLocalState {
  return {
    state: state.state,
    downloaded: state.downloaded,
    size_bytes: state.bytesOnDisk,
    ...(state.partialBytes ? { partial_bytes: state.partialBytes } : {}),
    ...(state.prefixCache ? { prefix_cache: { entries: state.prefixCache.entries, bytes: state.prefixCache.bytes, max_bytes: state.prefixCache.maxBytes } } : {}),
    runnable: state.runnable,
    requires: state.requires ?? [],
    ...(state.backend !== undefined ? { backend: state.backend } : {}),
    ...(state.backendReason !== undefined ? { backend_reason: state.backendReason } : {}),
    ...(state.cpu !== undefined ? { cpu: { runtime: state.cpu.runtime, threads: state.cpu.threads, reason: state.cpu.reason } } : {}),
    ...(state.reason !== undefined ? { reason: state.reason } : {}),
    ...(state.variant !== undefined ? { variant: state.variant } : {}),
    ...(state.vramRequiredMB !== undefined ? { vram_required_MB: state.vramRequiredMB } : {}),
    ...(state.lowResource !== undefined ? { low_resource_required: state.lowResource } : {}),
    ...(state.downloadBytes !== undefined ? { download_size_bytes: state.downloadBytes } : {}),
    ...(state.source !== undefined ? { source: state.source } : {}),
    ...(state.error !== undefined ? { error: state.error } : {}),
    ...(state.lastExit !== undefined ? { last_exit: state.lastExit } : {}),
  };
}
