/**
 * Renders chat messages to the prompt text with the model's own chat template.
 * @module
 */

import type { ChatMessage } from '../../core/engine.ts';

export interface ChatTemplater {
  apply_chat_template(messages: { role: string; content: string }[], options: { tokenize: false; add_generation_prompt: boolean }): unknown;
}

/**
 * A trailing assistant message is a prefill: the model continues it rather than starting a new
 * turn. Chat templates have no common switch for that, so, as Hugging Face's
 * `continue_final_message` does, the conversation is rendered in full and cut right after the final
 * message's text (dropping the end-of-turn marker). When a template rewrites the text (e.g. trims
 * it) so it cannot be found, the prefill is appended to a fresh generation prompt instead.
 */
export function renderChatPrompt(tokenizer: ChatTemplater, messages: readonly ChatMessage[]): string {
  const render = (list: readonly ChatMessage[], addGenerationPrompt: boolean): string => {
    const text = tokenizer.apply_chat_template(list.map(({ role, content }) => ({ role, content })), {
      tokenize: false,
      add_generation_prompt: addGenerationPrompt,
    });
    if (typeof text !== 'string') throw new TypeError('The chat template did not render to a string.');
    return text;
  };
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return render(messages, true);
  const history = messages.slice(0, -1);
  if (last.content === '') return render(history, true);
  const full = render(messages, false);
  const at = full.lastIndexOf(last.content);
  return at >= 0 ? full.slice(0, at + last.content.length) : render(history, true) + last.content;
}
