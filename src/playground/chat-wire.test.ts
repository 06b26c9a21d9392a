import { describe, expect, it } from 'vitest';
import {
  anthropicMessages,
  anthropicToolChoice,
  openAIMessages,
  openAIToolChoice,
  toolChoiceFromAnthropic,
  toolChoiceFromOpenAI,
  toolsFrom,
  turnsFromAnthropic,
  turnsFromOpenAI,
  type ToolChoice,
  type Turn,
} from './chat-wire.ts';

const TURNS: Turn[] = [
  { role: 'user', content: 'Weather in Paris and Oslo?' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ],
  },
  { role: 'tool', toolCallId: 'call_1', content: 'sunny' },
  { role: 'tool', toolCallId: 'call_2', content: 'snow' },
  { role: 'assistant', content: 'Sunny in Paris, snow in Oslo.' },
];

describe('one conversation in both flavours', () => {
  it('OpenAI: calls on the assistant message with null content, each result a tool message', () => {
    const messages = openAIMessages(TURNS);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
    });
    expect(messages.slice(2, 4)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'snow' },
    ]);
    expect(turnsFromOpenAI([{ role: 'system', content: 'Be brief.' }, ...messages])).toEqual({ system: ['Be brief.'], turns: TURNS });
  });

  it('Anthropic: tool_use blocks with parsed input, all results in one user message', () => {
    const messages = anthropicMessages(TURNS);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(messages[1]!.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_2', name: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
      { type: 'tool_result', tool_use_id: 'call_2', content: 'snow' },
    ]);
    expect(turnsFromAnthropic(messages)).toEqual(TURNS);
  });

  it('Anthropic: text after results joins their user message; text beside calls is a text block', () => {
    const turns: Turn[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Let me look.', toolCalls: [{ id: 't1', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 't1', content: 'done' },
      { role: 'user', content: 'And?' },
    ];
    const messages = anthropicMessages(turns);
    expect(messages[1]!.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 't1', name: 'f', input: {} },
    ]);
    expect(messages[2]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'done' },
      { type: 'text', text: 'And?' },
    ]);
    expect(turnsFromAnthropic(messages)).toEqual(turns);
  });
});

describe('tools and tool choice', () => {
  it('reads tools in the neutral, OpenAI and Anthropic shapes, and says what is wrong otherwise', () => {
    const parameters = { type: 'object', properties: {} };
    expect(
      toolsFrom([
        { name: 'a', parameters },
        { type: 'function', function: { name: 'b', description: 'B', parameters } },
        { name: 'c', input_schema: parameters },
      ]),
    ).toEqual([{ name: 'a', parameters }, { name: 'b', description: 'B', parameters }, { name: 'c', parameters }]);
    expect(() => toolsFrom({ name: 'a' })).toThrow('JSON array');
    expect(() => toolsFrom([{ parameters }])).toThrow('Tool 1 needs a "name"');
  });

  it.each<[ToolChoice, unknown, unknown]>([
    ['auto', 'auto', { type: 'auto' }],
    ['required', 'required', { type: 'any' }],
    ['none', 'none', { type: 'none' }],
    [{ name: 'get_time' }, { type: 'function', function: { name: 'get_time' } }, { type: 'tool', name: 'get_time' }],
  ])('%j is %j in OpenAI and %j in Anthropic, both ways', (choice, openai, anthropic) => {
    expect(openAIToolChoice(choice)).toEqual(openai);
    expect(anthropicToolChoice(choice, true)).toEqual(anthropic);
    expect(toolChoiceFromOpenAI(openai)).toEqual(choice);
    expect(toolChoiceFromAnthropic(anthropic)).toEqual({ choice, parallel: true });
  });

  it('one call at most is disable_parallel_tool_use in Anthropic', () => {
    expect(anthropicToolChoice('required', false)).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(toolChoiceFromAnthropic({ type: 'any', disable_parallel_tool_use: true })).toEqual({ choice: 'required', parallel: false });
    expect(anthropicToolChoice('none', false)).toEqual({ type: 'none' });
  });
});
