import { describe, expect, it } from 'vitest';
import { ToolCallParser, type ToolOutputPiece, withToolsAsText, writeToolCall } from './tool-syntax.ts';

/** Feeds `text` in pieces of `size` characters and merges consecutive pieces of one kind. */
function parse(text: string, size: number): ToolOutputPiece[] {
  const parser = new ToolCallParser();
  const out: ToolOutputPiece[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...parser.push(text.slice(i, i + size)));
  out.push(...parser.end());
  const merged: ToolOutputPiece[] = [];
  for (const piece of out) {
    const last = merged.at(-1);
    if (last?.type === 'text' && piece.type === 'text') merged[merged.length - 1] = { type: 'text', text: last.text + piece.text };
    else if (last?.type === 'arguments' && piece.type === 'arguments' && last.index === piece.index) merged[merged.length - 1] = { ...last, text: last.text + piece.text };
    else merged.push(piece);
  }
  return merged;
}

const TWO_CALLS = `${writeToolCall('get_weather', { city: 'Paris', tags: ['a}', '}\\n'] })}\n${writeToolCall('now', {})}`;

describe('ToolCallParser', () => {
  it.each([1, 2, 3, 7, 1000])('reads calls written in pieces of %i characters: names first, arguments whole', (size) => {
    expect(parse(TWO_CALLS, size)).toEqual([
      { type: 'call', index: 0, name: 'get_weather' },
      { type: 'arguments', index: 0, text: '{"city": "Paris", "tags": ["a}", "}\\\\n"]}' },
      { type: 'call', index: 1, name: 'now' },
      { type: 'arguments', index: 1, text: '{}' },
    ]);
  });

  it('streams arguments as they come, holding back only what could be the end of the call', () => {
    const parser = new ToolCallParser();
    expect(parser.push('<tool_call>\n{"name": "f", "arguments": {"a": 1')).toEqual([
      { type: 'call', index: 0, name: 'f' },
      { type: 'arguments', index: 0, text: '{"a": 1' },
    ]);
    expect(parser.push('}')).toEqual([]);
    expect(parser.push('}\n</tool')).toEqual([{ type: 'arguments', index: 0, text: '}' }]);
    expect(parser.push('_call>')).toEqual([]);
    expect(parser.end()).toEqual([]);
    expect(parser.calls).toBe(1);
  });

  it.each([1, 4, 100])('passes text through, even text that starts like a call (pieces of %i)', (size) => {
    expect(parse('Hello <tool_call>\n{}', size)).toEqual([{ type: 'text', text: 'Hello <tool_call>\n{}' }]);
    expect(parse('<tool_c', size)).toEqual([{ type: 'text', text: '<tool_c' }]);
    expect(parse('<tool_call>x', size)).toEqual([{ type: 'text', text: '<tool_call>x' }]);
    expect(parse(' <tool_call>\n', size)).toEqual([{ type: 'text', text: ' <tool_call>\n' }]);
  });

  it('gives back a call cut before its name as text, and one cut in its arguments as what arrived', () => {
    expect(parse('<tool_call>\n{"name": "ge', 3)).toEqual([{ type: 'text', text: '<tool_call>\n{"name": "ge' }]);
    expect(parse('<tool_call>\n{"name": "f", "arguments": {"a": "x}', 5)).toEqual([
      { type: 'call', index: 0, name: 'f' },
      { type: 'arguments', index: 0, text: '{"a": "x}' },
    ]);
  });

  it('reads a call written with its keys the other way round, whole', () => {
    expect(parse('<tool_call>\n{"arguments": {"q": 1}, "name": "f"}\n</tool_call>', 4)).toEqual([
      { type: 'call', index: 0, name: 'f' },
      { type: 'arguments', index: 0, text: '{"q":1}' },
    ]);
  });

  it('keeps text after the calls rather than dropping it', () => {
    expect(parse(`${writeToolCall('f', {})}\nand more`, 3).at(-1)).toEqual({ type: 'text', text: '\nand more' });
  });
});

describe('withToolsAsText', () => {
  it('tells the tools in the system message, writes calls as text and gives results back in one user turn', () => {
    const out = withToolsAsText(
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'w', arguments: '{"city":"Paris"}' }, { id: 'b', name: 'w', arguments: 'not json' }] },
        { role: 'tool', content: 'sunny', toolCallId: 'a', toolName: 'w' },
        { role: 'tool', content: 'rain', toolCallId: 'b', toolName: 'w' },
      ],
      [{ name: 'w', parameters: { type: 'object' } }],
    );
    expect(out.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(out[0]!.content).toMatch(/^Be brief\.\n\n# Tools\n[\s\S]*<tools>\n\{"type":"function","function":\{"name":"w","parameters":\{"type":"object"\}\}\}\n<\/tools>/);
    expect(out[2]!.content).toBe('<tool_call>\n{"name": "w", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "w", "arguments": "not json"}\n</tool_call>');
    expect(out[3]!.content).toBe('<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response>');
  });
});
