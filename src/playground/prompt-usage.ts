/**
 * A reply's prompt tokens and how many of them the engine read from its prefix cache, from the
 * usage object of any flavour: chat completions (`prompt_tokens`, `prompt_tokens_details.cached_tokens`),
 * Responses (`input_tokens`, `input_tokens_details.cached_tokens`) and Anthropic, which counts what
 * came from the cache apart (`input_tokens` + `cache_read_input_tokens`).
 * @module
 */

export interface PromptUsage {
  readonly promptTokens?: number;
  readonly cachedTokens?: number;
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const record = (value: unknown) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined);

export function promptUsage(usage: unknown): PromptUsage {
  const u = record(usage);
  if (!u) return {};
  let prompt: number | undefined;
  let cached: number | undefined;
  if (count(u.prompt_tokens) !== undefined) {
    prompt = count(u.prompt_tokens);
    cached = count(record(u.prompt_tokens_details)?.cached_tokens);
  } else if ('cache_read_input_tokens' in u || 'cache_creation_input_tokens' in u) {
    cached = count(u.cache_read_input_tokens) ?? 0;
    const fresh = count(u.input_tokens);
    prompt = fresh === undefined ? undefined : fresh + cached + (count(u.cache_creation_input_tokens) ?? 0);
  } else {
    prompt = count(u.input_tokens);
    cached = count(record(u.input_tokens_details)?.cached_tokens);
  }
  return { ...(prompt !== undefined ? { promptTokens: prompt } : {}), ...(cached !== undefined ? { cachedTokens: cached } : {}) };
}
