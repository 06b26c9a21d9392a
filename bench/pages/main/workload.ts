/**
 * What the main page asks of every path: the models, the prompt, the texts, and the request
 * bodies built from them. Every route gets the same ones, so the comparisons are like for like.
 * @module
 */
import type { ChatRequest } from '../../../src/core/engine.ts';
import { config } from '../lib/channel.ts';

export const device = config.device;
export const CHAT_MODEL = 'tiny-chat';
export const EMBED_MODEL = 'tiny-embed';
/** The fetch shim answers a virtual origin, so it never catches the service worker path's fetches. */
export const SHIM_BASE = 'https://llm.local/v1';
export const signal = new AbortController().signal;
export const PROMPT = [{ role: 'user' as const, content: 'Tell me about the river.' }];
export const EMBED_TEXT = 'The quick brown fox jumps over the lazy dog.';
export const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * WebGPU on SwiftShader embeds 256 texts in tens of seconds, so its short section (and its smoke
 * run) uses the first 16, and keeps a reduced path list: base64 through the SW, direct, transformers.js.
 */
export const REDUCED = device === 'webgpu' && config.profile !== 'full';
const TEXT_COUNT = REDUCED ? 16 : 256;
const WORDS = 'river stone light water cloud market garden window music paper forest silver morning letter bridge winter'.split(' ');
/** Distinct short texts (8 to 14 words), the same in every run. */
export const TEXTS = Array.from({ length: TEXT_COUNT }, (_, i) => {
  const n = 8 + (i % 7);
  return `Text ${i}: ` + Array.from({ length: n }, (_, j) => WORDS[(i * 7 + j * 3 + (i >> 4)) % WORDS.length]).join(' ') + '.';
});

export const post = (body: unknown): RequestInit => ({ method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
export const chatBody = (maxTokens: number, stream = false, model = CHAT_MODEL) => ({
  model,
  messages: PROMPT,
  max_tokens: maxTokens,
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});
export const chatRequest = (maxTokens: number, model = CHAT_MODEL): ChatRequest => ({ model, messages: PROMPT, maxTokens, stop: [] });
export const embedBody = (input: string | readonly string[], encoding: 'base64' | 'float' = 'base64') => ({ model: EMBED_MODEL, input, encoding_format: encoding });
