/**
 * The neutral `ChatRequest` as a web-llm streaming request, refusing up front what web-llm would
 * refuse mid-request with its own error types.
 * @module
 */

import type { ChatMessage, ChatRequest, ToolSpec } from '../../core/engine.ts';
import type { ReasoningFormat } from '../../core/reasoning.ts';
import { GatewayError } from '../../core/errors.ts';
import { ToolCallParser, withToolsAsText } from '../../core/tool-syntax.ts';
import type { WebLLMChatRequest, WebLLMMessage } from './mlc-engine-like.ts';

/**
 * `grammar`, when given (see grammar.ts), constrains the output: web-llm masks every token the
 * grammar does not allow, the first one (sampled right after prefill) included. The tools are then
 * in the prompt as text in the format that grammar writes (see `toWebLLMMessages`).
 * @note Unlike the transformers.js path, no per-token gate keeps control bytes and broken UTF-8
 * out: web-llm matches with xgrammar alone. Inside JSON strings the grammar itself excludes
 * control characters; free text may hold them, as an unconstrained reply may.
 * `stop`: the stop strings web-llm is to stop at itself (see `webllmStops`).
 * @note `topK` is ignored: web-llm's OpenAI-style API has no top-k.
 */
export function toWebLLMRequest(request: ChatRequest, grammar?: string, reasoning?: ReasoningFormat, stop: readonly string[] = []): WebLLMChatRequest {
  const greedy = request.topP !== undefined && request.topP <= 0;
  return {
    messages: toWebLLMMessages(request.messages, request.tools),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens,
    ...(stop.length > 0 ? { stop: [...stop] } : {}),
    // web-llm rejects top_p = 0; its limit, keeping only the likeliest token, is greedy decoding.
    temperature: greedy ? 0 : request.temperature,
    top_p: greedy ? undefined : request.topP,
    // web-llm rejects a seed that is not an integer.
    seed: request.seed !== undefined && Number.isInteger(request.seed) ? request.seed : undefined,
    presence_penalty: request.presencePenalty,
    frequency_penalty: request.frequencyPenalty,
    // web-llm adds it after the grammar's mask, whose -Infinity no bias undoes: a grammar still wins.
    ...(request.logitBias ? { logit_bias: Object.fromEntries([...request.logitBias].map(([id, bias]) => [String(id), bias])) } : {}),
    ...(grammar === undefined ? {} : { response_format: { type: 'grammar', grammar } }),
    // web-llm's switch for Qwen3: it writes an empty thinking block before the answer.
    ...(request.thinking === false && reasoning?.switch === 'enable_thinking' ? { extra_body: { enable_thinking: false } } : {}),
  };
}

/**
 * The stop strings web-llm stops at itself, so that a reply cut at one ends as naturally as any
 * other and web-llm keeps its conversation for the next turn (an abort makes it start afresh; see
 * docs/decisions/webllm-keeps-its-conversation.md). Only where the gateway applies them to the
 * whole output, as web-llm would: not to a model's thinking (the gateway applies them to the
 * answer after it), not inside tool calls, not to constrained output (where none apply). There the
 * gateway's own cut stops web-llm. Empty strings are left out (web-llm would stop at once).
 */
export function webllmStops(request: ChatRequest, reasoning?: ReasoningFormat): string[] {
  const calling = request.tools !== undefined && request.tools.length > 0 && request.toolChoice !== 'none';
  if (reasoning || calling || request.output) return [];
  return request.stop.filter((stop) => stop.length > 0);
}

/**
 * The text `toWebLLMMessages` writes for an assistant message that carries this reply as the
 * gateway read it back: its tool calls parsed and written out again (as the client returns them,
 * OpenAI's `arguments` strings or Anthropic's `input` objects), or its text as it is. Equal to the
 * reply unless the model wrote a call's JSON some other way than it is written out (`1.0` for `1`,
 * an escaped character): see `PromptTokenCounter.asKept`.
 */
export function writtenBack(reply: string): string {
  const parser = new ToolCallParser();
  const pieces = [...parser.push(reply), ...parser.end()];
  const calls: { id: string; name: string; arguments: string }[] = [];
  let text = '';
  for (const piece of pieces) {
    if (piece.type === 'text') text += piece.text;
    else if (piece.type === 'call') calls[piece.index] = { id: '', name: piece.name, arguments: '' };
    else calls[piece.index]!.arguments += piece.text;
  }
  // Text after calls is not something the grammar writes, nor what a client sends back.
  if (calls.length === 0 || text) return reply;
  return withToolsAsText([{ role: 'assistant', content: '', toolCalls: calls }], [])[0]!.content;
}

/**
 * web-llm takes one leading system prompt and requires the last message to be the user's: it
 * rejects a trailing assistant message (a prefill) with `MessageOrderError`, because its
 * conversation template always opens a fresh assistant turn after the last user message and it
 * has no way to continue a partial one. So a prefill is a 400 here rather than an answer that
 * silently ignores it.
 *
 * Tools, and earlier calls and results, are written as text in the format the grammar enforces
 * (web-llm's conversation templates have no tool format): the tools in the system prompt, a
 * result as a user turn, so a conversation that ends with results still ends with the user.
 */
export function toWebLLMMessages(conversation: readonly ChatMessage[], tools: readonly ToolSpec[] = []): WebLLMMessage[] {
  const usesTools = tools.length > 0 || conversation.some((m) => m.role === 'tool' || m.toolCalls?.length);
  const messages = usesTools ? withToolsAsText(conversation, tools) : conversation;
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    throw invalid('WebLLM models cannot continue a trailing assistant message (prefill); end the conversation with a user message.');
  }
  if (last?.role !== 'user') throw invalid('The last message must be a user message.');
  const out: WebLLMMessage[] = [];
  const system: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') {
      if (out.length > 0) throw invalid('WebLLM models take system messages only at the start of the conversation.');
      system.push(message.content);
    } else if (message.role !== 'tool') {
      out.push({ role: message.role, content: message.content });
    }
  }
  if (system.length > 0) out.unshift({ role: 'system', content: system.join('\n\n') });
  return out;
}

function invalid(message: string): GatewayError {
  return new GatewayError('invalid_request', message, { param: 'messages' });
}
