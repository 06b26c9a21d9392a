/**
 * Tool calls on the built-in model. The Prompt API constrains an answer with a JSON schema, not a
 * grammar, so it cannot be made to write the Hermes tags the gateway reads (`tool-syntax.ts`).
 * The answer is constrained to a JSON object instead, `{"tool_calls": [{"name", "arguments"}]}`
 * or (where the model may answer in words) `{"content": …}`, and turned into the Hermes text once
 * it is whole, so the gateway parses and streams the calls as it does every engine's. See
 * docs/decisions/builtin-model.md.
 * @module
 */
import { outputToEnforce, type ChatRequest, type ToolSpec } from '../../core/engine.ts';
import { TOOL_CALL_SEPARATOR, writeToolCall } from '../../core/tool-syntax.ts';

/** Whether the request's answer goes through this file: it has tools the model may call. */
export function usesTools(request: ChatRequest): boolean {
  return (request.tools?.length ?? 0) > 0 && request.toolChoice !== 'none';
}

/** The schema of the answer: calls of the allowed tools, or (with `auto`) a reply in words or in the requested JSON. */
export function toolAnswerSchema(request: ChatRequest): Record<string, unknown> {
  const choice = request.toolChoice ?? 'auto';
  const tools = (request.tools ?? []).filter((tool) => typeof choice !== 'object' || tool.name === choice.name);
  const call = (tool: ToolSpec) => ({
    type: 'object',
    // `enum` rather than `const`: the older keyword, which more schema-to-grammar converters take.
    properties: { name: { type: 'string', enum: [tool.name] }, arguments: tool.parameters },
    required: ['name', 'arguments'],
    additionalProperties: false,
  });
  const calls = {
    type: 'object',
    properties: {
      tool_calls: { type: 'array', minItems: 1, ...(request.parallelToolCalls === false ? { maxItems: 1 } : {}), items: tools.length === 1 ? call(tools[0]!) : { anyOf: tools.map(call) } },
    },
    required: ['tool_calls'],
    additionalProperties: false,
  };
  if (choice !== 'auto') return calls;
  const output = outputToEnforce(request);
  const content = output?.kind === 'json_schema' ? output.schema : output?.kind === 'json_object' ? { type: 'object' } : { type: 'string' };
  const reply = { type: 'object', properties: { content }, required: ['content'], additionalProperties: false };
  return { anyOf: [calls, reply] };
}

/** The tools, told in the system message: what the schema lets the model write, and when. */
export function toolPrompt(request: ChatRequest): string {
  const tools = (request.tools ?? []).map((tool) => JSON.stringify({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters }));
  const choice = request.toolChoice ?? 'auto';
  const how =
    choice === 'auto'
      ? 'To call tools, answer {"tool_calls": [{"name": <tool name>, "arguments": <arguments object>}]}; to answer the user directly, answer {"content": <your answer>}.'
      : 'Answer {"tool_calls": [{"name": <tool name>, "arguments": <arguments object>}]}.';
  return ['You can call these tools:', ...tools, how].join('\n');
}

/**
 * The whole answer as the text the gateway reads: the calls in Hermes tags, or the reply itself
 * (JSON text where the reply was to be JSON). An answer that is not what the schema allows (a
 * browser that ignored the constraint) is passed on as it came.
 */
export function toolAnswerText(answer: string): string {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    return answer;
  }
  const { tool_calls: calls, content } = (value ?? {}) as { tool_calls?: unknown; content?: unknown };
  if (Array.isArray(calls) && calls.length > 0 && calls.every((c) => typeof (c as { name?: unknown })?.name === 'string')) {
    return calls.map((c: { name: string; arguments?: unknown }) => writeToolCall(c.name, c.arguments ?? {})).join(TOOL_CALL_SEPARATOR);
  }
  if (typeof content === 'string') return content;
  if (content !== undefined) return JSON.stringify(content);
  return answer;
}
