import { describe, expect, it } from 'vitest';
import { readWholeReply } from './whole-replies.ts';

describe('a reply read whole (streaming off)', () => {
  it('OpenAI: the message text, its calls by position, the finish and the completion tokens', () => {
    const completion = {
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{"zone":"UTC"}' } }] },
        },
      ],
      usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
    };
    expect(readWholeReply('openai', completion)).toEqual({
      tools: [{ index: 0, id: 'call_1', name: 'get_time', arguments: '{"zone":"UTC"}' }],
      finish: 'tool_calls',
      outputTokens: 7,
    });
  });

  it('Anthropic: text blocks joined, tool_use input as JSON text, the stop reason and output tokens', () => {
    const message = {
      type: 'message',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_time', input: { zone: 'CET' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 12, output_tokens: 9 },
    };
    expect(readWholeReply('anthropic', message)).toEqual({
      text: 'Checking.',
      tools: [{ index: 1, id: 'toolu_1', name: 'get_time', arguments: '{"zone":"CET"}' }],
      finish: 'tool_use',
      outputTokens: 9,
    });
  });

  it('a body that is not a reply gives nothing to show', () => {
    expect(readWholeReply('responses', 'Bad gateway')).toEqual({});
  });
});
