/**
 * What an inference library adapter provides to the model host: the gateway's Engine calls plus
 * explicit load and unload, so the host can bound how many models sit in (GPU) memory.
 * @module
 */
import type { CallOptions, ChatEvent, ChatRequest, CpuEngineFacts, EmbedRequest, EmbedResult, ModelInfo, PrefixCacheFigures } from '../core/engine.ts';
import type { LoadProgress } from '../contracts/model-progress.ts';

export interface LoadOptions {
  readonly onProgress?: (progress: LoadProgress) => void;
}

/**
 * What an adapter knows of one of its models on this device, apart from the model host's own
 * state (loaded or not): whether its files are stored, and whether the device can run it.
 */
export interface LocalFacts {
  /** Its files are in the browser's storage (or, where there is none, on local disk): it loads offline. */
  readonly downloaded: boolean;
  /** Bytes of its files in the browser's storage. */
  readonly bytesOnDisk: number;
  /** Of `bytesOnDisk`, those of files whose download stopped midway (kept to resume it); absent when none. */
  readonly partialBytes?: number;
  /** What the engine keeps of earlier requests for this model (chat models of an engine with a prefix cache). */
  readonly prefixCache?: PrefixCacheFigures;
  readonly runnable: boolean;
  /** The backend a load would use here (when runnable). */
  readonly backend?: 'webgpu' | 'wasm' | 'cpu';
  /** Why that backend (e.g. `auto: the WebGPU adapter (SwiftShader) is a software one, slower than WASM`). */
  readonly backendReason?: string;
  /** On the WASM backend: the runtime, its threads, and why that many. */
  readonly cpu?: CpuEngineFacts;
  /** Why it cannot run here (when not runnable). */
  readonly reason?: string;
  /** What the variant it would run needs of the device, e.g. `webgpu`, `shader-f16`. */
  readonly requires: readonly string[];
  /** The engine's own id of the variant a load would use here (web-llm's `model_id`), where it picks one. */
  readonly variant?: string;
  /** GPU memory that variant needs, in MB, as its engine states it (web-llm's `vram_required_MB`). */
  readonly vramRequiredMB?: number;
  /** Its engine marks it fit for low-memory devices (web-llm's `low_resource_required`). */
  readonly lowResource?: boolean;
  /** Bytes of its files to download in all, where known (from its weight index once stored). */
  readonly downloadBytes?: number;
  /** Where its files come from, which names their group in the browser's caches (a transformers.js model's `source`). */
  readonly source?: string;
}

export interface EngineAdapter {
  /** The models this adapter serves that are known at once (from the catalog, or the app's own). */
  readonly models: readonly ModelInfo[];
  /**
   * Every model it serves, for an adapter whose list can only be read at run time (web-llm's, from
   * the installed package's own list): read once, when a model is first looked up that `models`
   * lacks or the whole list is asked for; it replaces `models` (whose ids it must include).
   */
  listModels?(): Promise<readonly ModelInfo[]>;
  /**
   * True when embedding texts together gives exactly the vectors of embedding them one by one
   * (and `inputTokens` is reported): then concurrent requests may be merged into one batch.
   */
  readonly exactEmbeddingBatches?: boolean;
  /**
   * Its models hold none of this app's memory (the browser's own model, kept by the browser): they
   * do not count against the model host's `maxLoaded`, and loading one unloads nothing.
   */
  readonly holdsNoMemory?: boolean;
  /** Loads a model so later calls start at once. Idempotent; throws GatewayError('model_unavailable') on failure. */
  load(model: string, options?: LoadOptions): Promise<void>;
  /** Frees the model's memory. Safe for a model that is not loaded. */
  unload(model: string): Promise<void>;
  chat(request: ChatRequest, options: CallOptions): AsyncIterable<ChatEvent>;
  embed(request: EmbedRequest, options: CallOptions): Promise<EmbedResult>;
  /**
   * Files on disk and device support of every model it serves, keyed by model id, read now (one
   * pass over its caches for all models). Adapters that cannot tell leave it out.
   */
  localFacts?(): Promise<ReadonlyMap<string, LocalFacts>>;
}
