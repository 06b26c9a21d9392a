/**
 * The chat wire flavours, side by side: how one conversation and its settings become an OpenAI
 * `/chat/completions`, an Anthropic `/messages` or an OpenAI `/responses` request, and what each
 * flavour's SSE events mean (text, tool calls, finish, token counts, in-band errors). The
 * Responses flavour lives in responses-flavour.ts; whole (not streamed) replies in whole-replies.ts;
 * the settings they share in chat-settings.ts, what their events say in stream-update.ts.
 * @module
 */
import { absoluteUrl, type RecordedRequest } from './api.ts';
import {
  anthropicMessages,
  anthropicToolChoice,
  anthropicTools,
  openAIMessages,
  openAIToolChoice,
  openAITools,
  respondTool,
  RESPOND_TOOL,
  type Turn,
} from './chat-wire.ts';
import { readResponsesEvent, responsesRequest, type KeptConversation } from './responses-flavour.ts';
import type { ChatSettings, Flavour } from './chat-settings.ts';
import type { StreamUpdate } from './stream-update.ts';
import type { SSEEvent } from '../core/sse.ts';
import { promptUsage } from './prompt-usage.ts';

export type { Turn } from './chat-wire.ts';

/**
 * 2023-06-01 rather than the newest version: it still accepts `temperature`
 * (later versions refuse sampling parameters, as the real API does).
 */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `kept`: the Responses flavour's conversation on the server, which holds the earlier turns. */
export function chatRequest(baseUrl: string, settings: ChatSettings, turns: readonly Turn[], kept?: KeptConversation): RecordedRequest {
  if (settings.flavour === 'responses') return responsesRequest(baseUrl, settings, turns, kept);
  const sampling = settings.temperature === undefined ? {} : { temperature: settings.temperature };
  const tools = settings.tools?.length ? settings.tools : undefined;
  const choice = settings.toolChoice ?? 'auto';
  const parallel = settings.parallelToolCalls ?? true;
  if (settings.flavour === 'openai') {
    const system = settings.system.trim() ? [{ role: 'system', content: settings.system }] : [];
    return {
      method: 'POST',
      url: absoluteUrl(baseUrl, '/chat/completions'),
      headers: { 'content-type': 'application/json' },
      body: {
        model: settings.model,
        messages: [...system, ...openAIMessages(turns)],
        stream: settings.stream,
        // The usage chunk gives the true output token count for tokens/s.
        ...(settings.stream ? { stream_options: { include_usage: true } } : {}),
        max_tokens: settings.maxTokens,
        ...sampling,
        ...(settings.stop.length ? { stop: settings.stop } : {}),
        ...(settings.schema ? { response_format: { type: 'json_schema', json_schema: { name: 'response', schema: settings.schema, strict: true } } } : {}),
        ...(tools ? { tools: openAITools(tools), tool_choice: openAIToolChoice(choice), ...(parallel ? {} : { parallel_tool_calls: false }) } : {}),
      },
    };
  }
  return {
    method: 'POST',
    url: absoluteUrl(baseUrl, '/messages'),
    headers: { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION },
    body: {
      model: settings.model,
      max_tokens: settings.maxTokens,
      ...(settings.system.trim() ? { system: settings.system } : {}),
      messages: anthropicMessages(turns),
      stream: settings.stream,
      ...(settings.thinks ? { thinking: { type: 'adaptive' } } : {}),
      ...sampling,
      ...(settings.stop.length ? { stop_sequences: settings.stop } : {}),
      // The schema is itself the one forced tool, so the tools box cannot go with it.
      ...(settings.schema
        ? { tools: [respondTool(settings.schema)], tool_choice: { type: 'tool', name: RESPOND_TOOL } }
        : tools
          ? { tools: anthropicTools(tools), tool_choice: anthropicToolChoice(choice, parallel) }
          : {}),
    },
  };
}

export function readEvent(flavour: Flavour, event: SSEEvent): StreamUpdate {
  if (flavour === 'responses') return readResponsesEvent(event);
  if (flavour === 'openai') {
    if (event.data === '[DONE]') return { done: true };
    const chunk = parse(event.data);
    if (chunk.error !== undefined) return { error: chunk };
    const choice = (chunk.choices as Record<string, unknown>[] | undefined)?.[0];
    const delta = choice?.delta as { content?: string; reasoning_content?: string; tool_calls?: OpenAIToolDelta[] } | undefined;
    const usage = chunk.usage as { completion_tokens?: number } | null | undefined;
    const tools = (delta?.tool_calls ?? []).map((call) => ({
      index: call.index,
      ...(call.id ? { id: call.id } : {}),
      ...(call.function?.name ? { name: call.function.name } : {}),
      ...(call.function?.arguments ? { arguments: call.function.arguments } : {}),
    }));
    return {
      ...(delta?.content ? { text: delta.content } : {}),
      ...(delta?.reasoning_content ? { thinking: delta.reasoning_content } : {}),
      ...(tools.length ? { tools } : {}),
      ...(typeof choice?.finish_reason === 'string' ? { finish: choice.finish_reason } : {}),
      ...(typeof usage?.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
      ...promptUsage(usage),
    };
  }
  const data = parse(event.data);
  const index = typeof data.index === 'number' ? data.index : 0;
  switch (event.event ?? data.type) {
    case 'message_start':
      return promptUsage((data.message as { usage?: unknown } | undefined)?.usage);
    case 'content_block_start': {
      const block = data.content_block as { type?: string; id?: string; name?: string } | undefined;
      return block?.type === 'tool_use' ? { tools: [{ index, id: block.id ?? '', name: block.name ?? '' }] } : {};
    }
    case 'content_block_delta': {
      const delta = data.delta as { type?: string; text?: string; partial_json?: string; thinking?: string } | undefined;
      if (delta?.type === 'input_json_delta') return delta.partial_json ? { tools: [{ index, arguments: delta.partial_json }] } : {};
      if (delta?.type === 'thinking_delta') return delta.thinking ? { thinking: delta.thinking } : {};
      return delta?.type === 'text_delta' && delta.text ? { text: delta.text } : {};
    }
    case 'message_delta': {
      const delta = data.delta as { stop_reason?: string } | undefined;
      const usage = data.usage as { output_tokens?: number } | undefined;
      return {
        ...(delta?.stop_reason ? { finish: delta.stop_reason } : {}),
        ...(typeof usage?.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
        ...promptUsage(usage),
      };
    }
    case 'message_stop':
      return { done: true };
    case 'error':
      return { error: data };
    default:
      return {};
  }
}

interface OpenAIToolDelta {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

function parse(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
