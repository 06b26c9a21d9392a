import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../core/engine.ts';
import { ToolCallParser } from '../../core/tool-syntax.ts';
import { toolAnswerSchema, toolAnswerText, usesTools } from './tool-schema.ts';

const tool = (name: string) => ({ name, parameters: { type: 'object', properties: { city: { type: 'string' } } } });
const request = (extra: Partial<ChatRequest>): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], maxTokens: 10, stop: [], tools: [tool('a'), tool('b')], ...extra });

describe('tool calls on the built-in model', () => {
  it('goes this way only when the model may call a tool', () => {
    expect(usesTools(request({}))).toBe(true);
    expect(usesTools(request({ toolChoice: 'none' }))).toBe(false);
    expect(usesTools(request({ tools: [] }))).toBe(false);
  });

  it('allows a reply in words (or in the requested JSON) only with auto, one call only without parallel calls', () => {
    const auto = toolAnswerSchema(request({ output: { kind: 'json_schema', schema: { type: 'object', properties: { x: { type: 'number' } } }, strict: true } })) as { anyOf: { properties: Record<string, unknown> }[] };
    expect(auto.anyOf[1]!.properties.content).toEqual({ type: 'object', properties: { x: { type: 'number' } } });
    const required = toolAnswerSchema(request({ toolChoice: 'required', parallelToolCalls: false })) as { properties: { tool_calls: { maxItems?: number; items: { anyOf: unknown[] } } } };
    expect(required.properties.tool_calls.maxItems).toBe(1);
    expect(required.properties.tool_calls.items.anyOf).toHaveLength(2);
  });

  it('turns the JSON answer into the Hermes text the gateway parses back into the same calls', () => {
    const text = toolAnswerText('{"tool_calls":[{"name":"a","arguments":{"city":"Paris"}},{"name":"b","arguments":{}}]}');
    const parser = new ToolCallParser();
    const pieces = [...parser.push(text), ...parser.end()];
    expect(pieces.filter((p) => p.type === 'call').map((p) => (p.type === 'call' ? p.name : ''))).toEqual(['a', 'b']);
    const args = pieces.filter((p) => p.type === 'arguments' && p.index === 0).map((p) => (p.type === 'arguments' ? p.text : '')).join('');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
  });

  it('gives a reply in words as itself, a JSON reply as JSON text, and anything unexpected as it came', () => {
    expect(toolAnswerText('{"content":"Sunny."}')).toBe('Sunny.');
    expect(toolAnswerText('{"content":{"x":1}}')).toBe('{"x":1}');
    expect(toolAnswerText('not json')).toBe('not json');
    expect(toolAnswerText('{"other":1}')).toBe('{"other":1}');
  });
});
