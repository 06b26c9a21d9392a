/**
 * A chat request as one Prompt API session: the conversation before the last turn becomes the
 * session's `initialPrompts` (a system message first, as the API requires), the last user turn
 * (and an assistant prefill after it) the prompt's input. Tool calls and results, which the API
 * has no roles for, are written as the JSON the model answers with and as user turns.
 * @module
 */
import { outputToEnforce, type ChatMessage, type ChatRequest, type OutputConstraint } from '../../core/engine.ts';
import type { BuiltinPrompt, BuiltinTurn } from '../../contracts/builtin-model.ts';
import { joinTurns } from '../../core/turns.ts';
import { toolAnswerSchema, toolPrompt, usesTools } from './tool-schema.ts';

export function toBuiltinPrompt(request: ChatRequest): BuiltinPrompt {
  const tools = usesTools(request);
  const output = outputToEnforce(request);
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content);
  if (tools) system.push(toolPrompt(request));
  const turns = request.messages.filter((m) => m.role !== 'system').map(toTurn);
  const merged = joinTurns(turns, joinUsers);
  // The input starts at the last user turn; an assistant turn after it is a prefill.
  let split = merged.length;
  while (split > 0 && merged[split - 1]!.role !== 'user') split--;
  const lastUser = Math.max(0, split - 1);
  const input = merged.slice(lastUser).map((m, i, all) => (i === all.length - 1 && m.role === 'assistant' ? { ...m, prefix: true } : m));
  return {
    initialPrompts: [...(system.length ? [{ role: 'system' as const, content: system.join('\n\n') }] : []), ...merged.slice(0, lastUser)],
    input: input.length ? input : [{ role: 'user', content: '' }],
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topK !== undefined ? { topK: request.topK } : {}),
    ...(tools ? { responseConstraint: toolAnswerSchema(request) } : output ? { responseConstraint: outputSchema(output) } : {}),
  };
}

function outputSchema(output: OutputConstraint): Record<string, unknown> {
  return output.kind === 'json_schema' ? { ...output.schema } : { type: 'object' };
}

function toTurn(message: ChatMessage): BuiltinTurn {
  if (message.role === 'tool') return { role: 'user', content: `Result of the tool call ${message.toolName ?? ''} (${message.toolCallId ?? ''}):\n${message.content}` };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    const calls = message.toolCalls.map((call) => ({ name: call.name, arguments: parse(call.arguments) }));
    return { role: 'assistant', content: JSON.stringify({ tool_calls: calls }) };
  }
  return { role: message.role === 'assistant' ? 'assistant' : 'user', content: message.content };
}

/** Consecutive user turns (several tool results) as one (core/turns.ts): the API alternates roles. */
const joinUsers = (last: BuiltinTurn, next: BuiltinTurn): BuiltinTurn | undefined => (last.role === 'user' ? { role: 'user', content: `${last.content}\n\n${next.content}` } : undefined);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
