import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { renderChatPrompt, type ChatTemplater } from './chat-prompt.ts';

/** A template that, like Gemma's, refuses turns that do not alternate user/assistant. */
const alternating: ChatTemplater = {
  apply_chat_template(messages) {
    messages.forEach((m, i) => {
      if ((m.role === 'user') !== (i % 2 === 0)) throw new Error('Conversation roles must alternate user/assistant/user/assistant/...');
    });
    return messages.map((m) => `[${m.role}] ${m.content}\n`).join('');
  },
};

describe('renderChatPrompt', () => {
  it('joins consecutive turns of one role for a template that refuses them', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'One.' }, { role: 'user', content: 'Two.' }];
    expect(renderChatPrompt(alternating, messages)).toBe('[user] One.\n\nTwo.\n');
  });

  it('renders as given when the template accepts it', () => {
    const lenient: ChatTemplater = { apply_chat_template: (messages) => messages.map((m) => m.content).join('|') };
    expect(renderChatPrompt(lenient, [{ role: 'user', content: 'One.' }, { role: 'user', content: 'Two.' }])).toBe('One.|Two.');
  });

  it('is a 400 carrying the template\'s words when joining does not help', () => {
    const attempt = () => renderChatPrompt(alternating, [{ role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Hi.' }]);
    expect(attempt).toThrow(GatewayError);
    expect(attempt).toThrow(/chat template refused this conversation: Conversation roles must alternate/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request', param: 'messages' });
    }
  });
});
