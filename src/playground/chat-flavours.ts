/**
 * The two chat wire flavours, side by side: how one conversation and its settings become an
 * OpenAI `/chat/completions` or an Anthropic `/messages` streaming request, and what each
 * flavour's SSE events mean (text, finish, token counts, in-band errors).
 * @module
 */
import { absoluteUrl, type RecordedRequest } from './api.ts';
import type { SSEEvent } from '../core/sse.ts';

export type Flavour = 'openai' | 'anthropic';

export interface ChatSettings {
  readonly flavour: Flavour;
  readonly model: string;
  readonly system: string;
  /** Undefined: the server's default. */
  readonly temperature?: number;
  readonly maxTokens: number;
  readonly stop: readonly string[];
}

export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/**
 * 2023-06-01 rather than the newest version: it still accepts `temperature`
 * (later versions refuse sampling parameters, as the real API does).
 */
export const ANTHROPIC_VERSION = '2023-06-01';

export function chatRequest(baseUrl: string, settings: ChatSettings, turns: readonly Turn[]): RecordedRequest {
  const sampling = settings.temperature === undefined ? {} : { temperature: settings.temperature };
  if (settings.flavour === 'openai') {
    const system = settings.system.trim() ? [{ role: 'system', content: settings.system }] : [];
    return {
      method: 'POST',
      url: absoluteUrl(baseUrl, '/chat/completions'),
      headers: { 'content-type': 'application/json' },
      body: {
        model: settings.model,
        messages: [...system, ...turns],
        stream: true,
        // The usage chunk gives the true output token count for tokens/s.
        stream_options: { include_usage: true },
        max_tokens: settings.maxTokens,
        ...sampling,
        ...(settings.stop.length ? { stop: settings.stop } : {}),
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
      messages: turns,
      stream: true,
      ...sampling,
      ...(settings.stop.length ? { stop_sequences: settings.stop } : {}),
    },
  };
}

/** What one SSE event says, in flavour-neutral terms. */
export interface StreamUpdate {
  readonly text?: string;
  readonly finish?: string;
  /** Output tokens so far (both flavours report a cumulative count near the end). */
  readonly outputTokens?: number;
  /** An error sent in-band after the stream began: the event's whole body. */
  readonly error?: unknown;
  readonly done?: boolean;
}

export function readEvent(flavour: Flavour, event: SSEEvent): StreamUpdate {
  if (flavour === 'openai') {
    if (event.data === '[DONE]') return { done: true };
    const chunk = parse(event.data);
    if (chunk.error !== undefined) return { error: chunk };
    const choice = (chunk.choices as Record<string, unknown>[] | undefined)?.[0];
    const delta = choice?.delta as { content?: string } | undefined;
    const usage = chunk.usage as { completion_tokens?: number } | null | undefined;
    return {
      ...(delta?.content ? { text: delta.content } : {}),
      ...(typeof choice?.finish_reason === 'string' ? { finish: choice.finish_reason } : {}),
      ...(typeof usage?.completion_tokens === 'number' ? { outputTokens: usage.completion_tokens } : {}),
    };
  }
  const data = parse(event.data);
  switch (event.event ?? data.type) {
    case 'content_block_delta': {
      const delta = data.delta as { type?: string; text?: string } | undefined;
      return delta?.type === 'text_delta' && delta.text ? { text: delta.text } : {};
    }
    case 'message_delta': {
      const delta = data.delta as { stop_reason?: string } | undefined;
      const usage = data.usage as { output_tokens?: number } | undefined;
      return {
        ...(delta?.stop_reason ? { finish: delta.stop_reason } : {}),
        ...(typeof usage?.output_tokens === 'number' ? { outputTokens: usage.output_tokens } : {}),
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

function parse(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
