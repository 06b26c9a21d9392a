/**
 * Where a remote model runs: another server that speaks the OpenAI or Anthropic API (vLLM, SGLang,
 * Ollama, LM Studio, llama.cpp's server, a hosted API, or another inpage-llm). Data only: it comes
 * from the app's config, crosses workers with the model list, and is never shown in `GET /models`
 * beyond the URLs and their health (never the key).
 * @module
 */
import type { Flavour } from './flavour.ts';

/** An API an upstream speaks (the name the package has exported since remote models came). */
export type UpstreamFlavour = Flavour;

export interface UpstreamSpec {
  /**
   * The API's base URL as the OpenAI SDK takes it, `/v1` included (`http://127.0.0.1:11434/v1`):
   * OpenAI requests go to `<baseURL>/chat/completions` and `<baseURL>/embeddings`, Anthropic ones
   * to `<baseURL>/messages` (so `https://api.anthropic.com/v1`). Several URLs make a cluster:
   * each request goes to the healthy one with the fewest requests in flight, and a connection
   * failure before the first byte moves it to the next.
   */
  readonly baseURL: string | readonly string[];
  /**
   * The APIs it speaks, in order of preference (default `['openai']`). A request in a flavour it
   * speaks is forwarded as it came; any other is translated to the first one listed.
   */
  readonly speaks?: readonly UpstreamFlavour[];
  /** The upstream's own name for the model (default: the catalog id). */
  readonly model?: string;
  /**
   * Its key, sent as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic). It stays in the
   * config: a caller's own credentials are never forwarded.
   */
  readonly apiKey?: string;
  /** Extra headers for every upstream request (e.g. an organisation or project header). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Requests in flight at once per upstream URL; more wait in line (default 32). */
  readonly maxConcurrent?: number;
  /**
   * Milliseconds to wait for an upstream's response headers (default 300 000: a non-streamed
   * answer's headers come when the whole answer is ready). Past it: 504, or the next URL.
   */
  readonly timeoutMs?: number;
}
