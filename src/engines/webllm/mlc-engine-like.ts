/**
 * The part of web-llm's `MLCEngine` the adapter calls, as a structural type: the real engine
 * satisfies it, and tests pass a test double (no model library can be fetched or run here).
 * @module
 */

import type { AppConfig, InitProgressCallback } from '@mlc-ai/web-llm';

/** A chat message as web-llm takes it (only the roles the neutral request has). */
export interface WebLLMMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The streaming chat request the adapter sends. */
export interface WebLLMChatRequest {
  readonly messages: WebLLMMessage[];
  readonly stream: true;
  readonly stream_options: { readonly include_usage: true };
  readonly max_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly seed?: number;
  readonly stop?: string[];
  readonly presence_penalty?: number;
  readonly frequency_penalty?: number;
  /** Token id (a decimal string) to a bias from -100 to 100, added to that token's logit. */
  readonly logit_bias?: Readonly<Record<string, number>>;
  /** Output constrained by an xgrammar EBNF grammar whose root rule is `root`. */
  readonly response_format?: { readonly type: 'grammar'; readonly grammar: string };
  /** web-llm's own fields: `enable_thinking: false` writes an empty thinking block first (Qwen3). */
  readonly extra_body?: { readonly enable_thinking?: boolean };
}

/** One streamed chunk: a content delta, the final chunk with `finish_reason`, or the usage chunk. */
export interface WebLLMChunk {
  readonly choices: readonly {
    readonly delta?: { readonly content?: string | null };
    readonly finish_reason?: string | null;
  }[];
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number } | null;
}

export interface WebLLMEmbeddingResponse {
  readonly data: readonly { readonly embedding: readonly number[]; readonly index: number }[];
  readonly usage: { readonly prompt_tokens: number };
}

export interface MLCEngineLike {
  reload(modelId: string): Promise<void>;
  unload(): Promise<void>;
  /** Engine-wide: the running generation stops before its next decode step. */
  interruptGenerate(): Promise<void> | void;
  readonly chat: {
    readonly completions: {
      create(request: WebLLMChatRequest): Promise<AsyncIterable<WebLLMChunk>>;
    };
  };
  readonly embeddings: {
    create(request: { input: string[]; model?: string }): Promise<WebLLMEmbeddingResponse>;
  };
}

/** What the adapter gives the engine factory. */
export interface MLCEngineOptions {
  readonly appConfig: AppConfig;
  readonly initProgressCallback: InitProgressCallback;
}

export type CreateMLCEngine = (options: MLCEngineOptions) => MLCEngineLike;
