/**
 * `POST /messages`, parsed: a Messages body into the neutral request, the same for every model,
 * with what it asks of the model that serves it (core/admit.ts).
 * @see https://docs.anthropic.com/en/api/messages
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * @module
 */
import { reading, type Ask, type Unread } from '../../core/admit.ts';
import type { ParsedChat } from '../../core/context.ts';
import type { ChatMessage, ContentPart, NeutralRequest, ToolCall, ToolChoice, ToolSpec } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { checkNumber, describe, invalid, isRecord, optionalBoolean, optionalNumber } from '../../core/fields.ts';
import { checkChoice, checkUniqueNames, nameToolResults, toolSpec } from '../../core/tool-specs.ts';
import { joinMessages, joinTurns } from '../../core/turns.ts';
import { allowsSamplingParameters, type AnthropicVersion } from './version.ts';

export interface ParsedMessages extends ParsedChat {
  /**
   * The request enabled `thinking`: the thinking of a thinking model on this device is shown as
   * `thinking` blocks (else it is hidden).
   */
  readonly showThinking: boolean;
}

/**
 * Reads a Messages body. What only the model can settle is asked of it, in reading order: a
 * remote model's server enforces its own limits and features (images pass, a system turn among
 * the messages passes as the SDK's types allow, schemas go as sent, `thinking` is left to its
 * server), a local model holds the request to what its engine can do and to the real API's rules.
 */
export function parseMessages(body: Readonly<Record<string, unknown>>, version: AnthropicVersion): ParsedMessages | Unread {
  return reading((asks) => {
    const maxTokens = body.max_tokens;
    if (maxTokens === undefined || maxTokens === null) throw invalid('max_tokens', 'max_tokens: Field required');
    checkNumber(maxTokens, { integer: true, min: 1 }, 'max_tokens');
    asks.push({ need: 'room', tokens: maxTokens as number, refusal: { param: 'max_tokens', message: `max_tokens: ${maxTokens} > {limit}, which is the maximum allowed number of output tokens for {model}` } });
    for (const key of ['temperature', 'top_p', 'top_k'] as const) {
      if (body[key] !== undefined && body[key] !== null && !allowsSamplingParameters(version)) {
        throw invalid(key, `${key}: not supported with anthropic-version ${version}, which removed sampling parameters; send anthropic-version 2023-06-01 to use it.`);
      }
    }
    const thinking = parseThinking(body.thinking, asks);
    // The real API's rule and words: the budget is part of the output, so it must leave room in it.
    // (A remote model's server holds its request to its own rules; its client sends it only a budget it takes.)
    if (thinking.budget !== undefined && thinking.budget >= (maxTokens as number)) {
      asks.push({ need: 'nothing', local: true, refusal: { param: 'max_tokens', message: '`max_tokens` must be greater than `thinking.budget_tokens`' } });
    }
    const metadata = body.metadata;
    const user = isRecord(metadata) && typeof metadata.user_id === 'string' && metadata.user_id !== '' ? metadata.user_id : undefined;

    const system = parseSystem(body.system);
    const conversation = nameToolResults(
      // The real API takes consecutive turns of one role as one; so do we, so templates see alternation.
      joinTurns(parseTurns(body.messages, asks).flat(), joinMessages),
      'messages',
      (id) => `messages: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
    );
    const tools = parseTools(body, asks);
    if (tools.tools && conversation.at(-1)?.role === 'assistant') {
      throw invalid('messages', 'messages: a final assistant message (a prefill) cannot be combined with tools: a tool call must start the reply.');
    }
    const output = parseOutputConfig(body.output_config, asks);
    if (output && conversation.at(-1)?.role === 'assistant') {
      throw invalid('messages', 'messages: a final assistant message (a prefill) cannot be combined with output_config.format: the output must be the JSON value alone.');
    }

    const chat: NeutralRequest = {
      model: String(body.model),
      messages: system ? [{ role: 'system', content: system }, ...conversation] : conversation,
      maxTokens: maxTokens as number,
      temperature: optionalNumber(body, 'temperature', { min: 0, max: 1 }),
      topP: optionalNumber(body, 'top_p', { min: 0, max: 1 }),
      topK: optionalNumber(body, 'top_k', { integer: true, min: 0 }),
      stop: parseStopSequences(body.stop_sequences),
      ...(output ? { output } : {}),
      ...tools,
      ...(thinking.off ? { thinking: false } : {}),
      ...(thinking.budget !== undefined ? { thinkingBudget: thinking.budget } : {}),
      ...(user ? { user } : {}),
    };
    return { chat, stream: optionalBoolean(body, 'stream') ?? false, showThinking: thinking.show };
  });
}

interface Thinking {
  readonly show: boolean;
  readonly off?: true;
  /** `budget_tokens` of `enabled` thinking. */
  readonly budget?: number;
}

/**
 * `thinking`, as a local model takes it, where it is as the real API requires; else as a remote
 * model's server is sent it (remoteThinking), the local model's refusal asked of it.
 */
function parseThinking(value: unknown, asks: Ask[]): Thinking {
  try {
    return localThinking(value, asks);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    asks.push({ need: 'nothing', local: true, refusal: { param: error.param ?? 'thinking', message: error.message } });
    return remoteThinking(value);
  }
}

/**
 * `thinking`: `enabled` (with a `budget_tokens` of at least 1024 and below `max_tokens`, as the
 * real API requires: the thinking then ends within it, where the model's engine keeps budgets,
 * `keepsThinkingBudget`) or `adaptive` (no budget) show a thinking model's thinking, unless
 * `display` is `omitted`; `disabled` turns it off where the model can be told; absent, the model
 * thinks as it does by default and the thinking is hidden. A local model that does not think
 * refuses to be asked to.
 */
function localThinking(value: unknown, asks: Ask[]): Thinking {
  if (value === undefined || value === null) return { show: false };
  if (!isRecord(value)) throw invalid('thinking', `thinking: Input should be an object, got ${describe(value)}`);
  const type = value.type;
  if (type === 'disabled') return { show: false, off: true };
  if (type !== 'enabled' && type !== 'adaptive') throw invalid('thinking.type', `thinking.type: Input should be 'enabled', 'adaptive' or 'disabled', got ${describe(type)}`);
  asks.push({ need: 'reasoning', local: true, refusal: { param: 'thinking', message: "thinking: extended thinking is not supported by model '{model}'." } });
  if (type === 'enabled') {
    if (value.budget_tokens === undefined || value.budget_tokens === null) throw invalid('thinking.budget_tokens', 'thinking.enabled.budget_tokens: Field required');
    checkNumber(value.budget_tokens, { integer: true, min: 1024 }, 'thinking.budget_tokens');
  }
  const display = value.display;
  if (display !== undefined && display !== null && display !== 'summarized' && display !== 'omitted') {
    throw invalid('thinking.display', `thinking.display: Input should be 'summarized' or 'omitted', got ${describe(display)}`);
  }
  return { show: display !== 'omitted', ...(type === 'enabled' ? { budget: value.budget_tokens as number } : {}) };
}

/**
 * A remote model's `thinking`: `disabled`, and `enabled`'s budget, are passed on (its server, not
 * this gateway, knows whether it thinks and what it takes).
 */
function remoteThinking(value: unknown): Thinking {
  if (!isRecord(value)) return { show: false };
  if (value.type === 'disabled') return { show: false, off: true };
  const budget = value.budget_tokens;
  return value.type === 'enabled' && Number.isInteger(budget) ? { show: false, budget: budget as number } : { show: false };
}

/**
 * `output_config.format`: Anthropic's structured output, a JSON schema the answer must match,
 * enforced while decoding like OpenAI's `json_schema` (`effort` is a hint with no local meaning).
 */
function parseOutputConfig(value: unknown, asks: Ask[]): NeutralRequest['output'] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid('output_config', `output_config: Input should be an object, got ${describe(value)}`);
  const format = value.format;
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format)) throw invalid('output_config.format', `output_config.format: Input should be an object, got ${describe(format)}`);
  if (format.type !== 'json_schema') throw invalid('output_config.format.type', `output_config.format.type: Input should be 'json_schema', got ${describe(format.type)}`);
  if (!isRecord(format.schema)) throw invalid('output_config.format.schema', 'output_config.format.schema: Field required');
  asks.push({ need: 'structuredOutput', refusal: { param: 'output_config.format', message: "output_config.format: structured output is not supported by model '{model}'." } });
  // Named as chat completions' schema in its refusals, as it always was.
  asks.push({ need: 'grammar', schema: format.schema });
  return { kind: 'json_schema', schema: format.schema, strict: true };
}

function parseSystem(value: unknown): string {
  if (value === undefined || value === null) return '';
  return parseText(value, 'system');
}

function parseTurns(value: unknown, asks: Ask[]): ChatMessage[][] {
  if (value === undefined || value === null) throw invalid('messages', 'messages: Field required');
  if (!Array.isArray(value)) throw invalid('messages', `messages: Input should be a valid list, got ${describe(value)}`);
  if (value.length === 0) throw invalid('messages', 'messages: at least one message is required');
  return value.map((message, i) => {
    const at = `messages.${i}`;
    if (!isRecord(message)) throw invalid(at, `${at}: Input should be an object, got ${describe(message)}`);
    const role = message.role;
    // SDK 1.x's types allow a system turn among the messages; a remote model's server gets it
    // there. The real API refuses it, as a local model does: a system prompt goes in the
    // top-level `system`, never among the turns.
    if (role === 'system') {
      asks.push({ need: 'nothing', local: true, refusal: { param: `${at}.role`, message: 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.' } });
      if (message.content === undefined || message.content === null) throw invalid(`${at}.content`, `${at}.content: Field required`);
      return [{ role: 'system', content: parseText(message.content, `${at}.content`) }];
    }
    if (role !== 'user' && role !== 'assistant') {
      throw invalid(`${at}.role`, `${at}.role: Input should be 'user' or 'assistant', got ${describe(role)}`);
    }
    if (message.content === undefined || message.content === null) throw invalid(`${at}.content`, `${at}.content: Field required`);
    return parseTurn(role, message.content, `${at}.content`, asks);
  });
}

/**
 * One turn as messages. A user turn's images go to a remote model's server only: a local model
 * reads them as blocks it cannot read, and refuses the turn as it reads it (its first fault),
 * which is asked of it; the turn is read as a remote model's server is sent it.
 */
function parseTurn(role: 'user' | 'assistant', content: unknown, at: string, asks: Ask[]): ChatMessage[] {
  if (role === 'user' && Array.isArray(content) && content.some((block) => isRecord(block) && block.type === 'image')) {
    try {
      readTurn(role, content, at, false);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      asks.push({ need: 'nothing', local: true, refusal: { param: error.param ?? at, message: error.message } });
    }
  }
  return readTurn(role, content, at, true);
}

/**
 * One turn as messages: an assistant turn's `tool_use` blocks become its calls; a user turn's
 * `tool_result` blocks become `tool` messages, followed by its text, if any. `withImages`: a
 * user turn's image blocks are images (else blocks that are not text).
 */
function readTurn(role: 'user' | 'assistant', content: unknown, at: string, withImages: boolean): ChatMessage[] {
  if (!Array.isArray(content)) return [{ role, content: parseText(content, at) }];
  const texts: unknown[] = [];
  /** A user turn with images: its text and image blocks in order. */
  const inOrder: (ContentPart | { type: 'block'; block: unknown; at: string })[] = [];
  const calls: ToolCall[] = [];
  const results: ChatMessage[] = [];
  content.forEach((block, j) => {
    const blockAt = `${at}.${j}`;
    if (isRecord(block) && block.type === 'tool_use' && role === 'assistant') {
      if (typeof block.id !== 'string') throw invalid(`${blockAt}.id`, `${blockAt}.id: Field required`);
      if (typeof block.name !== 'string') throw invalid(`${blockAt}.name`, `${blockAt}.name: Field required`);
      if (!isRecord(block.input)) throw invalid(`${blockAt}.input`, `${blockAt}.input: Input should be a valid dictionary`);
      calls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
    } else if (isRecord(block) && (block.type === 'thinking' || block.type === 'redacted_thinking') && role === 'assistant') {
      // Earlier turns' thinking, sent back as the API asks: chat templates leave it out of the prompt.
    } else if (isRecord(block) && block.type === 'tool_result' && role === 'user') {
      if (typeof block.tool_use_id !== 'string') throw invalid(`${blockAt}.tool_use_id`, `${blockAt}.tool_use_id: Field required`);
      const text = block.content === undefined || block.content === null ? '' : parseText(block.content, `${blockAt}.content`);
      results.push({ role: 'tool', content: block.is_error === true ? `Error: ${text}` : text, toolCallId: block.tool_use_id });
    } else if (isRecord(block) && block.type === 'image' && role === 'user' && withImages) {
      inOrder.push({ type: 'image', url: imageUrl(block.source, `${blockAt}.source`) });
    } else {
      texts.push(block);
      inOrder.push({ type: 'block', block, at: blockAt });
    }
  });
  const text = texts.length > 0 || (calls.length === 0 && results.length === 0) ? parseText(texts, at) : '';
  if (role === 'assistant') return [calls.length > 0 ? { role, content: text, toolCalls: calls } : { role, content: text }];
  const images = inOrder.some((part) => part.type === 'image');
  const parts = inOrder.map((part): ContentPart => (part.type === 'block' ? { type: 'text', text: parseText([part.block], part.at) } : part));
  return [...results, ...(images ? [{ role, content: text, parts }] : results.length === 0 || text ? [{ role, content: text }] : [])];
}

/** An image block's source as a URL: a `url` source as it is, `base64` bytes as a `data:` URL. */
function imageUrl(source: unknown, at: string): string {
  if (!isRecord(source)) throw invalid(at, `${at}: Field required`);
  if (source.type === 'base64') {
    if (typeof source.media_type !== 'string') throw invalid(`${at}.media_type`, `${at}.media_type: Field required`);
    if (typeof source.data !== 'string') throw invalid(`${at}.data`, `${at}.data: Field required`);
    return `data:${source.media_type};base64,${source.data}`;
  }
  if (source.type === 'url') {
    if (typeof source.url !== 'string') throw invalid(`${at}.url`, `${at}.url: Field required`);
    return source.url;
  }
  throw invalid(`${at}.type`, `${at}.type: image sources of type ${describe(source.type)} cannot be sent to this model's server; send the image as base64 or a URL.`);
}

/** `tools` and `tool_choice`. An empty `tools` list is the same as none. */
function parseTools(body: Readonly<Record<string, unknown>>, asks: Ask[]): Pick<NeutralRequest, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  const list = body.tools;
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalid('tools', `tools: Input should be a valid list, got ${describe(list)}`);
  const choice = parseToolChoice(body.tool_choice);
  if (!Array.isArray(list) || list.length === 0) {
    if (typeof choice.choice === 'object' || choice.choice === 'required') throw invalid('tool_choice', `tool_choice: tool_choice.type '${body.tool_choice && (body.tool_choice as { type?: unknown }).type}' requires tools.`);
    return {};
  }
  asks.push({ need: 'toolCalling', refusal: { param: 'tools', message: "tools: tool use is not supported by model '{model}'." } });
  const tools: ToolSpec[] = list.map((tool, i) => {
    const at = `tools.${i}`;
    if (!isRecord(tool)) throw invalid(at, `${at}: Input should be an object, got ${describe(tool)}`);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      throw invalid(`${at}.type`, `${at}.type: server tools (${describe(tool.type)}) are not available here; define a custom tool with an input_schema.`);
    }
    if (tool.input_schema === undefined || tool.input_schema === null) throw invalid(`${at}.input_schema`, `${at}.input_schema: Field required`);
    return toolSpec(tool.name, tool.description, tool.input_schema, at, 'input_schema', asks);
  });
  checkUniqueNames(tools, 'tools');
  checkChoice(choice.choice, tools, 'tool_choice.name');
  return { tools, toolChoice: choice.choice, parallelToolCalls: choice.parallel };
}

/** A string, or text blocks joined; any other block type is refused rather than dropped. */
function parseText(value: unknown, at: string): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw invalid(at, `${at}: Input should be a string or a list of content blocks, got ${describe(value)}`);
  return value
    .map((block, j) => {
      const blockAt = `${at}.${j}`;
      if (!isRecord(block)) throw invalid(blockAt, `${blockAt}: Input should be an object, got ${describe(block)}`);
      if (block.type !== 'text') {
        throw invalid(`${blockAt}.type`, `${blockAt}.type: content blocks of type ${describe(block.type)} are not supported: this model reads text only`);
      }
      if (typeof block.text !== 'string') throw invalid(`${blockAt}.text`, `${blockAt}.text: Field required`);
      return block.text;
    })
    .join('\n');
}

function parseStopSequences(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) {
    throw invalid('stop_sequences', `stop_sequences: Input should be a list of strings, got ${describe(value)}`);
  }
  return (value as string[]).filter((s) => s.length > 0);
}

/** `tool_choice` (absent: `auto`, parallel calls allowed). */
function parseToolChoice(value: unknown): { choice: ToolChoice; parallel: boolean } {
  if (value === undefined || value === null) return { choice: 'auto', parallel: true };
  if (!isRecord(value)) throw invalid('tool_choice', `tool_choice: Input should be an object, got ${describe(value)}`);
  const parallel = !(optionalBoolean(value, 'disable_parallel_tool_use', 'tool_choice.disable_parallel_tool_use') ?? false);
  switch (value.type) {
    case 'auto':
      return { choice: 'auto', parallel };
    case 'none':
      return { choice: 'none', parallel };
    case 'any':
      return { choice: 'required', parallel };
    case 'tool':
      if (typeof value.name !== 'string') throw invalid('tool_choice.name', 'tool_choice.name: Field required');
      return { choice: { name: value.name }, parallel };
    default:
      throw invalid('tool_choice.type', `tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none', got ${describe(value.type)}`);
  }
}
