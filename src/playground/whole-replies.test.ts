import { describe, expect, it, vi } from 'vitest';
import { chatRequest, readEvent } from './chat-flavours.ts';
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
      usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16, prompt_tokens_details: { cached_tokens: 8 } },
    };
    expect(readWholeReply('openai', completion)).toEqual({
      tools: [{ index: 0, id: 'call_1', name: 'get_time', arguments: '{"zone":"UTC"}' }],
      finish: 'tool_calls',
      outputTokens: 7,
      promptTokens: 9,
      cachedTokens: 8,
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
      usage: { input_tokens: 2, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
    };
    expect(readWholeReply('anthropic', message)).toEqual({
      text: 'Checking.',
      tools: [{ index: 1, id: 'toolu_1', name: 'get_time', arguments: '{"zone":"CET"}' }],
      finish: 'tool_use',
      outputTokens: 9,
      promptTokens: 12,
      cachedTokens: 10,
    });
  });

  it('a body that is not a reply gives nothing to show', () => {
    expect(readWholeReply('responses', 'Bad gateway')).toEqual({});
  });
});

describe("a thinking model's thinking, apart from its answer", () => {
  it('is read from each flavour, whole and streamed', () => {
    expect(readWholeReply('openai', { choices: [{ message: { content: 'Hi', reasoning_content: 'hmm' }, finish_reason: 'stop' }] })).toMatchObject({ text: 'Hi', thinking: 'hmm' });
    expect(readWholeReply('anthropic', { content: [{ type: 'thinking', thinking: 'hmm', signature: '' }, { type: 'text', text: 'Hi' }], stop_reason: 'end_turn' })).toMatchObject({ text: 'Hi', thinking: 'hmm' });
    expect(readWholeReply('responses', { status: 'completed', output: [{ type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }] }, { type: 'message', content: [{ type: 'output_text', text: 'Hi' }] }] })).toMatchObject({ text: 'Hi', thinking: 'hmm' });
    expect(readEvent('openai', { data: JSON.stringify({ choices: [{ delta: { reasoning_content: 'hm' } }] }) })).toEqual({ thinking: 'hm' });
    expect(readEvent('anthropic', { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } }) })).toEqual({ thinking: 'hm' });
    expect(readEvent('responses', { event: 'response.reasoning_text.delta', data: JSON.stringify({ type: 'response.reasoning_text.delta', delta: 'hm' }) })).toEqual({ thinking: 'hm' });
  });

  it('is asked for in the Anthropic flavour only when the model thinks', () => {
    vi.stubGlobal('location', new URL('http://x/'));
    const settings = { flavour: 'anthropic', model: 'm', system: '', maxTokens: 64, stop: [], stream: false } as const;
    expect(chatRequest('http://x/v1', { ...settings, thinks: true }, [{ role: 'user', content: 'hi' }]).body).toMatchObject({ thinking: { type: 'adaptive' } });
    expect(chatRequest('http://x/v1', settings, [{ role: 'user', content: 'hi' }]).body).not.toHaveProperty('thinking');
    vi.unstubAllGlobals();
  });
});
