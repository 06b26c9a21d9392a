/**
 * The conversation in the Responses API's terms: turns as `input` items (messages, function
 * calls, function call outputs), tools as flat function tools, the tool choice, and a Responses
 * body restated as a chat completion body, so the snippets can repeat it with the other SDKs.
 * @module
 */
import { openAIToolChoice, openAITools, toolsFrom, type ToolChoice, type ToolDef, type Turn } from './chat-wire.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A call is its own item after its turn's text; its result names it by `call_id`. */
export function responsesInput(turns: readonly Turn[]): Json[] {
  return turns.flatMap((turn): Json[] => {
    if (turn.role === 'tool') return [{ type: 'function_call_output', call_id: turn.toolCallId, output: turn.content }];
    if (turn.role === 'user') return [{ role: 'user', content: turn.content }];
    const calls = (turn.toolCalls ?? []).map((call) => ({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments }));
    return [...(turn.content || !calls.length ? [{ role: 'assistant', content: turn.content }] : []), ...calls];
  });
}

export const responsesTools = (tools: readonly ToolDef[]): Json[] =>
  tools.map((tool) => ({ type: 'function', name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters }));

export function responsesToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

function toolChoiceFromResponses(value: unknown): ToolChoice | undefined {
  if (value === 'auto' || value === 'required' || value === 'none') return value;
  return isRecord(value) && typeof value.name === 'string' ? { name: value.name } : undefined;
}

/** `input` items as chat messages: a call joins the assistant message just before it. */
function chatMessages(input: unknown): Json[] {
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input.filter(isRecord) : [];
  const messages: Json[] = [];
  for (const item of items) {
    if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    } else if (item.type === 'function_call') {
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as Json[] | undefined) ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (typeof item.role === 'string') {
      messages.push({ role: item.role, content: textOf(item.content) });
    }
  }
  return messages;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('\n') : '';
}

/** The same request as a chat completion body, less `stream` (each snippet streams as the call did). */
export function responsesToChat(body: Json): Json {
  const system = typeof body.instructions === 'string' && body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
  let tools: ToolDef[] | undefined;
  try {
    tools = Array.isArray(body.tools) && body.tools.length ? toolsFrom(body.tools) : undefined;
  } catch {
    tools = undefined;
  }
  return {
    model: body.model,
    messages: [...system, ...chatMessages(body.input)],
    ...(typeof body.max_output_tokens === 'number' ? { max_tokens: body.max_output_tokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(Array.isArray(body.stop) && body.stop.length ? { stop: body.stop } : {}),
    ...(format?.type === 'json_schema' ? { response_format: { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: format.strict ?? false } } } : {}),
    ...(tools
      ? { tools: openAITools(tools), tool_choice: openAIToolChoice(toolChoiceFromResponses(body.tool_choice) ?? 'auto'), ...(body.parallel_tool_calls === false ? { parallel_tool_calls: false } : {}) }
      : {}),
  };
}
