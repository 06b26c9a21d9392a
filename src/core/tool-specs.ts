/**
 * Tool definitions as every wire format sends them, checked once: a name the call format can carry
 * and an arguments schema the grammar can enforce (an object, as both APIs require).
 * @module
 */
import type { Ask } from './admit.ts';
import type { ChatMessage, ToolCall, ToolChoice, ToolSpec } from './engine.ts';
import { describe, invalid, isRecord } from './fields.ts';

/** Both APIs allow these names; nothing else can be written into the call format unescaped. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * One tool, from its parts; `at` is where it is in the request (`tools[0].function`, `tools.0`).
 * Whether the grammar can enforce its schema is asked of the model (`asks`): a remote model's
 * server enforces it itself.
 */
export function toolSpec(name: unknown, description: unknown, parameters: unknown, at: string, schemaKey: string, asks: Ask[]): ToolSpec {
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw invalid(`${at}.name`, `Invalid '${at}.name': expected a string of 1 to 64 letters, digits, underscores or dashes, but got ${describe(name)}.`);
  }
  if (description !== undefined && description !== null && typeof description !== 'string') {
    throw invalid(`${at}.description`, `Invalid type for '${at}.description': expected a string, but got ${describe(description)}.`);
  }
  const param = `${at}.${schemaKey}`;
  const schema = parameters ?? { type: 'object', properties: {} };
  if (!isRecord(schema)) throw invalid(param, `Invalid type for '${param}': expected an object, but got ${describe(schema)}.`);
  if (schema.type !== undefined && schema.type !== 'object') {
    throw invalid(`${param}.type`, `Invalid '${param}': a tool's arguments are an object, so its schema's type must be 'object', not ${describe(schema.type)}.`);
  }
  asks.push({ need: 'grammar', schema, param, tool: true });
  return {
    name,
    ...(typeof description === 'string' && description ? { description } : {}),
    // As sent: this is what the model is shown. The grammar's form of it is made where it is compiled.
    parameters: { ...schema, type: 'object' },
  };
}

/** Two tools of one name could not be told apart in a call. */
export function checkUniqueNames(tools: readonly ToolSpec[], param: string): void {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw invalid(param, `Invalid '${param}': tool names must be unique, and '${tool.name}' is given twice.`);
    seen.add(tool.name);
  }
}

/** A named tool choice must name one of the tools. */
export function checkChoice(choice: ToolChoice, tools: readonly ToolSpec[], param: string): void {
  if (typeof choice === 'object' && !tools.some((tool) => tool.name === choice.name)) {
    throw invalid(param, `Invalid '${param}': no tool named '${choice.name}' is among the tools (${tools.map((t) => `'${t.name}'`).join(', ') || 'none'}).`);
  }
}

/**
 * Gives each tool result the name of the call it answers, from the assistant turn before it:
 * templates show results by tool name. A result that answers no call is refused, as both APIs do.
 */
export function nameToolResults(messages: readonly ChatMessage[], param: string, message: (id: string) => string): ChatMessage[] {
  const calls = new Map<string, ToolCall>();
  return messages.map((turn, i) => {
    for (const call of turn.toolCalls ?? []) calls.set(call.id, call);
    if (turn.role !== 'tool') return turn;
    const call = calls.get(turn.toolCallId ?? '');
    if (!call) throw invalid(param.replace('{i}', String(i)), message(turn.toolCallId ?? ''));
    return { ...turn, toolName: call.name };
  });
}
