import { describe, expect, it } from 'vitest';
import { promptUsage } from './prompt-usage.ts';

describe('promptUsage', () => {
  it('reads the prompt and its cached tokens from every flavour\'s usage', () => {
    expect(promptUsage({ prompt_tokens: 30, completion_tokens: 4, total_tokens: 34, prompt_tokens_details: { cached_tokens: 26 } })).toEqual({ promptTokens: 30, cachedTokens: 26 });
    expect(promptUsage({ input_tokens: 30, input_tokens_details: { cached_tokens: 26 }, output_tokens: 4 })).toEqual({ promptTokens: 30, cachedTokens: 26 });
    // Anthropic: input_tokens is only what was read afresh.
    expect(promptUsage({ input_tokens: 4, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 26 })).toEqual({ promptTokens: 30, cachedTokens: 26 });
    // A message_delta may carry output_tokens alone.
    expect(promptUsage({ output_tokens: 4 })).toEqual({});
    expect(promptUsage(null)).toEqual({});
  });
});
