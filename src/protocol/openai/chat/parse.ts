/**
 * `POST /chat/completions`, parsed: a chat completion body into the neutral request, the same
 * for every model, with what it asks of the model that serves it (core/admit.ts).
 * @see https://platform.openai.com/docs/api-reference/chat
 * @module
 */
import { reading, type Ask, type Unread } from '../../../core/admit.ts';
import type { ChatMessage, ChatRole, ContentPart, NeutralRequest, ToolCall, ToolChoice, ToolSpec } from '../../../core/engine.ts';
import { checkNumber, describe, invalid, isRecord, optionalBoolean, optionalNumber } from '../../../core/fields.ts';
import { checkChoice, checkUniqueNames, nameToolResults, toolSpec } from '../../../core/tool-specs.ts';
import type { ParsedChat } from '../../../core/context.ts';

export interface ParsedChatCompletion extends ParsedChat {
  readonly includeUsage: boolean;
}

const ROLES: Record<string, ChatRole> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant', tool: 'tool' };

/**
 * Reads a chat completion body; never mutates it. What only the model can settle is asked of it,
 * in reading order: a local model's engine reads text only and holds caps and schemas to its own
 * limits, a remote model's server is sent images, schemas as sent and any cap, and judges them.
 */
export function parseChatCompletion(body: Readonly<Record<string, unknown>>): ParsedChatCompletion | Unread {
  return reading((asks) => {
    const messages = parseMessages(body.messages, asks);
    const stream = optionalBoolean(body, 'stream') ?? false;
    const streamOptions = body.stream_options;
    if (streamOptions !== undefined && streamOptions !== null && !isRecord(streamOptions)) {
      throw invalid('stream_options', `Invalid type for 'stream_options': expected an object, but got ${describe(streamOptions)}.`);
    }
    const includeUsage = (isRecord(streamOptions) && optionalBoolean(streamOptions, 'include_usage', 'stream_options.include_usage')) || false;

    const n = optionalNumber(body, 'n', { integer: true, min: 1 });
    if (n !== undefined && n > 1) asks.push({ need: 'nothing', refusal: { param: 'n', message: "'n' > 1 is not supported by model '{model}': ask for one choice per request." } });
    const tools = parseTools(body, asks);
    const output = parseResponseFormat(body.response_format, asks);
    if ((output || tools.tools) && messages.at(-1)?.role === 'assistant') {
      throw invalid('messages', `A trailing assistant message (a prefill) cannot be combined with ${output ? 'a JSON response_format: the output must be the JSON value alone' : 'tools: a tool call must start the reply'}.`);
    }
    if (body.logprobs === true) asks.push({ need: 'nothing', refusal: { param: 'logprobs', message: "logprobs are not supported by model '{model}'." } });
    const logitBias = parseLogitBias(body.logit_bias, asks);
    const { thinking, effort } = parseThinkingSwitch(body);
    const maxTokens = parseMaxTokens(body, asks);
    // Hints a local model has no use for, passed on to a remote model's server (taken as they were
    // before: a value that is not a string is ignored). `safety_identifier` is the newer name OpenAI
    // gives the same opaque end-user id as `user`.
    const user = [body.safety_identifier, body.user].find((value): value is string => typeof value === 'string' && value !== '');
    const promptCacheKey = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
    const prediction = parsePrediction(body, tools.tools !== undefined);

    const chat: NeutralRequest = {
      model: String(body.model),
      messages,
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      temperature: optionalNumber(body, 'temperature', { min: 0, max: 2 }),
      topP: optionalNumber(body, 'top_p', { min: 0, max: 1 }),
      seed: optionalNumber(body, 'seed', { integer: true }),
      presencePenalty: optionalNumber(body, 'presence_penalty', { min: -2, max: 2 }),
      frequencyPenalty: optionalNumber(body, 'frequency_penalty', { min: -2, max: 2 }),
      stop: parseStop(body.stop),
      ...(logitBias ? { logitBias } : {}),
      ...(output ? { output } : {}),
      ...tools,
      ...(thinking !== undefined ? { thinking } : {}),
      // The effort's budget is the model's own (admission): only for a model that thinks, and only while it does.
      ...(effort && thinking !== false ? { reasoningEffort: effort } : {}),
      ...(user ? { user } : {}),
      ...(promptCacheKey ? { promptCacheKey } : {}),
      ...(prediction !== undefined ? { prediction } : {}),
    };
    return { chat, stream, includeUsage: stream && includeUsage };
  });
}

/**
 * `prediction`: `{ type: 'content', content }`, the content a string or text parts (joined), as
 * OpenAI's predicted outputs take it; null or absent for none. Refused, as OpenAI refuses them,
 * with the parameters predicted outputs do not go with: tools, more than one choice, log
 * probabilities, positive presence and frequency penalties, audio.
 */
function parsePrediction(body: Readonly<Record<string, unknown>>, hasTools: boolean): string | undefined {
  const value = body.prediction;
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid('prediction', `Invalid type for 'prediction': expected an object, but got ${describe(value)}.`);
  if (value.type !== 'content') throw invalid('prediction.type', `Invalid value for 'prediction.type': ${describe(value.type)}. Supported values are: 'content'.`);
  const content = value.content;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    text = content
      .map((part, i) => {
        if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') {
          throw invalid(`prediction.content[${i}]`, `Invalid value for 'prediction.content[${i}]': expected a text part ({ "type": "text", "text": ... }), but got ${describe(part)}.`);
        }
        return part.text;
      })
      .join('');
  } else throw invalid('prediction.content', `Invalid type for 'prediction.content': expected a string or an array of text parts, but got ${describe(content)}.`);
  const unsupported = (param: string, what: string) => invalid(param, `Invalid parameter: ${what} is not supported with predicted outputs ('prediction').`);
  if (hasTools) throw unsupported('tools', "'tools' (function calling)");
  if (typeof body.n === 'number' && body.n > 1) throw unsupported('n', "'n' greater than 1");
  if (body.logprobs === true) throw unsupported('logprobs', "'logprobs'");
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0) throw unsupported('top_logprobs', "'top_logprobs'");
  if (typeof body.presence_penalty === 'number' && body.presence_penalty > 0) throw unsupported('presence_penalty', "'presence_penalty' greater than 0");
  if (typeof body.frequency_penalty === 'number' && body.frequency_penalty > 0) throw unsupported('frequency_penalty', "'frequency_penalty' greater than 0");
  if (body.audio !== undefined && body.audio !== null) throw unsupported('audio', "'audio'");
  if (Array.isArray(body.modalities) && body.modalities.some((m) => m !== 'text')) throw unsupported('modalities', "a modality other than 'text'");
  return text;
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * Whether a thinking model should think: `chat_template_kwargs.enable_thinking` (vLLM's and
 * SGLang's switch for Qwen3's template), else `reasoning_effort` (`none` or `minimal` turn it
 * off). The effort `low`, `medium` or `high` is also a thinking budget, the model's
 * `reasoning.budgets` (or the defaults, core/reasoning.ts; `high`: none by default); `xhigh` and
 * `max` leave the model's default. Both are accepted, and change nothing, for a model that does
 * not think.
 */
function parseThinkingSwitch(body: Readonly<Record<string, unknown>>): { thinking?: boolean; effort?: 'low' | 'medium' | 'high' } {
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== null && (typeof effort !== 'string' || !EFFORTS.includes(effort))) {
    throw invalid('reasoning_effort', `Invalid value for 'reasoning_effort': ${describe(effort)}. Supported values are: ${EFFORTS.map((e) => `'${e}'`).join(', ')}.`);
  }
  const kwargs = body.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null) {
    if (!isRecord(kwargs)) throw invalid('chat_template_kwargs', `Invalid type for 'chat_template_kwargs': expected an object, but got ${describe(kwargs)}.`);
    for (const key of Object.keys(kwargs)) {
      if (key !== 'enable_thinking') throw invalid(`chat_template_kwargs.${key}`, `Unsupported chat template argument '${key}': only 'enable_thinking' is passed to the chat template here.`);
    }
    const enable = optionalBoolean(kwargs, 'enable_thinking', 'chat_template_kwargs.enable_thinking');
    if (enable === false) return { thinking: false };
    if (enable === true) return { thinking: true, ...(budgeted(effort) ? { effort } : {}) };
  }
  if (effort === 'none' || effort === 'minimal') return { thinking: false };
  return budgeted(effort) ? { effort } : {};
}

const budgeted = (effort: unknown): effort is 'low' | 'medium' | 'high' => effort === 'low' || effort === 'medium' || effort === 'high';

/** `tools`, `tool_choice` and `parallel_tool_calls`. An empty `tools` list is the same as none. */
function parseTools(body: Readonly<Record<string, unknown>>, asks: Ask[]): Pick<NeutralRequest, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  const list = body.tools;
  const choice = body.tool_choice;
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalid('tools', `Invalid type for 'tools': expected an array, but got ${describe(list)}.`);
  if (!Array.isArray(list) || list.length === 0) {
    if (choice !== undefined && choice !== null) throw invalid('tool_choice', `Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.`);
    return {};
  }
  asks.push({ need: 'toolCalling', refusal: { param: 'tools', message: "Tool calling is not supported by model '{model}'." } });
  const tools: ToolSpec[] = list.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(tool)}.`);
    if (tool.type !== 'function') throw invalid(`${at}.type`, `Invalid value: ${describe(tool.type)}. Supported values are: 'function'.`);
    const fn = tool.function;
    if (!isRecord(fn)) throw invalid(`${at}.function`, `Missing required parameter: '${at}.function'.`);
    return toolSpec(fn.name, fn.description, fn.parameters, `${at}.function`, 'parameters', asks);
  });
  checkUniqueNames(tools, 'tools');
  const toolChoice = parseToolChoice(choice);
  checkChoice(toolChoice, tools, 'tool_choice');
  return { tools, toolChoice, parallelToolCalls: optionalBoolean(body, 'parallel_tool_calls') ?? true };
}

function parseToolChoice(choice: unknown): ToolChoice {
  if (choice === undefined || choice === null) return 'auto';
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isRecord(choice) && choice.type === 'function' && isRecord(choice.function) && typeof choice.function.name === 'string') return { name: choice.function.name };
  throw invalid('tool_choice', `Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {"type": "function", "function": {"name": ...}}, but got ${describe(choice)}.`);
}

/** `response_format`: `text` (the default), `json_object`, or `json_schema` with a named schema, as sent. */
function parseResponseFormat(format: unknown, asks: Ask[]): NeutralRequest['output'] {
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format)) throw invalid('response_format', `Invalid type for 'response_format': expected an object, but got ${describe(format)}.`);
  const type = format.type;
  if (type === 'text') return undefined;
  if (type !== 'json_object' && type !== 'json_schema') {
    throw invalid('response_format.type', `Invalid value: ${describe(type)}. Supported values are: 'text', 'json_object', and 'json_schema'.`);
  }
  asks.push({ need: 'structuredOutput', refusal: { param: 'response_format', message: `response_format of type '${type}' is not supported by model '{model}'.` } });
  if (type === 'json_object') return { kind: 'json_object' };
  const spec = format.json_schema;
  if (!isRecord(spec)) throw invalid('response_format.json_schema', `Missing required parameter: 'response_format.json_schema'.`);
  if (typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) {
    throw invalid('response_format.json_schema.name', `Invalid 'response_format.json_schema.name': expected a string of 1 to 64 letters, digits, underscores or dashes, but got ${describe(spec.name)}.`);
  }
  const schema = spec.schema ?? {};
  if (!isRecord(schema)) throw invalid('response_format.json_schema.schema', `Invalid type for 'response_format.json_schema.schema': expected an object, but got ${describe(schema)}.`);
  const strict = optionalBoolean(spec, 'strict', 'response_format.json_schema.strict') ?? false;
  asks.push({ need: 'grammar', schema });
  return { kind: 'json_schema', schema, strict, name: spec.name };
}

/** The cap the caller set, if any (the model's own otherwise: admission). A remote model's server holds it to its own limit. */
function parseMaxTokens(body: Readonly<Record<string, unknown>>, asks: Ask[]): number | undefined {
  // max_completion_tokens is the current name; max_tokens the deprecated one many clients still send.
  const key = body.max_completion_tokens !== undefined && body.max_completion_tokens !== null ? 'max_completion_tokens' : 'max_tokens';
  const value = optionalNumber(body, key, { integer: true, min: 1 });
  if (value === undefined) return undefined;
  asks.push({ need: 'room', tokens: value, refusal: { param: key, message: `${key} is too large: ${value}. This model supports at most {limit} completion tokens, whereas you provided ${value}.` } });
  return value;
}

/**
 * `logit_bias`: token ids (decimal strings, as JSON object keys must be) to biases from -100 to
 * 100. An empty object is the same as none. Whether each id is in the model's vocabulary only the
 * engine knows: it checks that.
 */
function parseLogitBias(value: unknown, asks: Ask[]): ReadonlyMap<number, number> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) throw invalid('logit_bias', `Invalid type for 'logit_bias': expected an object, but got ${describe(value)}.`);
  const bias = new Map<number, number>();
  for (const [key, entry] of Object.entries(value)) {
    if (!/^\d+$/.test(key)) throw invalid('logit_bias', `Invalid key in 'logit_bias': ${describe(key)}. Keys must be token ids: non-negative integers.`);
    if (typeof entry !== 'number' || !Number.isFinite(entry)) {
      throw invalid('logit_bias', `Invalid type for 'logit_bias' token ${key}: expected a number, but got ${describe(entry)}.`);
    }
    if (entry < -100 || entry > 100) throw invalid('logit_bias', `Invalid value for 'logit_bias' token ${key}: expected a bias from -100 to 100, but got ${entry}.`);
    bias.set(Number(key), entry);
  }
  if (bias.size === 0) return undefined;
  // A remote model's server has its own token ids: it is sent the biases to apply (or refuse).
  asks.push({ need: 'logitBias', refusal: { param: 'logit_bias', message: "logit_bias is not supported by model '{model}': its engine cannot bias token choice." } });
  return bias;
}

/** `stop`: a string or up to four, empty ones dropped (chat completions' and this server's Responses API's). */
export function parseStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value ? [value] : [];
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string')) {
    throw invalid('stop', `Invalid type for 'stop': expected a string or an array of strings, but got ${describe(value)}.`);
  }
  if (value.length > 4) throw invalid('stop', `Invalid 'stop': array too long. Expected an array with maximum length 4, but got ${value.length}.`);
  return (value as string[]).filter((s) => s.length > 0);
}

function parseMessages(value: unknown, asks: Ask[]): ChatMessage[] {
  return nameToolResults(
    parseTurns(value, asks),
    'messages[{i}]',
    (id) => `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (no call has id '${id}').`,
  );
}

function parseTurns(value: unknown, asks: Ask[]): ChatMessage[] {
  if (value === undefined || value === null) throw invalid('messages', `Missing required parameter: 'messages'.`);
  if (!Array.isArray(value)) throw invalid('messages', `Invalid type for 'messages': expected an array, but got ${describe(value)}.`);
  if (value.length === 0) throw invalid('messages', `Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.`);
  return value.map((message, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(message)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(message)}.`);
    const role = message.role;
    if (typeof role !== 'string') throw invalid(`${at}.role`, `Missing required parameter: '${at}.role'.`);
    if (role === 'function') throw invalid(`${at}.role`, `Messages with role 'function' are not supported: send tool results with role 'tool'.`);
    // Own keys only: 'constructor', 'toString', '__proto__' are not roles.
    const mapped = Object.hasOwn(ROLES, role) ? ROLES[role] : undefined;
    if (!mapped) {
      throw invalid(`${at}.role`, `Invalid value: '${role}'. Supported values are: 'system', 'developer', 'user', 'assistant' and 'tool'.`);
    }
    const { content, parts } = parseContent(message.content, `${at}.content`, mapped, asks);
    if (parts) return { role: mapped, content, parts };
    if (mapped === 'tool') {
      if (typeof message.tool_call_id !== 'string') throw invalid(`${at}.tool_call_id`, `Missing required parameter: '${at}.tool_call_id'.`);
      return { role: mapped, content, toolCallId: message.tool_call_id };
    }
    if (mapped === 'assistant' && message.tool_calls !== undefined && message.tool_calls !== null) {
      return { role: mapped, content, toolCalls: parseToolCalls(message.tool_calls, `${at}.tool_calls`) };
    }
    return { role: mapped, content };
  });
}

/** An assistant turn's calls, as a follow-up request sends them back. */
function parseToolCalls(value: unknown, at: string): ToolCall[] {
  if (!Array.isArray(value)) throw invalid(at, `Invalid type for '${at}': expected an array, but got ${describe(value)}.`);
  return value.map((call, i) => {
    const callAt = `${at}[${i}]`;
    if (!isRecord(call)) throw invalid(callAt, `Invalid type for '${callAt}': expected an object, but got ${describe(call)}.`);
    if (typeof call.id !== 'string') throw invalid(`${callAt}.id`, `Missing required parameter: '${callAt}.id'.`);
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== 'string') throw invalid(`${callAt}.function.name`, `Missing required parameter: '${callAt}.function.name'.`);
    if (typeof fn.arguments !== 'string') throw invalid(`${callAt}.function.arguments`, `Missing required parameter: '${callAt}.function.arguments'.`);
    return { id: call.id, name: fn.name, arguments: fn.arguments };
  });
}

/**
 * A message's text, its parts joined; `parts` too where a user message holds images (`image_url`
 * parts, which only a remote model's server is sent: a local model refuses the first part that is
 * not text, so the rest are read as its server would).
 */
function parseContent(content: unknown, at: string, role: ChatRole, asks: Ask[]): { content: string; parts?: ContentPart[] } {
  if (typeof content === 'string') return { content };
  if ((content === null || content === undefined) && role === 'assistant') return { content: '' };
  if (content === null || content === undefined) throw invalid(at, `Missing required parameter: '${at}'.`);
  if (!Array.isArray(content)) throw invalid(at, `Invalid type for '${at}': expected a string or an array of content parts, but got ${describe(content)}.`);
  const parts = content.map((part, j): ContentPart => {
    const partAt = `${at}[${j}]`;
    if (!isRecord(part)) throw invalid(partAt, `Invalid type for '${partAt}': expected an object, but got ${describe(part)}.`);
    const key = part.type === 'text' ? 'text' : part.type === 'refusal' && role === 'assistant' ? 'refusal' : undefined;
    if (!key) asks.push({ need: 'nothing', local: true, refusal: { param: `${partAt}.type`, message: `Content parts of type ${describe(part.type)} are not supported: this model reads text only.` } });
    if (part.type === 'image_url' && role === 'user') return { type: 'image', url: imageUrl(part.image_url, `${partAt}.image_url`) };
    if (!key) throw invalid(`${partAt}.type`, `Content parts of type ${describe(part.type)} are not supported: this model's server is sent text and images only.`);
    if (typeof part[key] !== 'string') throw invalid(`${partAt}.${key}`, `Missing required parameter: '${partAt}.${key}'.`);
    return { type: 'text', text: part[key] as string };
  });
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  return parts.some((part) => part.type === 'image') ? { content: text, parts } : { content: text };
}

/** An image part's URL: http(s), or a base64 `data:` URL (what every API that reads images takes). */
function imageUrl(image: unknown, at: string): string {
  const url = isRecord(image) ? image.url : undefined;
  if (typeof url !== 'string') throw invalid(`${at}.url`, `Missing required parameter: '${at}.url'.`);
  if (!/^https?:\/\//i.test(url) && !/^data:[^;,]+;base64,/i.test(url)) throw invalid(`${at}.url`, `Invalid '${at}.url': expected an http(s) URL or a base64 data URL.`);
  return url;
}
