/**
 * The conversation web-llm keeps, mirrored. When a request continues the engine's previous
 * conversation (same messages, plus the answer it gave, which ended naturally), web-llm keeps its
 * KV cache, prefills only the new turn and reports only those tokens as `prompt_tokens`. The API
 * must report the whole prompt, so this remembers what the cache already holds and adds it back.
 * web-llm's test is the same: previous finish reason not `abort`/`length` and an equal
 * conversation before the last message (`preparePrefillInput`, `compareConversationObject`).
 * @module
 */

import { writtenBack } from './chat-request.ts';
import type { WebLLMMessage } from './mlc-engine-like.ts';

export class PromptTokenCounter {
  #last: { readonly messages: readonly WebLLMMessage[]; readonly cachedTokens: number } | undefined;

  /**
   * The messages with each earlier reply of the kept conversation written as web-llm holds it: as
   * the model wrote it, where the client's copy reads back to the same (a tool call's JSON written
   * out again may differ from the model's in spelling, `1.0` for `1`, and web-llm compares text).
   */
  asKept(messages: readonly WebLLMMessage[]): WebLLMMessage[] {
    const kept = this.#last?.messages ?? [];
    return messages.map((message, i) => {
      const reply = kept[i];
      return message.role === 'assistant' && reply?.role === 'assistant' && reply.content !== message.content && writtenBack(reply.content) === message.content ? reply : message;
    });
  }

  /** Tokens web-llm will reuse from its cache for these messages (and so leave out of `prompt_tokens`). */
  cachedTokens(messages: readonly WebLLMMessage[]): number {
    const last = this.#last;
    if (!last || messages.length - 1 !== last.messages.length) return 0;
    return last.messages.every((m, i) => m.role === messages[i]!.role && m.content === messages[i]!.content) ? last.cachedTokens : 0;
  }

  /**
   * After a natural stop. `answer`: the reply as web-llm recorded it; `keptTokens`: the generated
   * tokens its cache holds (every one but the last sampled: the stop token, or the token that
   * completed a stop string, is never fed back).
   */
  remember(messages: readonly WebLLMMessage[], answer: string, promptTokens: number, keptTokens: number): void {
    this.#last = { messages: [...messages, { role: 'assistant', content: answer }], cachedTokens: promptTokens + keptTokens };
  }

  /** After anything else (abort, length, error): web-llm starts the next request afresh. */
  forget(): void {
    this.#last = undefined;
  }
}
