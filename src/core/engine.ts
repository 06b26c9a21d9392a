/**
 * The one interface between the HTTP-shaped gateway and whatever runs the models.
 * Engines see only these neutral types, never a wire format (OpenAI or Anthropic).
 * @module
 */
import type { ReasoningFormat } from './reasoning.ts';
import type { UpstreamSpec } from './upstream-spec.ts';

/** What an engine says about one model it can serve. Drives validation and `GET /models`. */
export interface ModelInfo {
  /** The id clients send as `model`. */
  readonly id: string;
  readonly kind: 'chat' | 'embedding';
  /** Which engine serves it, e.g. `transformers`, `webllm`. Shown to users, not interpreted. */
  readonly engine: string;
  /** Human name for listings (Anthropic `display_name`). */
  readonly displayName?: string;
  /** The model line it belongs to (`Qwen3`, `Llama-3.2`): what a model picker groups by. */
  readonly family?: string;
  /** Its size as its makers name it (`0.6B`, `E2B`), where known. */
  readonly size?: string;
  /** One of the few models a newcomer is offered first (the catalog's short ids). */
  readonly featured?: boolean;
  /** Unix seconds; shown as OpenAI `created` and Anthropic `created_at`. */
  readonly created?: number;
  /**
   * Prompt plus output tokens the model can attend to; 0 where it is not known (a remote model
   * whose entry does not say: its server holds requests to its own).
   */
  readonly contextWindow: number;
  /** Largest allowed `max_tokens` (chat models). */
  readonly maxOutputTokens?: number;
  /** Native vector length (embedding models). */
  readonly dimensions?: number;
  /** True when vectors may be truncated to fewer `dimensions` and re-normalised (Matryoshka). */
  readonly supportsDimensions?: boolean;
  /** Chat models whose engine can constrain output to JSON (`response_format`). */
  readonly structuredOutput?: boolean;
  /**
   * Chat models whose engine enforces a JSON answer's schema with the schema matcher
   * (core/json-schema/), which takes far more of JSON Schema than the grammar engine: admission
   * checks their answers' schemas by what it reads. Tool calls are grammars on every engine.
   */
  readonly schemaMatcher?: boolean;
  /** Chat models that can call tools (`tools`): their calls are constrained by a grammar too. */
  readonly toolCalling?: boolean;
  /** Chat models whose engine adds `logit_bias` to the logits before choosing each token. */
  readonly logitBias?: boolean;
  /**
   * A model that thinks before it answers, and how it writes the thinking: the gateway splits it
   * from the answer (core/reasoning.ts) and each flavour shows it apart (or hides it).
   */
  readonly reasoning?: ReasoningFormat;
  /**
   * A thinking model whose engine keeps a request's `thinkingBudget`, ending the thinking when
   * it is spent (transformers.js). Absent on a thinking model: its engine cannot (web-llm); the
   * request is still served, its `maxTokens` capping the thinking with the answer.
   */
  readonly keepsThinkingBudget?: boolean;
  /**
   * A remote model: the gateway forwards its requests to this server instead of the engine
   * (src/remote), translating between the flavours where the server does not speak the caller's.
   */
  readonly upstream?: UpstreamSpec;
  /**
   * The id of the model that serves a request this one cannot: a local model whose load fails (no
   * backend, no room, a lost device), or a remote one whose server cannot be reached. The response
   * names the model that served it (`x-inpage-llm-served-by`).
   */
  readonly fallback?: string;
}

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  readonly role: ChatRole;
  /** The message's text (its text parts joined). */
  readonly content: string;
  /**
   * Its parts in order, where it holds more than text: images, which only a remote model's server
   * is sent (the local engines read text, and the parsers refuse images for them).
   */
  readonly parts?: readonly ContentPart[];
  /** An assistant turn's tool calls, after its `content` (which may be ''). */
  readonly toolCalls?: readonly ToolCall[];
  /** A `tool` message: the call it answers, and that call's tool name. */
  readonly toolCallId?: string;
  readonly toolName?: string;
}

/** A part of a message: text, or an image by URL (`https:`, or a `data:` URL with base64 bytes). */
export type ContentPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image'; readonly url: string };

/** One call of a tool, as the model made it. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text (an object), as OpenAI carries them. */
  readonly arguments: string;
}

/**
 * A tool the model may call: a name and a JSON schema for its arguments (an object), as the
 * client sent it (the model is shown this; the grammar enforces its `toGrammarSchema` form).
 */
export interface ToolSpec {
  readonly name: string;
  readonly description?: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/**
 * Whether the model must call: `auto` (a text reply or calls), `none` (text only), `required`
 * (at least one call, of any tool), or one named tool.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly name: string };

/**
 * A chat request as one model is given it: a wire format's parse reads every API into a
 * NeutralRequest, which admission (core/admit.ts) makes into this for each model tried.
 */
export interface ChatRequest {
  readonly model: string;
  /** In conversation order. A trailing `assistant` message is a prefill for the answer to continue. */
  readonly messages: readonly ChatMessage[];
  /**
   * Cap on generated tokens; the gateway enforces it too. When the prompt plus this cap would not
   * fit the context window, the engine stops at the window's end (reporting `length`); only a
   * prompt that leaves no room at all is a `context_length_exceeded` error.
   */
  readonly maxTokens: number;
  /**
   * The caller named the cap itself (else `maxTokens` is the model's own limit): a remote server is
   * sent only a cap that was asked for.
   */
  readonly maxTokensSet?: boolean;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly seed?: number;
  readonly presencePenalty?: number;
  readonly frequencyPenalty?: number;
  /**
   * Added to the logits of these token ids (the model's own ids) before each token is chosen and
   * before any output constraint masks them, so a grammar still decides what is allowed. Biases run
   * from -100 (in effect a ban) to 100 (in effect the only choice). Absent when the request gave
   * none (an empty map is never sent); only models with `logitBias` take it.
   */
  readonly logitBias?: ReadonlyMap<number, number>;
  /**
   * Stop strings. The gateway cuts output at them; engines may also stop at them themselves (and
   * say so in their `end` event), the gateway's cut then being a backstop. Not
   * applied when `output` is constrained: the grammar decides where the output ends, so a stop
   * string can never cut a JSON value in half.
   */
  readonly stop: readonly string[];
  /**
   * The output must be JSON (any object, or one that matches a schema), enforced while decoding:
   * as the caller sent it, its schema as written (what a remote model's server is sent, to enforce
   * itself). A local engine enforces `enforcedOutput` instead.
   */
  readonly output?: OutputConstraint;
  /**
   * What a local engine enforces of `output`: its schema in the form the grammar enforces exactly
   * (`toGrammarSchema`, core/json-schema-support.ts), once admission has checked that it can.
   * Set by admission for a model on this device only; see `outputToEnforce`.
   */
  readonly enforcedOutput?: OutputConstraint;
  /**
   * Tools the model may call. Their definitions go into the prompt; calls are written in the
   * syntax of `tool-syntax.ts`, enforced by a grammar built from the schemas, and parsed back
   * by the gateway. With tools, `output` (if any) constrains a text reply only.
   */
  readonly tools?: readonly ToolSpec[];
  /** Defaults to `auto`. */
  readonly toolChoice?: ToolChoice;
  /** More than one call in a turn (default true). */
  readonly parallelToolCalls?: boolean;
  /**
   * `false`: the model should answer without thinking, where it can be told so (its
   * `reasoning.switch`); a model that cannot be told still thinks, and its thinking is still
   * kept apart from the answer. Absent: the model's default.
   */
  readonly thinking?: boolean;
  /**
   * The most tokens the model may think (Anthropic's `thinking.budget_tokens`, or a
   * `reasoning_effort` through the model's `reasoning.budgets`): once the reply's thinking has
   * taken this many generated tokens, its opening marker and anything before it included, and
   * has not closed, the engine writes the closing marker and the model answers. So the thinking
   * ends within this many tokens plus the closing marker's. Kept where the model's
   * `keepsThinkingBudget` says so; a remote model's server is sent it where its API has a form of it.
   */
  readonly thinkingBudget?: number;
  /** The effort the caller named (`reasoning_effort`, Responses' `reasoning.effort`), for a remote OpenAI server. */
  readonly reasoningEffort?: 'low' | 'medium' | 'high';
  /** An opaque id of the caller's end user (OpenAI's `user`, Anthropic's `metadata.user_id`), passed on to a remote server. */
  readonly user?: string;
  /**
   * The caller asked for its prompt's beginning to be cached under this key (OpenAI's
   * `prompt_cache_key`): a remote Anthropic server, which caches only what it is told to, is told.
   */
  readonly promptCacheKey?: string;
  /**
   * The caller's guess of the answer (OpenAI's predicted outputs: a file with a change to make, a
   * form filled again). An engine that can check guessed tokens several at a time uses it as a
   * draft: the answer is the same with or without it, only faster where the guess is right. An
   * engine that cannot ignores it (and reports none of it kept).
   */
  readonly prediction?: string;
}

/**
 * A chat request as a wire format's parse reads it, the same whichever model serves it: `model`
 * is the id the caller named, `maxTokens` the cap the caller set (if any), `output` the schema as
 * sent. Admission (core/admit.ts) makes of it the ChatRequest one model is given.
 */
export interface NeutralRequest extends Omit<ChatRequest, 'maxTokens' | 'maxTokensSet' | 'enforcedOutput'> {
  readonly maxTokens?: number;
}

/**
 * JSON output: any object, or one that matches a schema (`name`: what the caller called it, where
 * its API names schemas). As `ChatRequest.output`, the schema as sent; as `enforcedOutput`, the
 * grammar's form of it.
 */
export type OutputConstraint =
  | { readonly kind: 'json_object' }
  | { readonly kind: 'json_schema'; readonly schema: Readonly<Record<string, unknown>>; readonly strict: boolean; readonly name?: string };

/**
 * The output an engine constrains decoding to: admission's grammar form of it, or, for a request
 * an app hands an engine itself (past the gateway, so never admitted), `output` as it is.
 */
export function outputToEnforce(request: ChatRequest): OutputConstraint | undefined {
  return request.enforcedOutput ?? request.output;
}

/**
 * What an engine yields while generating, in this order: optionally one `accepted` (the request's
 * turn came and its model is loaded: the engine is working on it), one `start` (after the prompt is
 * read), then one `token` per generated token, then optionally one `end`. Ending the iteration
 * without `end` means a natural stop.
 */
export type ChatEvent =
  /**
   * Sent by engines where reading the prompt can take long after the request is taken (web-llm
   * counts the prompt only after prefill): a stream may begin on it (src/core/generation.ts).
   */
  | { readonly type: 'accepted' }
  /**
   * The prompt is read. `cachedTokens`: how many of its first tokens the engine did not read again,
   * reusing what it kept from an earlier request (0 or absent: it read them all).
   */
  | { readonly type: 'start'; readonly promptTokens: number; readonly cachedTokens?: number }
  /** Exactly one generated token; `text` may be '' (e.g. half a UTF-8 character). */
  | { readonly type: 'token'; readonly text: string }
  /**
   * `promptTokens` and `cachedTokens`, when given, correct the counts sent with `start` (for engines that learn them late).
   * `stopSequence`: the engine stopped itself at this one of the request's stop strings, so that it
   * ends as after any natural stop (web-llm then keeps its conversation). The text of its tokens
   * ends exactly where the stop string begins: none of it was sent.
   */
  /**
   * Of the request's `prediction`, the tokens the engine checked so far and kept (`accepted`) or
   * threw away (`rejected`), counted from the start; sent as they change, before the tokens of the
   * step that changed them, so that a stop string's cut leaves the count of the step it fell in.
   */
  | { readonly type: 'prediction'; readonly accepted: number; readonly rejected: number }
  | { readonly type: 'end'; readonly reason: 'stop' | 'length'; readonly promptTokens?: number; readonly cachedTokens?: number; readonly stopSequence?: string };

export interface EmbedRequest {
  readonly model: string;
  /** One or more non-empty texts, in input order. */
  readonly input: readonly string[];
}

export interface EmbedResult {
  /** One full-length vector per input, in input order. Pooled and normalised as the model defines. */
  readonly embeddings: readonly Float32Array[];
  readonly promptTokens: number;
  /** Tokens per input, in input order; lets a batch of merged requests report each one's usage. */
  readonly inputTokens?: readonly number[];
}

export interface CallOptions {
  /** Aborts when the client goes away; the engine must stop work promptly. */
  readonly signal: AbortSignal;
  /**
   * Chat only: the caller uses nothing before the answer is complete (a non-streamed request), so
   * an engine across a message boundary may deliver all events at once. A hint; events keep their order.
   */
  readonly whole?: boolean;
}

/**
 * What an engine knows of one of its models on this device, apart from the model host's own state
 * (loaded or not): whether its files are stored, and whether the device can run it. Engine
 * adapters report these (`EngineAdapter.localFacts`, src/engines); the model host adds its own
 * state to make the model's ModelLocalState.
 */
export interface LocalFacts {
  /**
   * Its files are stored on this device, so it loads offline: in the browser's storage (bundled
   * models too, once the engine has cached them: the service worker keeps only the app shell), or
   * on local disk where there is no browser storage (Node).
   */
  readonly downloaded: boolean;
  /** Bytes of its files in the browser's storage (0 when none, or where there is none, as in Node). */
  readonly bytesOnDisk: number;
  /**
   * Of `bytesOnDisk`, those of a download that stopped midway, kept so the next load resumes it;
   * absent when none. Such a model is not `downloaded`: partial files are never served as whole.
   */
  readonly partialBytes?: number;
  /**
   * What its engine keeps of earlier requests to reuse their prompts' beginnings (a prefix
   * cache): entries and bytes for this model, and the bound shared by the engine's models (chat
   * models of an engine with a prefix cache).
   */
  readonly prefixCache?: PrefixCacheFigures;
  /** Whether this device can run it; if so `backend` says on what, if not `reason` says why. */
  readonly runnable: boolean;
  /** The backend a load would use here (when runnable). */
  readonly backend?: 'webgpu' | 'wasm' | 'cpu';
  /** Why that backend (e.g. `auto: the WebGPU adapter (SwiftShader) is a software one, slower than WASM`). */
  readonly backendReason?: string;
  /** On a CPU backend in a browser (`wasm`): which runtime, on how many threads, and why that many. */
  readonly cpu?: CpuEngineFacts;
  /** Why it cannot run here (when not runnable). */
  readonly reason?: string;
  /**
   * What the variant it would run needs of the device, e.g. `webgpu`, `shader-f16` (a variant
   * without it is used when there is one); absent: nothing.
   */
  readonly requires?: readonly string[];
  /** The engine's own id of the variant a load would use on this device (web-llm's `model_id`), where it picks one. */
  readonly variant?: string;
  /** GPU memory that variant needs, in MB, as its engine states it (web-llm's `vram_required_MB`). */
  readonly vramRequiredMB?: number;
  /** Its engine marks it fit for low-memory devices such as phones (web-llm's `low_resource_required`). */
  readonly lowResource?: boolean;
  /** Bytes of its files to download in all, where known (from its weight index once stored). */
  readonly downloadBytes?: number;
  /**
   * Where its files come from (a transformers.js model's hub repo or folder), which names their
   * group in the browser's caches whatever the model's id; absent where nothing is cached (Node).
   */
  readonly source?: string;
}

/**
 * What this device knows of one model right now: its engine's LocalFacts and the model host's
 * state, shown as extra fields of `GET /models`, which the official SDKs ignore. Kept apart from
 * ModelInfo, which is static (the catalog), since this changes.
 */
export interface ModelLocalState extends LocalFacts {
  readonly id: string;
  /** In memory or not: `available` (not loaded), `loading`, `loaded`, or `failed` (its last load failed). */
  readonly state: 'available' | 'loading' | 'loaded' | 'failed';
  /** The last load failure, while `state` is `failed`. */
  readonly error?: string;
  /**
   * The engine it runs on was rebuilt after its predecessor ended on its own: its GPU device was
   * lost (`device_lost`), or it vanished (`crashed`); `at` is an ISO 8601 time.
   */
  readonly lastExit?: { readonly reason: 'device_lost' | 'crashed'; readonly message: string; readonly at: string };
}

/**
 * Implemented by the real engines (transformers.js, web-llm), by the worker link, and by test doubles.
 * Failures that map to a specific HTTP status are thrown as `GatewayError`; anything else becomes a 500.
 */
export interface Engine {
  listModels(): Promise<readonly ModelInfo[]>;
  chat(request: ChatRequest, options: CallOptions): AsyncIterable<ChatEvent>;
  embed(request: EmbedRequest, options: CallOptions): Promise<EmbedResult>;
  /** Each model's state on this device, for `GET /models`; engines that cannot tell leave it out. */
  modelStates?(): Promise<readonly ModelLocalState[]>;
}

/** The CPU engine a model runs on: its runtime, the threads it uses, and why that many. */
export interface CpuEngineFacts {
  readonly runtime: string;
  readonly threads: number;
  readonly reason: string;
}

/** A prefix cache's contents (see LocalFacts.prefixCache). */
export interface PrefixCacheFigures {
  readonly entries: number;
  readonly bytes: number;
  /** The bound for all the engine's models together; 0: nothing is kept. */
  readonly maxBytes: number;
}
