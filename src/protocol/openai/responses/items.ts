/**
 * The Responses API's `input`: a string, or a list of items (messages, function calls and their
 * outputs, references to stored items), read into one canonical form, and a conversation of
 * such items as the neutral request's messages.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-input
 * @module
 */
import type { Ask } from '../../../core/admit.ts';
import type { ChatMessage } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { describe, invalid, isRecord } from '../../../core/fields.ts';
import { appendTurn, joinMessages } from '../../../core/turns.ts';

/** One turn of a conversation, as stored and as the neutral request's messages are made of. */
export type ConversationItem =
  | { readonly type: 'message'; readonly id?: string; readonly role: 'user' | 'system' | 'developer' | 'assistant'; readonly text: string }
  | { readonly type: 'function_call'; readonly id?: string; readonly call_id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'function_call_output'; readonly id?: string; readonly call_id: string; readonly output: string }
  /**
   * A thinking model's thinking, as its response gave it or a caller sent it back: kept, listed and
   * found by id, but never part of a prompt (chat templates drop past turns' thinking).
   * `summary`: the summary parts' texts; `text`: the thinking itself, where it came with it.
   */
  | { readonly type: 'reasoning'; readonly id?: string; readonly summary: readonly string[]; readonly text?: string };

/** An input item that names a stored one (`{"type":"item_reference","id":…}`), resolved by the caller. */
export interface ItemReference {
  readonly type: 'item_reference';
  readonly id: string;
  /** Where it sits in `input`, for the error when no such item is stored. */
  readonly at: string;
}

const ROLES = new Set(['user', 'system', 'developer', 'assistant']);

/** Item types of the real API that only its hosted tools or reasoning models produce. */
const HOSTED_ITEMS = new Set([
  'file_search_call',
  'web_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'custom_tool_call',
  'custom_tool_call_output',
  'tool_search_call',
  'tool_search_output',
  'compaction',
]);

/**
 * `input` as sent: a string is one user message. A thinking model's earlier `reasoning` items,
 * sent back as the API asks, are taken (and kept, for `input_items`), never put in a prompt:
 * chat templates drop past turns' thinking; a model that does not reason refuses them, which is
 * asked of the model named (`asks`). `field`: the parameter the items came in (`items`, for a
 * conversation's); `model` undefined and no `asks`: no model named (a conversation's items,
 * added before any model reads them), and reasoning items are taken.
 */
export function parseInput(value: unknown, model: string | undefined, asks?: Ask[], field = 'input'): (ConversationItem | ItemReference)[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [{ type: 'message', role: 'user', text: value }];
  if (!Array.isArray(value)) throw invalid(field, `Invalid type for '${field}': expected a string or an array of input items, but got ${describe(value)}.`);
  const subject = model === undefined ? 'this server' : `model '${model}'`;
  return value.map((item, i) => parseItem(item, `${field}[${i}]`, subject, asks));
}

function parseItem(item: unknown, at: string, subject: string, asks: Ask[] | undefined): ConversationItem | ItemReference {
  if (!isRecord(item)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(item)}.`);
  const type = item.type ?? 'message';
  const id = optionalString(item, 'id', at);
  const withId = id === undefined ? {} : { id };
  switch (type) {
    case 'message': {
      const role = item.role;
      if (role === undefined || role === null) throw invalid(`${at}.role`, `Missing required parameter: '${at}.role'.`);
      if (typeof role !== 'string' || !ROLES.has(role)) {
        throw invalid(`${at}.role`, `Invalid value for '${at}.role': ${describe(role)}. Supported values are: 'user', 'system', 'developer' and 'assistant'.`);
      }
      return { type: 'message', ...withId, role: role as 'user', text: parseContent(item.content, `${at}.content`) };
    }
    case 'function_call':
      return {
        type: 'function_call',
        ...withId,
        call_id: requiredText(item, 'call_id', at),
        name: requiredText(item, 'name', at),
        arguments: requiredText(item, 'arguments', at, { empty: true }),
      };
    case 'function_call_output':
      return { type: 'function_call_output', ...withId, call_id: requiredText(item, 'call_id', at), output: parseOutput(item.output, `${at}.output`) };
    case 'item_reference':
      if (id === undefined) throw invalid(`${at}.id`, `Missing required parameter: '${at}.id'.`);
      return { type: 'item_reference', id, at };
    case 'reasoning':
      asks?.push({ need: 'reasoning', refusal: { param: `${at}.type`, message: `Reasoning items are not supported by ${subject}, which does not reason: leave them out of '${at}'.` } });
      return parseReasoningItem(item, at, withId);
    default:
      if (typeof type === 'string' && HOSTED_ITEMS.has(type)) {
        throw invalid(`${at}.type`, `Items of type '${type}' are not supported: ${subject} runs no hosted tools; only function tools are available.`);
      }
      throw invalid(
        `${at}.type`,
        `Invalid value for '${at}.type': ${describe(type)}. Supported values are: 'message', 'function_call', 'function_call_output' and 'item_reference'.`,
      );
  }
}

/**
 * A reasoning item sent back: its summary's and its content's texts. `encrypted_content` (what
 * `include: ["reasoning.encrypted_content"]` gave) is any string, never read: past thinking is
 * dropped from the prompt anyway. See docs/decisions/reasoning-encrypted-content.md.
 */
function parseReasoningItem(item: Readonly<Record<string, unknown>>, at: string, withId: { id?: string }): ConversationItem {
  const encrypted = item.encrypted_content;
  if (encrypted !== undefined && encrypted !== null && typeof encrypted !== 'string') {
    throw invalid(`${at}.encrypted_content`, `Invalid type for '${at}.encrypted_content': expected a string, but got ${describe(encrypted)}.`);
  }
  const summary = partTexts(item.summary, `${at}.summary`, 'summary_text');
  const content = item.content === undefined || item.content === null ? undefined : partTexts(item.content, `${at}.content`, 'reasoning_text').join('');
  return { type: 'reasoning', ...withId, summary, ...(content !== undefined ? { text: content } : {}) };
}

/** The texts of a list of parts of one type (`summary_text`, `reasoning_text`); absent: none. */
function partTexts(parts: unknown, at: string, type: string): string[] {
  if (parts === undefined || parts === null) return [];
  if (!Array.isArray(parts)) throw invalid(at, `Invalid type for '${at}': expected an array of '${type}' parts, but got ${describe(parts)}.`);
  return parts.map((part, j) => {
    if (!isRecord(part)) throw invalid(`${at}[${j}]`, `Invalid type for '${at}[${j}]': expected an object, but got ${describe(part)}.`);
    if (part.type !== type) throw invalid(`${at}[${j}].type`, `Invalid value for '${at}[${j}].type': ${describe(part.type)}. Supported values are: '${type}'.`);
    if (typeof part.text !== 'string') throw invalid(`${at}[${j}].text`, `Missing required parameter: '${at}[${j}].text'.`);
    return part.text;
  });
}

/** A message's text: a string, or text parts joined (this API's models read text only). */
function parseContent(content: unknown, at: string): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) throw invalid(at, `Missing required parameter: '${at}'.`);
  if (!Array.isArray(content)) throw invalid(at, `Invalid type for '${at}': expected a string or an array of content parts, but got ${describe(content)}.`);
  return content.map((part, j) => textOfPart(part, `${at}[${j}]`)).join('');
}

function textOfPart(part: unknown, at: string): string {
  if (!isRecord(part)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(part)}.`);
  const key = part.type === 'input_text' || part.type === 'output_text' || part.type === 'text' ? 'text' : part.type === 'refusal' ? 'refusal' : undefined;
  if (!key) {
    if (part.type === undefined || part.type === null) throw invalid(`${at}.type`, `Missing required parameter: '${at}.type'.`);
    if (part.type === 'input_image' || part.type === 'input_file' || part.type === 'input_audio') {
      throw invalid(`${at}.type`, `Content parts of type '${part.type}' are not supported: this model reads text only.`);
    }
    throw invalid(`${at}.type`, `Invalid value for '${at}.type': ${describe(part.type)}. Supported values are: 'input_text', 'output_text' and 'refusal'.`);
  }
  if (typeof part[key] !== 'string') throw invalid(`${at}.${key}`, `Missing required parameter: '${at}.${key}'.`);
  return part[key] as string;
}

/** A function call's output: a string, or text parts. */
function parseOutput(output: unknown, at: string): string {
  if (typeof output === 'string') return output;
  if (output === undefined || output === null) throw invalid(at, `Missing required parameter: '${at}'.`);
  if (!Array.isArray(output)) throw invalid(at, `Invalid type for '${at}': expected a string or an array of content parts, but got ${describe(output)}.`);
  return output.map((part, j) => textOfPart(part, `${at}[${j}]`)).join('');
}

function requiredText(item: Readonly<Record<string, unknown>>, key: string, at: string, { empty = false } = {}): string {
  const value = item[key];
  if (value === undefined || value === null) throw invalid(`${at}.${key}`, `Missing required parameter: '${at}.${key}'.`);
  if (typeof value !== 'string') throw invalid(`${at}.${key}`, `Invalid type for '${at}.${key}': expected a string, but got ${describe(value)}.`);
  if (!empty && value.length === 0) throw invalid(`${at}.${key}`, `Invalid '${at}.${key}': empty string. Expected a string with minimum length 1.`);
  return value;
}

function optionalString(item: Readonly<Record<string, unknown>>, key: string, at: string): string | undefined {
  const value = item[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`${at}.${key}`, `Invalid type for '${at}.${key}': expected a string, but got ${describe(value)}.`);
  return value;
}

/**
 * Replaces each reference with the stored item it names; an unknown id is the real API's 404.
 * `reasons` false: the model (`model`) does not reason, and a reference to a reasoning item is
 * refused as the item sent inline is.
 */
export async function resolveReferences(
  items: readonly (ConversationItem | ItemReference)[],
  find: (id: string) => Promise<ConversationItem | undefined>,
  { reasons = true, model }: { reasons?: boolean; model?: string } = {},
): Promise<ConversationItem[]> {
  const resolved: ConversationItem[] = [];
  for (const item of items) {
    if (item.type !== 'item_reference') {
      resolved.push(item);
      continue;
    }
    const found = await find(item.id);
    if (!found) throw new GatewayError('resource_not_found', `Item with id '${item.id}' not found.`, { param: item.at });
    if (found.type === 'reasoning' && !reasons) {
      const subject = model === undefined ? 'this server' : `model '${model}'`;
      throw invalid(item.at, `Item '${item.id}' is a reasoning item, and reasoning items are not supported by ${subject}, which does not reason: leave it out of '${item.at}'.`);
    }
    resolved.push(found);
  }
  return resolved;
}

/**
 * A conversation's items as the neutral request's messages: a function call is part of the
 * assistant turn before it (core/turns.ts), or opens one; its output is a tool result named by
 * the call's tool;
 * past thinking is no part of the prompt (chat templates drop it). `firstInputIndex`: where this
 * request's own input begins, for the place named in a refusal.
 */
export function toConversation(items: readonly ConversationItem[], firstInputIndex: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  /** The tool of each call made so far, by call id. */
  const calls = new Map<string, string>();
  items.forEach((item, i) => {
    if (item.type === 'reasoning') return;
    if (item.type === 'message') {
      // Each message is a turn of its own, as in chat completions.
      messages.push({ role: item.role === 'developer' || item.role === 'system' ? 'system' : item.role, content: item.text });
      return;
    }
    if (item.type === 'function_call') {
      calls.set(item.call_id, item.name);
      appendTurn(messages, { role: 'assistant', content: '', toolCalls: [{ id: item.call_id, name: item.name, arguments: item.arguments }] }, joinMessages);
      return;
    }
    const tool = calls.get(item.call_id);
    if (tool === undefined) {
      // Items of earlier turns were checked when they were sent: this one is in this request's input.
      const at = `input[${Math.max(i - firstInputIndex, 0)}]`;
      throw invalid(`${at}.call_id`, `No tool call found for function call output with call_id '${item.call_id}'.`);
    }
    messages.push({ role: 'tool', content: item.output, toolCallId: item.call_id, toolName: tool });
  });
  return messages;
}

/** A conversation item as `GET /responses/{id}/input_items` lists it. */
export function toWireItem(item: ConversationItem, fallbackId: string): Record<string, unknown> {
  const id = item.id ?? fallbackId;
  if (item.type === 'message') {
    const part = item.role === 'assistant' ? { type: 'output_text', text: item.text, annotations: [] } : { type: 'input_text', text: item.text };
    return { type: 'message', id, role: item.role, status: 'completed', content: [part] };
  }
  if (item.type === 'function_call') return { type: 'function_call', id, call_id: item.call_id, name: item.name, arguments: item.arguments, status: 'completed' };
  if (item.type === 'reasoning') {
    return {
      type: 'reasoning',
      id,
      summary: item.summary.map((text) => ({ type: 'summary_text', text })),
      ...(item.text !== undefined ? { content: [{ type: 'reasoning_text', text: item.text }] } : {}),
      status: 'completed',
    };
  }
  return { type: 'function_call_output', id, call_id: item.call_id, output: item.output, status: 'completed' };
}
