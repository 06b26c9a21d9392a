/**
 * A reply that came as one JSON body (streaming off), read in the same flavour-neutral terms as a
 * stream's events, so the panel shows it the same way: a chat completion, an Anthropic message or
 * a Responses response object.
 * @module
 */
import type { Flavour } from './chat-settings.ts';
import type { StreamUpdate, ToolDelta } from './stream-update.ts';
import { readResponse } from './responses-flavour.ts';
import { promptUsage } from './prompt-usage.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function readWholeReply(flavour: Flavour, body: unknown): StreamUpdate {
  if (!isRecord(body)) return {};
  if (flavour === 'responses') return readResponse(body);
  return flavour === 'openai' ? readCompletion(body) : readMessage(body);
}

function readCompletion(body: Json): StreamUpdate {
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const tools = calls.map((call, index): ToolDelta => {
    const fn = isRecord(call.function) ? call.function : {};
    return { index, id: String(call.id ?? ''), name: String(fn.name ?? ''), ...(typeof fn.arguments === 'string' && fn.arguments ? { arguments: fn.arguments } : {}) };
  });
  const usage = isRecord(body.usage) ? body.usage : undefined;
  return {
    ...(typeof message.content === 'string' && message.content ? { text: message.content } : {}),
    ...(typeof message.reasoning_content === 'string' && message.reasoning_content ? { thinking: message.reasoning_content } : {}),
    ...(tools.length ? { tools } : {}),
    ...(typeof choice.finish_reason === 'string' ? { finish: choice.finish_reason } : {}),
    ...(typeof usage?.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
    ...promptUsage(usage),
  };
}

/** Text blocks joined; a tool_use block's input restated as the JSON text a stream would send. */
function readMessage(body: Json): StreamUpdate {
  const blocks = Array.isArray(body.content) ? body.content : [];
  const text = blocks.map((block) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
  const tools = blocks.flatMap((block, index): ToolDelta[] =>
    isRecord(block) && block.type === 'tool_use' ? [{ index, id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) }] : [],
  );
  const thinking = blocks.map((block) => (isRecord(block) && block.type === 'thinking' && typeof block.thinking === 'string' ? block.thinking : '')).join('');
  const usage = isRecord(body.usage) ? body.usage : undefined;
  return {
    ...(text ? { text } : {}),
    ...(thinking ? { thinking } : {}),
    ...(tools.length ? { tools } : {}),
    ...(typeof body.stop_reason === 'string' ? { finish: body.stop_reason } : {}),
    ...(typeof usage?.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
    ...promptUsage(usage),
  };
}
