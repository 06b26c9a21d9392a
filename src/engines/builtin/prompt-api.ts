/**
 * The Prompt API (`LanguageModel`) as far as this engine uses it, typed from the published IDL
 * (webmachinelearning/prompt-api, Chrome's "Prompt API" documentation). Types only: the API lives
 * on `window` of the page that hosts the engine worker, and is reached through
 * `src/rpc/builtin-model-link.ts`.
 * @module
 */

export type Availability = 'unavailable' | 'downloadable' | 'downloading' | 'available';

export interface LanguageModelMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  /** An assistant message the answer continues (a prefill); only the last message may be one. */
  readonly prefix?: boolean;
}

export interface LanguageModelCreateOptions {
  readonly initialPrompts?: readonly LanguageModelMessage[];
  /** Allowed only together with `topK`, and (in Chrome) only where `LanguageModel.params` exists. */
  readonly temperature?: number;
  readonly topK?: number;
  readonly expectedInputs?: readonly { readonly type: 'text'; readonly languages?: readonly string[] }[];
  readonly expectedOutputs?: readonly { readonly type: 'text'; readonly languages?: readonly string[] }[];
  readonly signal?: AbortSignal;
  /** Called once, before any download starts: `downloadprogress` events carry `loaded` in 0..1. */
  readonly monitor?: (monitor: EventTarget) => void;
}

export interface LanguageModelPromptOptions {
  /** A JSON schema (or a RegExp) the answer must match. */
  readonly responseConstraint?: object;
  /** Leave the schema out of the model's input (the caller described it in the prompt). */
  readonly omitResponseConstraintInput?: boolean;
  readonly signal?: AbortSignal;
}

export interface LanguageModelParams {
  readonly defaultTopK: number;
  readonly maxTopK: number;
  readonly defaultTemperature: number;
  readonly maxTemperature: number;
}

export interface LanguageModelSession {
  prompt(input: string | readonly LanguageModelMessage[], options?: LanguageModelPromptOptions): Promise<string>;
  /** Each chunk is the next piece of the answer (a delta, as in Chrome since 2025). */
  promptStreaming(input: string | readonly LanguageModelMessage[], options?: LanguageModelPromptOptions): ReadableStream<string>;
  /** Tokens the input would take in this session. Older builds name it `countPromptTokens` or lack it. */
  measureInputUsage?(input: string | readonly LanguageModelMessage[], options?: LanguageModelPromptOptions): Promise<number>;
  /** Tokens the session holds so far (its initial prompts, then each turn). */
  readonly inputUsage?: number;
  readonly inputQuota?: number;
  destroy(): void;
}

export interface LanguageModelStatic {
  availability(options?: LanguageModelCreateOptions): Promise<Availability>;
  create(options?: LanguageModelCreateOptions): Promise<LanguageModelSession>;
  /** Sampling limits; absent where pages may not set temperature and top-K. */
  params?(): Promise<LanguageModelParams | null>;
}
