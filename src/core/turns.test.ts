import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './engine.ts';
import { appendTurn, joinMessages, joinTurns } from './turns.ts';

const call = (id: string): ChatMessage => ({ role: 'assistant', content: '', toolCalls: [{ id, name: 'f', arguments: '{}' }] });
const result: ChatMessage = { role: 'tool', content: '1', toolCallId: 'c1' };

describe('joinTurns with joinMessages', () => {
  it('joins plain turns of one role and leaves calls and tool results apart', () => {
    expect(joinTurns([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, call('c1'), { role: 'assistant', content: 'c' }, result, result], joinMessages)).toEqual([
      { role: 'user', content: 'a\n\nb' },
      call('c1'),
      { role: 'assistant', content: 'c' },
      result,
      result,
    ]);
  });

  it('joins calls alone to the assistant turn before them, after its text and calls', () => {
    expect(joinTurns([{ role: 'assistant', content: 'Let me look.' }, call('c1'), call('c2')], joinMessages)).toEqual([
      { role: 'assistant', content: 'Let me look.', toolCalls: [call('c1').toolCalls![0], call('c2').toolCalls![0]] },
    ]);
  });

  it('keeps system messages, images and text after calls apart', () => {
    const image: ChatMessage = { role: 'user', content: 'see', parts: [{ type: 'text', text: 'see' }, { type: 'image', url: 'https://x/y.png' }] };
    const turns: ChatMessage[] = [{ role: 'system', content: 'a' }, { role: 'system', content: 'b' }, image, { role: 'user', content: 'c' }, call('c1'), { role: 'assistant', content: 'd' }];
    expect(joinTurns(turns, joinMessages)).toEqual(turns);
  });
});

describe('appendTurn', () => {
  it('joins only neighbours of one role, in whatever form `join` holds them', () => {
    const blocks = (role: string, ...texts: string[]) => ({ role, content: texts });
    const turns = [blocks('user', 'a')];
    const join = (last: { role: string; content: string[] }, next: { role: string; content: string[] }) => ({ role: last.role, content: [...last.content, ...next.content] });
    appendTurn(turns, blocks('user', 'b'), join);
    appendTurn(turns, blocks('assistant', 'c'), join);
    expect(turns).toEqual([blocks('user', 'a', 'b'), blocks('assistant', 'c')]);
  });
});
