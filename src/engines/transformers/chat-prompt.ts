/**
 * Renders chat messages to the prompt text with the model's own chat template.
 * @module
 */

import type { ChatMessage, ToolSpec } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { argumentsValue, TOOL_CALL_OPEN, withToolsAsText } from '../../core/tool-syntax.ts';
import { joinMessages, joinTurns } from '../../core/turns.ts';

/** A message as Hugging Face chat templates read it. */
interface TemplateMessage {
  role: string;
  content: string;
  tool_calls?: { type: 'function'; id: string; function: { name: string; arguments: unknown } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatTemplater {
  apply_chat_template(messages: TemplateMessage[], options: { tokenize: false; add_generation_prompt: boolean; tools?: unknown[]; enable_thinking?: boolean }): unknown;
  get_chat_template?(options?: { tools?: unknown[] }): string;
}

/**
 * A trailing assistant message is a prefill: the model continues it rather than starting a new
 * turn. Chat templates have no common switch for that, so, as Hugging Face's
 * `continue_final_message` does, the conversation is rendered in full and cut right after the final
 * message's text (dropping the end-of-turn marker). When a template rewrites the text (e.g. trims
 * it) so it cannot be found, the prefill is appended to a fresh generation prompt instead.
 *
 * Tools, and the calls and results of earlier turns, are rendered by the template where it
 * writes calls in the format the grammar enforces (core/tool-syntax.ts); any other template gets
 * them as plain text in that format, so the prompt never shows one format and asks for another.
 *
 * Some templates refuse turns that do not alternate (Gemma's raises "Conversation roles must
 * alternate"), while the APIs accept two user messages in a row, and tool results given back as
 * text are a user turn of their own. Such a conversation is rendered again with consecutive turns
 * of one role joined (core/turns.ts); a template that still refuses it is a 400 carrying the
 * template's words.
 */
export function renderChatPrompt(tokenizer: ChatTemplater, messages: readonly ChatMessage[], tools: readonly ToolSpec[] = [], options: TemplateOptions = {}): string {
  try {
    return renderTurns(tokenizer, messages, tools, false, options);
  } catch (first) {
    try {
      return renderTurns(tokenizer, messages, tools, true, options);
    } catch {
      const reason = first instanceof Error ? first.message : String(first);
      throw new GatewayError('invalid_request', `The model's chat template refused this conversation: ${reason}`, { param: 'messages', cause: first });
    }
  }
}

/** Template switches: `enableThinking: false` is Qwen3's `enable_thinking`, which writes an empty thinking block into the prompt. */
export interface TemplateOptions {
  readonly enableThinking?: false;
}

function renderTurns(tokenizer: ChatTemplater, messages: readonly ChatMessage[], tools: readonly ToolSpec[], joined: boolean, options: TemplateOptions): string {
  const usesTools = tools.length > 0 || messages.some((m) => m.role === 'tool' || m.toolCalls?.length);
  const native = usesTools && templateWritesToolCalls(tokenizer);
  const asGiven = usesTools && !native ? withToolsAsText(messages, tools) : messages;
  const turns = joined ? joinTurns(asGiven, joinMessages) : asGiven;
  const toolList = native && tools.length > 0 ? tools.map(toTemplateTool) : undefined;
  const render = (list: readonly ChatMessage[], addGenerationPrompt: boolean): string => {
    const text = tokenizer.apply_chat_template(list.map(toTemplateMessage), {
      tokenize: false,
      add_generation_prompt: addGenerationPrompt,
      ...(toolList ? { tools: toolList } : {}),
      ...(options.enableThinking === false ? { enable_thinking: false } : {}),
    });
    if (typeof text !== 'string') throw new TypeError('The chat template did not render to a string.');
    return text;
  };
  const last = turns.at(-1);
  if (last?.role !== 'assistant') return render(turns, true);
  const history = turns.slice(0, -1);
  if (last.content === '') return render(history, true);
  const full = render(turns, false);
  const at = full.lastIndexOf(last.content);
  return at >= 0 ? full.slice(0, at + last.content.length) : render(history, true) + last.content;
}

/** Whether the template itself writes tool calls as `<tool_call>` blocks (Qwen, Hermes, SmolLM3). */
function templateWritesToolCalls(tokenizer: ChatTemplater): boolean {
  try {
    const template = tokenizer.get_chat_template?.({ tools: [{}] }) ?? '';
    return template.includes('tools') && template.includes(TOOL_CALL_OPEN.trim());
  } catch {
    return false;
  }
}

function toTemplateMessage(message: ChatMessage): TemplateMessage {
  const { role, content } = message;
  if (role === 'tool') return { role, content, ...(message.toolCallId ? { tool_call_id: message.toolCallId } : {}), ...(message.toolName ? { name: message.toolName } : {}) };
  if (!message.toolCalls?.length) return { role, content };
  return {
    role,
    content,
    // Templates write the arguments with `tojson`: an object, as Hugging Face's convention has it.
    tool_calls: message.toolCalls.map((call) => ({ type: 'function', id: call.id, function: { name: call.name, arguments: argumentsValue(call.arguments) } })),
  };
}

function toTemplateTool(tool: ToolSpec) {
  return { type: 'function', function: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.parameters } };
}
