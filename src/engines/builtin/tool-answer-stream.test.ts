import { describe, expect, it } from 'vitest';
import { ToolCallParser, writeToolCall } from '../../core/tool-syntax.ts';
import { ToolAnswerStream } from './tool-answer-stream.ts';
import { toolAnswerText } from './tool-schema.ts';

/** Feeds `answer` in pieces of `size` characters: what each piece gave, and the end. */
function feed(answer: string, size: number): { pieces: string[]; text: string } {
  const stream = new ToolAnswerStream();
  const pieces: string[] = [];
  for (let i = 0; i < answer.length; i += size) pieces.push(stream.push(answer.slice(i, i + size)));
  pieces.push(stream.end());
  return { pieces, text: pieces.join('') };
}

const CALLS = '{ "tool_calls": [ {"name": "get_weather", "arguments": {"city": "Pa\\"ris}", "days": [1, {"x": 2}]}}, {"name":"get_time","arguments":{}} ] }';

describe('the built-in model’s tool answer, as it streams', () => {
  for (const size of [1, 3, 7, 1000]) {
    it(`gives calls the gateway's parser reads back whole, in pieces of ${size}`, () => {
      const { text } = feed(CALLS, size);
      const parser = new ToolCallParser();
      const out = [...parser.push(text), ...parser.end()];
      expect(out.filter((p) => p.type === 'call').map((p) => (p.type === 'call' ? p.name : ''))).toEqual(['get_weather', 'get_time']);
      const args = (index: number) => out.flatMap((p) => (p.type === 'arguments' && p.index === index ? [p.text] : [])).join('');
      expect(JSON.parse(args(0))).toEqual({ city: 'Pa"ris}', days: [1, { x: 2 }] });
      expect(JSON.parse(args(1))).toEqual({});
      expect(out.some((p) => p.type === 'text')).toBe(false);
    });
  }

  it('names a call as soon as its name is known, before its arguments are complete', () => {
    const stream = new ToolAnswerStream();
    expect(stream.push('{"tool_calls":[{"name":"get_weather","arguments":{"ci')).toBe('<tool_call>\n{"name": "get_weather", "arguments": {"ci');
    expect(stream.push('ty":"Paris"}}]}')).toBe('ty":"Paris"}}\n</tool_call>');
    expect(stream.end()).toBe('');
  });

  it('streams a reply in words character by character, escapes decoded even when cut in two', () => {
    const answer = JSON.stringify({ content: 'Sunny, "21°"\nsee \u00e9 😀' });
    for (const size of [1, 2, 5]) {
      const { pieces, text } = feed(answer, size);
      expect(text).toBe('Sunny, "21°"\nsee é 😀');
      expect(pieces.filter(Boolean).length).toBeGreaterThan(3);
    }
  });

  it('passes a reply in the requested JSON on as it comes', () => {
    expect(feed('{"content": {"a": [1, "}"]}}', 2).text).toBe('{"a": [1, "}"]}');
  });

  it('gathers an answer in another shape and converts it whole at the end', () => {
    const reversed = '{"tool_calls":[{"arguments":{"city":"Paris"},"name":"get_weather"}]}';
    const { pieces } = feed(reversed, 4);
    expect(pieces.slice(0, -1).every((p) => p === '')).toBe(true);
    expect(pieces.at(-1)).toBe(toolAnswerText(reversed));
    expect(feed('{"content": 42}', 3).text).toBe('42');
    expect(feed('not json at all', 3).text).toBe('not json at all');
  });

  it('after calls already given, gives the rest of a changed shape from the whole answer', () => {
    const mixed = '{"tool_calls":[{"name":"a","arguments":{}},{"arguments":{"x":1},"name":"b"}]}';
    expect(feed(mixed, 5).text).toBe(`${writeToolCall('a', {})}\n${writeToolCall('b', { x: 1 })}`);
  });
});
