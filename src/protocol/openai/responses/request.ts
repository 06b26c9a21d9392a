/**
 * `POST /responses` bodies, checked and turned into a chat completion body: the Responses API is
 * served by translation to chat completions, as vLLM and llama.cpp serve it, so every engine and
 * every remote model that answers chat answers it too, with the same grammar guarantees. What the
 * chat path cannot do (hosted tools, reasoning, background runs) is a 400 naming the parameter,
 * never a silent ignore. See docs/decisions/responses-over-chat.md.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 * @module
 */
import { GatewayError } from '../../../core/errors.ts';
import { checkNumber, describe, invalid, isRecord, optionalBoolean } from '../../../core/fields.ts';
import { parseInput, type ConversationItem, type ItemReference } from './items.ts';

export interface ParsedResponsesRequest {
  readonly stream: boolean;
  /** Keep the response (default true, as OpenAI). */
  readonly store: boolean;
  readonly previousResponseId?: string;
  /** The conversation whose items are the history, and to which this request's input and output are added. */
  readonly conversation?: string;
  readonly instructions?: string;
  /** This request's own input items, references not yet resolved. */
  readonly input: readonly (ConversationItem | ItemReference)[];
  /** The chat completion body, less `messages` (made once the conversation is resolved). */
  readonly chat: Readonly<Record<string, unknown>>;
  /** What the response object repeats of the request (tools, text format, sampling). */
  readonly echo: Readonly<Record<string, unknown>>;
  /** `reasoning.summary` asked for a summary of a thinking model's thinking. */
  readonly summary: boolean;
  /** `include: ["reasoning.encrypted_content"]`: each reasoning item carries its `encrypted_content`. */
  readonly encryptedContent: boolean;
  /** The model reasons (as the caller said): it takes reasoning items, by reference too. */
  readonly reasons: boolean;
}

/** The smallest `max_output_tokens` the real API accepts. */
export const MIN_OUTPUT_TOKENS = 16;

/** Parameters that change nothing here but are accepted as the real API accepts them (hints, labels). */
const HINTS = ['user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'service_tier', 'stream_options', 'personality'];

/** Parameters of the real API that need what a local model does not have: allowed only when empty. */
const UNSUPPORTED: Readonly<Record<string, string>> = {
  background: 'Background responses are not supported: the answer is computed while the request is open. Leave out background, or send false.',
  prompt: 'Stored prompt templates are not supported: send the prompt as instructions and input.',
  context_management: 'Server-side context management is not supported.',
  max_tool_calls: 'max_tool_calls is not supported: each response makes at most one turn of calls, and parallel_tool_calls: false limits it to one.',
};

const KNOWN = new Set([
  'model',
  'input',
  'instructions',
  'max_output_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'metadata',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'text',
  'stream',
  'store',
  'previous_response_id',
  'conversation',
  'include',
  'truncation',
  'reasoning',
  'top_logprobs',
  ...HINTS,
  ...Object.keys(UNSUPPORTED),
]);

/** `reasons`: the model thinks before it answers (its ModelInfo has `reasoning`). */
export function parseResponsesRequest(body: Readonly<Record<string, unknown>>, model: string, reasons = false): ParsedResponsesRequest {
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key)) throw invalid(key, `Unknown parameter: '${key}'.`);
  }
  for (const [key, why] of Object.entries(UNSUPPORTED)) {
    const value = body[key];
    if (value !== undefined && value !== null && value !== false) throw invalid(key, why);
  }
  const include = parseInclude(body.include, model, reasons);
  const reasoning = reasons ? parseReasoning(body.reasoning) : (checkReasoning(body.reasoning, model), undefined);
  if (body.truncation !== undefined && body.truncation !== null && body.truncation !== 'disabled') {
    throw invalid('truncation', `Invalid value for 'truncation': ${describe(body.truncation)}. Only 'disabled' is supported: a conversation that does not fit the context window is refused, never cut.`);
  }
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.top_logprobs !== 0) {
    throw invalid('top_logprobs', `top_logprobs are not supported by model '${model}'.`);
  }
  const instructions = optionalText(body, 'instructions');
  const previousResponseId = optionalText(body, 'previous_response_id');
  const conversation = conversationId(body.conversation);
  if (conversation !== undefined && previousResponseId !== undefined) {
    // The real API's words: a response continues one or the other, never both.
    throw invalid('conversation', "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.");
  }
  const metadata = parseMetadata(body.metadata);
  const input = parseInput(body.input, model, reasons);
  if (input.length === 0 && previousResponseId === undefined && conversation === undefined) throw invalid('input', `Missing required parameter: 'input'.`);
  const maxOutputTokens = body.max_output_tokens;
  if (maxOutputTokens !== undefined && maxOutputTokens !== null) {
    checkNumber(maxOutputTokens, { integer: true }, 'max_output_tokens');
    if ((maxOutputTokens as number) < MIN_OUTPUT_TOKENS) {
      throw invalid('max_output_tokens', `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${maxOutputTokens} instead.`);
    }
  }
  const tools = parseTools(body.tools, model);
  const toolChoice = parseToolChoice(body.tool_choice);
  const { format, responseFormat } = parseText(body.text);
  const stream = optionalBoolean(body, 'stream') ?? false;

  const chat: Record<string, unknown> = {
    model,
    ...(maxOutputTokens !== undefined && maxOutputTokens !== null ? { max_completion_tokens: maxOutputTokens } : {}),
    ...pick(body, ['temperature', 'top_p', 'stop', 'seed', 'parallel_tool_calls']),
    ...(tools.length > 0 ? { tools: tools.map(toChatTool) } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice.chat } : {}),
    ...(responseFormat ? { response_format: responseFormat } : {}),
    ...(reasoning?.effort ? { reasoning_effort: reasoning.effort } : {}),
    // Usage comes with the last chunk: a streamed response reports it in `response.completed`.
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
  const echo = {
    instructions: instructions ?? null,
    metadata,
    max_output_tokens: maxOutputTokens ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    tool_choice: toolChoice?.echo ?? 'auto',
    tools,
    text: { format, verbosity: isRecord(body.text) && typeof body.text.verbosity === 'string' ? body.text.verbosity : 'medium' },
    truncation: 'disabled',
    user: typeof body.user === 'string' ? body.user : null,
    safety_identifier: typeof body.safety_identifier === 'string' ? body.safety_identifier : null,
    prompt_cache_key: typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : null,
    ...(reasoning ? { reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null } } : {}),
  };
  return {
    stream,
    store: optionalBoolean(body, 'store') ?? true,
    ...(previousResponseId !== undefined ? { previousResponseId } : {}),
    ...(conversation !== undefined ? { conversation } : {}),
    ...(instructions !== undefined ? { instructions } : {}),
    input,
    chat,
    echo,
    summary: reasoning?.summary !== undefined,
    encryptedContent: include.has('reasoning.encrypted_content'),
    reasons,
  };
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const SUMMARIES = ['auto', 'concise', 'detailed'];

/**
 * A thinking model's `reasoning`: `effort` `none` or `minimal` turns the thinking off where the
 * model can be told; `low`, `medium` and `high` give it the model's thinking budget for that
 * effort (as `reasoning_effort` does in chat completions, which parses it); `summary` (or the
 * older `generate_summary`) asks for the thinking as the reasoning item's summary too.
 */
function parseReasoning(value: unknown): { effort?: string; summary?: string } {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw invalid('reasoning', `Invalid type for 'reasoning': expected an object, but got ${describe(value)}.`);
  const out: { effort?: string; summary?: string } = {};
  for (const [key, setting] of Object.entries(value)) {
    if (setting === undefined || setting === null) continue;
    const allowed = key === 'effort' ? EFFORTS : key === 'summary' || key === 'generate_summary' ? SUMMARIES : undefined;
    if (!allowed) throw invalid(`reasoning.${key}`, `Unknown parameter: 'reasoning.${key}'.`);
    if (typeof setting !== 'string' || !allowed.includes(setting)) {
      throw invalid(`reasoning.${key}`, `Invalid value for 'reasoning.${key}': ${describe(setting)}. Supported values are: ${allowed.map((v) => `'${v}'`).join(', ')}.`);
    }
    if (key === 'effort') out.effort = setting;
    else out.summary = setting;
  }
  return out;
}

/**
 * The real API's `include` values this server cannot give, and why. A thinking model's
 * `reasoning.encrypted_content` it can: an opaque token a stateless (`store: false`) client sends
 * back (see docs/decisions/reasoning-encrypted-content.md).
 */
const NOT_INCLUDABLE: Readonly<Record<string, string>> = {
  'code_interpreter_call.outputs': 'this server runs no hosted tools',
  'computer_call_output.output.image_url': 'this server runs no hosted tools',
  'file_search_call.results': 'this server runs no hosted tools',
  'web_search_call.results': 'this server runs no hosted tools',
  'web_search_call.action.sources': 'this server runs no hosted tools',
  'message.input_image.image_url': 'its models read text only',
  'message.output_text.logprobs': 'this server gives no logprobs',
};

/** `include`: what the response is to add; the one value this server can honour, or a 400 naming `include[i]`. */
function parseInclude(value: unknown, model: string, reasons: boolean): Set<string> {
  const include = new Set<string>();
  if (value === undefined || value === null) return include;
  if (!Array.isArray(value)) throw invalid('include', `Invalid type for 'include': expected an array, but got ${describe(value)}.`);
  value.forEach((entry, i) => {
    const at = `include[${i}]`;
    if (typeof entry !== 'string') throw invalid(at, `Invalid type for '${at}': expected a string, but got ${describe(entry)}.`);
    if (entry === 'reasoning.encrypted_content') {
      if (!reasons) throw invalid(at, `Invalid value for '${at}': 'reasoning.encrypted_content' needs a model that reasons, and model '${model}' does not: leave it out.`);
      include.add(entry);
      return;
    }
    const why = Object.hasOwn(NOT_INCLUDABLE, entry) ? NOT_INCLUDABLE[entry] : undefined;
    if (why) throw invalid(at, `Invalid value for '${at}': '${entry}' cannot be included: ${why}. Send an empty list or leave it out.`);
    throw invalid(
      at,
      `Invalid value for '${at}': ${describe(entry)}. Supported values are: 'reasoning.encrypted_content' (for a model that reasons); this server has none of the others' data (${Object.keys(NOT_INCLUDABLE).map((v) => `'${v}'`).join(', ')}).`,
    );
  });
  return include;
}

function checkReasoning(value: unknown, model: string): void {
  if (value === undefined || value === null) return;
  if (!isRecord(value)) throw invalid('reasoning', `Invalid type for 'reasoning': expected an object, but got ${describe(value)}.`);
  for (const [key, setting] of Object.entries(value)) {
    if (setting === undefined || setting === null || (key === 'effort' && setting === 'none')) continue;
    throw invalid(`reasoning.${key}`, `Reasoning is not supported by model '${model}', which does not reason: leave out 'reasoning.${key}'.`);
  }
}

/** `conversation`: its id, or `{ id }`. */
function conversationId(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  if (isRecord(value) && typeof value.id === 'string' && value.id !== '') return value.id;
  throw invalid('conversation', `Invalid value for 'conversation': expected a conversation id or {"id": ...}, but got ${describe(value)}.`);
}

function optionalText(body: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(key, `Invalid type for '${key}': expected a string, but got ${describe(value)}.`);
  return value;
}

/** Up to 16 pairs of strings (keys ≤ 64 characters, values ≤ 512), as the real API allows. */
export function parseMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw invalid('metadata', `Invalid type for 'metadata': expected an object, but got ${describe(value)}.`);
  const entries = Object.entries(value);
  if (entries.length > 16) throw invalid('metadata', `Invalid 'metadata': too many keys. Expected at most 16, but got ${entries.length}.`);
  for (const [key, entry] of entries) {
    if (key.length > 64) throw invalid('metadata', `Invalid 'metadata': a key is longer than 64 characters.`);
    if (typeof entry !== 'string') throw invalid(`metadata.${key}`, `Invalid type for 'metadata.${key}': expected a string, but got ${describe(entry)}.`);
    if (entry.length > 512) throw invalid(`metadata.${key}`, `Invalid 'metadata.${key}': string too long. Expected at most 512 characters.`);
  }
  return { ...(value as Record<string, string>) };
}

/** A function tool as the response echoes it. */
interface FunctionTool {
  readonly type: 'function';
  readonly name: unknown;
  readonly description: unknown;
  readonly parameters: unknown;
  readonly strict: boolean;
}

function parseTools(value: unknown, model: string): FunctionTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('tools', `Invalid type for 'tools': expected an array, but got ${describe(value)}.`);
  return value.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(tool)) throw invalid(at, `Invalid type for '${at}': expected an object, but got ${describe(tool)}.`);
    if (tool.type === undefined || tool.type === null) throw invalid(`${at}.type`, `Missing required parameter: '${at}.type'.`);
    if (tool.type !== 'function') {
      throw invalid(`${at}.type`, `Tools of type ${describe(tool.type)} are not supported: model '${model}' runs no hosted tools (web search, file search, computer use, code interpreter, MCP…); only 'function' tools are available.`);
    }
    // The real API's function tools are strict unless told otherwise; calls are grammar-constrained here either way.
    return { type: 'function', name: tool.name, description: tool.description ?? null, parameters: tool.parameters ?? null, strict: tool.strict !== false };
  });
}

function toChatTool(tool: FunctionTool): Record<string, unknown> {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== null ? { description: tool.description } : {}),
      ...(tool.parameters !== null ? { parameters: tool.parameters } : {}),
      strict: tool.strict,
    },
  };
}

function parseToolChoice(choice: unknown): { chat: unknown; echo: unknown } | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { chat: choice, echo: choice };
  if (isRecord(choice) && (choice.type === undefined || choice.type === null)) throw invalid('tool_choice.type', `Missing required parameter: 'tool_choice.type'.`);
  if (isRecord(choice) && choice.type === 'function') {
    if (typeof choice.name !== 'string') throw invalid('tool_choice.name', `Missing required parameter: 'tool_choice.name'.`);
    return { chat: { type: 'function', function: { name: choice.name } }, echo: { type: 'function', name: choice.name } };
  }
  throw invalid(
    'tool_choice',
    `Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {"type": "function", "name": ...}, but got ${isRecord(choice) ? `a choice of type ${describe(choice.type)}` : describe(choice)}.`,
  );
}

/** `text.format`: plain text (the default), any JSON object, or JSON matching a named schema. */
function parseText(text: unknown): { format: Record<string, unknown>; responseFormat?: Record<string, unknown> } {
  if (text === undefined || text === null) return { format: { type: 'text' } };
  if (!isRecord(text)) throw invalid('text', `Invalid type for 'text': expected an object, but got ${describe(text)}.`);
  const format = text.format;
  if (format === undefined || format === null) return { format: { type: 'text' } };
  if (!isRecord(format)) throw invalid('text.format', `Invalid type for 'text.format': expected an object, but got ${describe(format)}.`);
  if (format.type === undefined || format.type === null) throw invalid('text.format.type', `Missing required parameter: 'text.format.type'.`);
  if (format.type === 'text') return { format: { type: 'text' } };
  if (format.type === 'json_object') return { format: { type: 'json_object' }, responseFormat: { type: 'json_object' } };
  if (format.type !== 'json_schema') {
    throw invalid('text.format.type', `Invalid value: ${describe(format.type)}. Supported values are: 'text', 'json_object', and 'json_schema'.`);
  }
  if (format.schema === undefined || format.schema === null) throw invalid('text.format.schema', `Missing required parameter: 'text.format.schema'.`);
  if (format.name === undefined || format.name === null) throw invalid('text.format.name', `Missing required parameter: 'text.format.name'.`);
  const strict = format.strict ?? false;
  const spec = { name: format.name, schema: format.schema, strict, ...(format.description !== undefined && format.description !== null ? { description: format.description } : {}) };
  return { format: { type: 'json_schema', ...spec }, responseFormat: { type: 'json_schema', json_schema: spec } };
}

function pick(body: Readonly<Record<string, unknown>>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => body[key] !== undefined && body[key] !== null).map((key) => [key, body[key]]));
}

/** Chat completion parameter names as a Responses caller knows them, longest first. */
const RENAMES: readonly (readonly [RegExp, string])[] = [
  [/response_format\.json_schema\.?/g, 'text.format.'],
  [/response_format/g, 'text.format'],
  [/max_completion_tokens/g, 'max_output_tokens'],
  [/(tools\[\d+\])\.function/g, '$1'],
  [/tool_choice\.function\.name/g, 'tool_choice.name'],
  [/messages(\[\d+\])?/g, 'input'],
];

/**
 * A chat completion's error as the Responses caller sent it: the parameter and the message name
 * `max_output_tokens`, not `max_completion_tokens`. The translated body is this module's own, so
 * the chat path's complaints about `messages` are about `input`.
 */
export function inResponsesTerms(error: GatewayError): GatewayError {
  // A remote server's own words are passed on as it said them.
  if (error.upstream) return error;
  const rename = (text: string) => RENAMES.reduce((out, [pattern, to]) => out.replace(pattern, to), text).replace(/text\.format\.($|[^a-z])/g, 'text.format$1');
  if (error.param === undefined && !RENAMES.some(([pattern]) => new RegExp(pattern.source).test(error.message))) return error;
  return new GatewayError(error.code, rename(error.message), {
    ...(error.param !== undefined ? { param: rename(error.param) } : {}),
    ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
  });
}
