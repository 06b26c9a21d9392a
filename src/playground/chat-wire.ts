/**
 * One conversation in flavour-neutral terms (text turns, tool calls, tool results), tool
 * definitions and tool choice, and how each becomes either flavour's wire shape and back: the
 * panel keeps one conversation across flavour switches, and the snippets restate a request in
 * the other flavour.
 * @module
 */

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text, as OpenAI sends them. */
  readonly arguments: string;
}

export type Turn =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string; readonly toolCalls?: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

export interface ToolDef {
  readonly name: string;
  readonly description?: string;
  /** The arguments' JSON schema. */
  readonly parameters: unknown;
}

/** `required` is Anthropic's `any`; a name forces that tool. */
export type ToolChoice = 'auto' | 'required' | 'none' | { readonly name: string };

type Json = Record<string, unknown>;

/**
 * The Anthropic flavour has no response_format: a schema is sent as the input schema of this
 * one tool, forced, and the call's input is the structured reply.
 */
export const RESPOND_TOOL = 'respond';

export function respondTool(schema: unknown): Json {
  return { name: RESPOND_TOOL, description: 'Give the answer as this tool\'s input.', input_schema: schema };
}

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function openAIMessages(turns: readonly Turn[]): Json[] {
  return turns.map((turn) => {
    if (turn.role === 'tool') return { role: 'tool', tool_call_id: turn.toolCallId, content: turn.content };
    if (turn.role === 'assistant' && turn.toolCalls?.length) {
      return {
        role: 'assistant',
        content: turn.content || null,
        tool_calls: turn.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      };
    }
    return { role: turn.role, content: turn.content };
  });
}

export function anthropicMessages(turns: readonly Turn[]): Json[] {
  const out: Json[] = [];
  // Results of one turn's calls (and any text after them) go back together in one user message.
  const userBlocks = (): Json[] => {
    const last = out.at(-1);
    if (last?.role === 'user' && Array.isArray(last.content)) return last.content as Json[];
    const blocks: Json[] = [];
    out.push({ role: 'user', content: blocks });
    return blocks;
  };
  for (const turn of turns) {
    if (turn.role === 'tool') {
      userBlocks().push({ type: 'tool_result', tool_use_id: turn.toolCallId, content: turn.content });
    } else if (turn.role === 'user' && Array.isArray(out.at(-1)?.content) && out.at(-1)?.role === 'user') {
      userBlocks().push({ type: 'text', text: turn.content });
    } else if (turn.role === 'assistant' && turn.toolCalls?.length) {
      out.push({
        role: 'assistant',
        content: [
          ...(turn.content ? [{ type: 'text', text: turn.content }] : []),
          ...turn.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: parseObject(call.arguments) })),
        ],
      });
    } else {
      out.push({ role: turn.role, content: turn.content });
    }
  }
  return out;
}

/** An OpenAI message list as system text and turns. */
export function turnsFromOpenAI(messages: readonly unknown[]): { system: string[]; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const content = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') system.push(content);
    else if (message.role === 'tool') turns.push({ role: 'tool', toolCallId: String(message.tool_call_id), content });
    else if (message.role === 'user') turns.push({ role: 'user', content });
    else if (message.role === 'assistant') {
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
      const toolCalls = calls.map((call) => {
        const fn = isRecord(call.function) ? call.function : {};
        return { id: String(call.id), name: String(fn.name), arguments: typeof fn.arguments === 'string' ? fn.arguments : '{}' };
      });
      turns.push(toolCalls.length ? { role: 'assistant', content, toolCalls } : { role: 'assistant', content });
    }
  }
  return { system, turns };
}

/** An Anthropic message list as turns: tool_use blocks become calls, tool_result blocks results. */
export function turnsFromAnthropic(messages: readonly unknown[]): Turn[] {
  const turns: Turn[] = [];
  for (const message of messages) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) continue;
    if (!Array.isArray(message.content)) {
      turns.push({ role: message.role, content: textOf(message.content) });
      continue;
    }
    const blocks = message.content.filter(isRecord);
    const text = textOf(blocks.filter((b) => b.type === 'text'));
    if (message.role === 'assistant') {
      const toolCalls = blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: String(b.id), name: String(b.name), arguments: JSON.stringify(b.input ?? {}) }));
      turns.push(toolCalls.length ? { role: 'assistant', content: text, toolCalls } : { role: 'assistant', content: text });
      continue;
    }
    for (const b of blocks) if (b.type === 'tool_result') turns.push({ role: 'tool', toolCallId: String(b.tool_use_id), content: textOf(b.content) });
    if (text || !blocks.some((b) => b.type === 'tool_result')) turns.push({ role: 'user', content: text });
  }
  return turns;
}

/** A string, or the text of content parts / blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('\n');
}

/** Arguments that a cut-short call left unparseable still give Anthropic the object it requires. */
function parseObject(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}

export const openAITools = (tools: readonly ToolDef[]): Json[] =>
  tools.map((tool) => ({ type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters } }));

export const anthropicTools = (tools: readonly ToolDef[]): Json[] =>
  tools.map((tool) => ({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), input_schema: tool.parameters }));

/**
 * Tool definitions in any of three shapes: `{name, description, parameters}`, OpenAI's
 * `{type: 'function', function: {…}}` or Anthropic's `{name, description, input_schema}`.
 * Throws an Error that says what is wrong, for the tools box to show.
 */
export function toolsFrom(value: unknown): ToolDef[] {
  if (!Array.isArray(value)) throw new Error('The tools must be a JSON array of tool definitions.');
  return value.map((item, i) => {
    const tool = isRecord(item) && isRecord(item.function) ? item.function : item;
    if (!isRecord(tool) || typeof tool.name !== 'string' || !tool.name) throw new Error(`Tool ${i + 1} needs a "name" string.`);
    const parameters = tool.parameters ?? tool.input_schema ?? { type: 'object', properties: {} };
    return { name: tool.name, ...(typeof tool.description === 'string' ? { description: tool.description } : {}), parameters };
  });
}

export function openAIToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

export function anthropicToolChoice(choice: ToolChoice, parallel: boolean): Json {
  const base = typeof choice === 'object' ? { type: 'tool', name: choice.name } : { type: choice === 'required' ? 'any' : choice };
  return !parallel && choice !== 'none' ? { ...base, disable_parallel_tool_use: true } : base;
}

export function toolChoiceFromOpenAI(value: unknown): ToolChoice | undefined {
  if (value === 'auto' || value === 'required' || value === 'none') return value;
  if (isRecord(value) && isRecord(value.function) && typeof value.function.name === 'string') return { name: value.function.name };
  return undefined;
}

export function toolChoiceFromAnthropic(value: unknown): { choice?: ToolChoice; parallel: boolean } {
  if (!isRecord(value)) return { parallel: true };
  const parallel = value.disable_parallel_tool_use !== true;
  if (value.type === 'tool' && typeof value.name === 'string') return { choice: { name: value.name }, parallel };
  const choice = value.type === 'any' ? 'required' : value.type === 'auto' || value.type === 'none' ? value.type : undefined;
  return choice ? { choice, parallel } : { parallel };
}
