/**
 * The floor's constant answers: a chat completion the size of the product's 1-token answer, and
 * one SSE chunk. bench/floor-sw.js, a plain script served as is, holds the same two strings.
 * @module
 */

export const FLOOR_ANSWER = JSON.stringify({
  id: 'chatcmpl-floor',
  object: 'chat.completion',
  created: 0,
  model: 'floor',
  choices: [{ index: 0, message: { role: 'assistant', content: 'x', refusal: null }, logprobs: null, finish_reason: 'length' }],
  usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
});

export const FLOOR_CHUNK = '{"choices":[{"index":0,"delta":{"content":"x"}}]}';
