/**
 * What an inference library adapter provides to the model host: the gateway's Engine calls plus
 * explicit load and unload, so the host can bound how many models sit in (GPU) memory.
 * @module
 */
import type { CallOptions, ChatEvent, ChatRequest, EmbedRequest, EmbedResult, LocalFacts, ModelInfo } from '../../core/engine.ts';
import type { LoadProgress } from '../../contracts/model-progress.ts';

export interface LoadOptions {
  readonly onProgress?: (progress: LoadProgress) => void;
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
