/**
 * The engine worker's settings, sent by the page that starts it (`CONFIGURE`, see
 * control-messages.ts) before the first connection. Everything is optional.
 * @module
 */
import type { ReasoningFormat } from '../core/reasoning.ts';
import type { UpstreamSpec } from '../core/upstream-spec.ts';

/** transformers.js backend: `auto` (WebGPU when there is an adapter, else WASM), or one of them. */
export type DeviceOption = 'cpu' | 'wasm' | 'webgpu' | 'auto';

/** Serve web-llm weights and libraries from your own origin instead of Hugging Face and GitHub. */
export interface SelfHost {
  /** Folder holding one sub-folder per `model_id` (served under `<model_id>/resolve/main/`). */
  readonly modelBase: string;
  /** Folder holding the `.wasm` model libraries under their original file names. */
  readonly libBase: string;
}

export interface WorkerConfig {
  /** transformers.js backend: `auto` (WebGPU when there is an adapter, else WASM), `webgpu` or `wasm`. */
  readonly device?: DeviceOption;
  /** Models kept in memory at once (default 2). */
  readonly maxLoaded?: number;
  /**
   * Bytes of key/value cache kept from finished chat requests (transformers.js models), so a
   * conversation's next turn reads only its new tokens; 0 keeps none. Default: a sixteenth of the
   * device's memory, between 64 MiB and 1 GiB.
   */
  readonly prefixCacheBytes?: number;
  /**
   * A chat prompt (what the prefix cache does not hold) longer than this many tokens is read in
   * pieces of it, so one pass never holds more than a piece's logits (transformers.js models;
   * default 256). Smaller saves memory on small devices at some speed.
   */
  readonly prefillChunkTokens?: number;
  /**
   * Guess a chat answer's next tokens from its prompt (prompt lookup) and check them several a
   * forward pass (transformers.js models on the CPU path; default true: it backs off where the
   * guesses miss, and the answers are the same either way).
   */
  readonly promptLookup?: boolean;
  /** Serve web-llm models and libraries from these folders instead of their public sources. */
  readonly webllmSelfHost?: SelfHost;
  /** Where transformers.js fetches models that are not bundled (default: the Hugging Face hub). */
  readonly transformersRemoteHost?: string;
  /**
   * The URL path of the folder holding the models that ship with the app (`npx inpage-llm init
   * --models` writes the tiny ones there). Default: `models/` next to the engine worker script.
   */
  readonly localModelPath?: string;
  /** The onnxruntime-web wasm file. Default: next to the engine worker script, where `init` puts it. */
  readonly wasmUrl?: string;
  /**
   * WebAssembly threads for the CPU engine. Default: every core, at most four, where the page is
   * cross-origin isolated (see `crossOriginIsolation` in startInference); one where it is not.
   * A number bounds it by the cores.
   */
  readonly threads?: number;
  /** The app's own models, added to the catalog (an entry with a catalog model's id replaces it). */
  readonly models?: readonly ModelEntry[];
  /**
   * For any model, the catalog's included: the id of the model that serves its requests when it
   * cannot (see `ModelEntryBase.fallback`), e.g. `{ 'Qwen2.5-1.5B-Instruct': 'team-server' }`.
   */
  readonly fallbacks?: Readonly<Record<string, string>>;
}

/** A model of the app's own: on one of the in-page engines, or on another server. */
export type ModelEntry = TransformersModelEntry | WebLLMModelEntry | RemoteModelEntry;

interface ModelEntryBase {
  /** The id clients send as `model`. */
  readonly id: string;
  readonly displayName?: string;
  /** Prompt plus output tokens (default 2048 for chat, 512 for embeddings). */
  readonly contextWindow?: number;
  /**
   * The id of another model (of the same kind) that serves a request when this one cannot: its
   * load failed (no WebGPU and no WASM path, no room, a lost device, a missing file), or, for a
   * remote model, its server cannot be reached. A local model with a remote fallback prefers the
   * device; a remote one with a local fallback prefers the server. The response names the model
   * that served it in `x-inpage-llm-served-by`.
   */
  readonly fallback?: string;
}

/**
 * A model served by another server that speaks the OpenAI or Anthropic API (vLLM, SGLang, Ollama,
 * LM Studio, llama.cpp, a hosted API): requests for it are forwarded there, streams passed through
 * as they come, and translated where the server does not speak the caller's flavour. The server
 * must allow this app's origin (CORS); recipes in the README.
 */
export interface RemoteModelEntry extends ModelEntryBase {
  readonly engine: 'remote';
  /** Default `chat`. Embedding models need an upstream that speaks the OpenAI API. */
  readonly kind?: 'chat' | 'embedding';
  readonly upstream: UpstreamSpec;
  /** Chat models: the largest `max_tokens`, and what a translated request asks for when it gives none (default 4096). */
  readonly maxOutputTokens?: number;
  /** Embedding models: the vector length, shown in the models list. */
  readonly dimensions?: number;
}

/** A transformers.js (ONNX) model. */
export interface TransformersModelEntry extends ModelEntryBase {
  readonly engine: 'transformers';
  readonly kind: 'chat' | 'embedding';
  /**
   * A Hugging Face repo id (`onnx-community/...`, fetched from `transformersRemoteHost`, default
   * the hub), or a path or same-origin URL of a folder in the same layout (`config.json`,
   * `tokenizer.json`, `onnx/model*.onnx`): self-hosted next to the app.
   */
  readonly source: string;
  /** ONNX weight variant (`fp32`, `fp16`, `q8`, `q4`, ...); default: the model's own config. */
  readonly dtype?: string;
  /**
   * The variant to load on the WASM (CPU) backend, where it should differ: `q8` runs 5–7× faster
   * there than `q4` (docs/decisions/cpu-path.md). Default: `dtype`.
   */
  readonly wasmDtype?: string;
  /** Chat models: the largest `max_tokens` (default: the context window). */
  readonly maxOutputTokens?: number;
  /**
   * Chat models that think before they answer, and how they write it: Qwen3's is
   * `{ open: '<think>', close: '</think>', switch: 'enable_thinking' }`, DeepSeek-R1's
   * `{ open: '<think>', close: '</think>', startsInside: true }`. The thinking is then kept apart
   * from the answer in every API flavour. `budgets` (`{ low: 256, medium: 1024 }`) are the
   * thinking budgets in tokens `reasoning_effort` asks for (default low 1024, medium 4096, high
   * none): the model's thinking is then closed when it has taken that many tokens.
   */
  readonly reasoning?: ReasoningFormat;
  /** Embedding models: the vector length, shown in the models list. */
  readonly dimensions?: number;
  /** Embedding models: how token vectors become one vector (default `mean`). */
  readonly pooling?: 'mean' | 'cls';
  /** Embedding models: scale vectors to unit length (default true). */
  readonly normalize?: boolean;
  /**
   * What its files must be, by path in its folder: `{ "onnx/model.onnx": { bytes: 90405214,
   * integrity: "sha256-…" } }`. Each file is checked when downloaded and when read back from the
   * browser's cache (a mismatch is refused, or evicted and fetched again), and room in storage is
   * checked for the sum of `bytes` before the first download.
   */
  readonly files?: Readonly<Record<string, { readonly bytes?: number; readonly integrity?: string }>>;
}

/** A web-llm (MLC) chat model: a compiled model folder and its model library. */
export interface WebLLMModelEntry extends ModelEntryBase {
  readonly engine: 'webllm';
  readonly kind?: 'chat';
  /**
   * The model's folder, as web-llm takes it: it fetches `mlc-chat-config.json`, the tokenizer and
   * the weight shards from `<modelUrl>/resolve/main/` (as on Hugging Face), unless the URL already
   * ends in `/resolve/<revision>/`.
   */
  readonly modelUrl: string;
  /** The compiled model library for WebGPU (`...-webgpu.wasm`), a URL. */
  readonly modelLib: string;
  /** Needs the GPU's `shader-f16` feature (q4f16 and f16 builds do). */
  readonly shaderF16?: boolean;
  /**
   * A model that thinks before it answers: as for transformers.js entries (Qwen3's switch is
   * web-llm's `enable_thinking`), but web-llm cannot keep a thinking budget: `budgets` are
   * accepted and change nothing here (`max_tokens` caps the thinking with the answer).
   */
  readonly reasoning?: ReasoningFormat;
  /**
   * SRI hashes (`sha256-…`) web-llm checks its files against (its `ModelRecord.integrity`): the
   * config, the model library and the tokenizer files by name. A mismatch fails the load with a
   * 503 naming the file.
   */
  readonly integrity?: { readonly config?: string; readonly model_lib?: string; readonly tokenizer?: Readonly<Record<string, string>> };
  readonly maxOutputTokens?: number;
}
