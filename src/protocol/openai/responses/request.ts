/**
 * `POST /responses` bodies, read into the neutral request the chat path answers, as it answers
 * `/chat/completions` and `/messages`: every engine and every remote model answers the Responses
 * API too, with the same grammar guarantees. A body is read in two steps: its own parameters
 * (`parseResponsesRequest`: the input items, what the response repeats, what is kept), then, once
 * the conversation before it is known, the neutral request of the whole (`toNeutralRequest`),
 * the conversation's items as its messages (items.ts). What the chat path cannot do (hosted
 * tools, background runs) is a 400 naming the parameter, never a silent ignore. See
 * docs/decisions/responses-over-chat.md.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 * @module
 */
import { reading, type Ask, type CallerNames, type Unread } from '../../../core/admit.ts';
import type { ParsedChat } from '../../../core/context.ts';
import type { ChatMessage, NeutralRequest } from '../../../core/engine.ts';
import { checkNumber, describe, invalid, isRecord, optionalBoolean, optionalNumber } from '../../../core/fields.ts';
import { checkChoice, checkUniqueNames, toolSpec } from '../../../core/tool-specs.ts';
import { parseStop } from '../chat/parse.ts';
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
  /** What the response object repeats of the request (tools, text format, sampling); see `echoFor`. */
  readonly echo: Readonly<Record<string, unknown>>;
  /** `reasoning` as sent: its effort and summary, where given. */
  readonly reasoning: { readonly effort?: string; readonly summary?: string };
  /** `reasoning.summary` asked for a summary of a thinking model's thinking. */
  readonly summary: boolean;
  /** `include: ["reasoning.encrypted_content"]`: each reasoning item carries its `encrypted_content`. */
  readonly encryptedContent: boolean;
  /** Function tools, as the response repeats them. */
  readonly tools: readonly FunctionTool[];
  readonly toolChoice?: ToolChoiceParam;
  /** `text.format`, as the response repeats it. */
  readonly format: Readonly<Record<string, unknown>>;
  /**
   * What it asks of the model it names: that it reasons (`reasoning`, `include`, reasoning items),
   * answered before the conversation is looked up, and once: a fallback takes what the model
   * named took (core/admit.ts).
   */
  readonly names: CallerNames;
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

/**
 * The body's own parameters (its `model` already checked: a string, named in refusals); what
 * depends on the conversation before it is read by `toNeutralRequest`.
 */
export function parseResponsesRequest(body: Readonly<Record<string, unknown>>): ParsedResponsesRequest | Unread {
  const model = String(body.model);
  return reading((asks): Omit<ParsedResponsesRequest, 'names'> => {
    for (const key of Object.keys(body)) {
      if (!KNOWN.has(key)) throw invalid(key, `Unknown parameter: '${key}'.`);
    }
    for (const [key, why] of Object.entries(UNSUPPORTED)) {
      const value = body[key];
      if (value !== undefined && value !== null && value !== false) throw invalid(key, why);
    }
    const include = parseInclude(body.include, model, asks);
    const reasoning = parseReasoning(body.reasoning, model, asks);
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
    const input = parseInput(body.input, model, asks);
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
    const format = parseText(body.text);
    const stream = optionalBoolean(body, 'stream') ?? false;
    const echo = {
      instructions: instructions ?? null,
      metadata,
      max_output_tokens: maxOutputTokens ?? null,
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      temperature: body.temperature ?? 1,
      top_p: body.top_p ?? 1,
      tool_choice: toolChoice ?? 'auto',
      tools,
      text: { format, verbosity: isRecord(body.text) && typeof body.text.verbosity === 'string' ? body.text.verbosity : 'medium' },
      truncation: 'disabled',
      user: typeof body.user === 'string' ? body.user : null,
      safety_identifier: typeof body.safety_identifier === 'string' ? body.safety_identifier : null,
      prompt_cache_key: typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : null,
    };
    return {
      stream,
      store: optionalBoolean(body, 'store') ?? true,
      ...(previousResponseId !== undefined ? { previousResponseId } : {}),
      ...(conversation !== undefined ? { conversation } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
      input,
      echo,
      reasoning,
      summary: reasoning.summary !== undefined,
      encryptedContent: include.has('reasoning.encrypted_content'),
      tools,
      ...(toolChoice !== undefined ? { toolChoice } : {}),
      format,
    };
  });
}

/** What the response object repeats of the request: `reasoning` too, for a model named that reasons. */
export function echoFor(parsed: ParsedResponsesRequest, reasons: boolean): Readonly<Record<string, unknown>> {
  if (!reasons) return parsed.echo;
  return { ...parsed.echo, reasoning: { effort: parsed.reasoning.effort ?? null, summary: parsed.reasoning.summary ?? null } };
}

/** The caller's names for what engines and remote servers' clients call by chat completions' names. */
const PARAMS = { messages: 'input', response_format: 'text.format', 'response_format.json_schema.schema': 'text.format.schema' };

/**
 * The request as the chat path answers it, `messages` the conversation with this request's input
 * (items.ts `toConversation`), with what it asks of the model that serves it. Its faults come
 * after the model is looked up, as they always did (the same checks as a chat completion's).
 */
export function toNeutralRequest(body: Readonly<Record<string, unknown>>, parsed: ParsedResponsesRequest, messages: readonly ChatMessage[]): ParsedChat | Unread {
  return reading((asks) => {
    if (messages.length === 0) throw invalid('input', "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.");
    const tools = neutralTools(body, parsed, asks);
    const output = neutralOutput(parsed.format, asks);
    if ((output || tools.tools) && messages.at(-1)?.role === 'assistant') {
      throw invalid('input', `A trailing assistant message (a prefill) cannot be combined with ${output ? 'a JSON text.format: the output must be the JSON value alone' : 'tools: a tool call must start the reply'}.`);
    }
    // As `reasoning_effort` in chat completions: `none` and `minimal` turn thinking off, `low` to `high` are a budget (the model's own).
    const effort = parsed.reasoning.effort;
    const thinking = effort === 'none' || effort === 'minimal' ? false : undefined;
    const reasoningEffort = effort === 'low' || effort === 'medium' || effort === 'high' ? effort : undefined;
    const maxTokens = body.max_output_tokens as number | null | undefined;
    if (maxTokens !== undefined && maxTokens !== null) {
      asks.push({ need: 'room', tokens: maxTokens, refusal: { param: 'max_output_tokens', message: `max_output_tokens is too large: ${maxTokens}. This model supports at most {limit} completion tokens, whereas you provided ${maxTokens}.` } });
    }
    const chat: NeutralRequest = {
      model: String(body.model),
      messages,
      ...(maxTokens !== undefined && maxTokens !== null ? { maxTokens } : {}),
      temperature: optionalNumber(body, 'temperature', { min: 0, max: 2 }),
      topP: optionalNumber(body, 'top_p', { min: 0, max: 1 }),
      seed: optionalNumber(body, 'seed', { integer: true }),
      stop: parseStop(body.stop),
      ...(output ? { output } : {}),
      ...tools,
      ...(thinking !== undefined ? { thinking } : {}),
      ...(reasoningEffort ? { reasoningEffort } : {}),
    };
    return { chat, stream: parsed.stream };
  }, PARAMS);
}

/** The function tools, the tool choice and `parallel_tool_calls` (read only with tools, as chat completions read it). */
function neutralTools(body: Readonly<Record<string, unknown>>, parsed: ParsedResponsesRequest, asks: Ask[]): Pick<NeutralRequest, 'tools' | 'toolChoice' | 'parallelToolCalls'> {
  const choice = parsed.toolChoice;
  if (parsed.tools.length === 0) {
    if (choice !== undefined) throw invalid('tool_choice', "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
    return {};
  }
  asks.push({ need: 'toolCalling', refusal: { param: 'tools', message: "Tool calling is not supported by model '{model}'." } });
  const tools = parsed.tools.map((tool, i) => toolSpec(tool.name, tool.description ?? undefined, tool.parameters ?? undefined, `tools[${i}]`, 'parameters', asks));
  checkUniqueNames(tools, 'tools');
  const toolChoice = choice === undefined ? 'auto' : typeof choice === 'string' ? choice : { name: choice.name };
  checkChoice(toolChoice, tools, 'tool_choice');
  return { tools, toolChoice, parallelToolCalls: optionalBoolean(body, 'parallel_tool_calls') ?? true };
}

/** `text.format` as the output the answer must be, its schema as sent. */
function neutralOutput(format: Readonly<Record<string, unknown>>, asks: Ask[]): NeutralRequest['output'] {
  if (format.type !== 'json_object' && format.type !== 'json_schema') return undefined;
  asks.push({ need: 'structuredOutput', refusal: { param: 'text.format', message: `text.format of type '${format.type}' is not supported by model '{model}'.` } });
  if (format.type === 'json_object') return { kind: 'json_object' };
  if (typeof format.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(format.name)) {
    throw invalid('text.format.name', `Invalid 'text.format.name': expected a string of 1 to 64 letters, digits, underscores or dashes, but got ${describe(format.name)}.`);
  }
  const schema = format.schema ?? {};
  if (!isRecord(schema)) throw invalid('text.format.schema', `Invalid type for 'text.format.schema': expected an object, but got ${describe(schema)}.`);
  const strict = optionalBoolean(format, 'strict', 'text.format.strict') ?? false;
  asks.push({ need: 'grammar', schema, param: 'text.format.schema', where: 'text.format' });
  return { kind: 'json_schema', schema, strict, name: format.name };
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const SUMMARIES = ['auto', 'concise', 'detailed'];

/**
 * `reasoning`, for a thinking model: `effort` `none` or `minimal` turns the thinking off where the
 * model can be told; `low`, `medium` and `high` give it the model's thinking budget for that
 * effort (as `reasoning_effort` does in chat completions); `summary` (or the older
 * `generate_summary`) asks for the thinking as the reasoning item's summary too. A model that
 * does not reason takes none of it but an effort of `none` (asked of the model named).
 */
function parseReasoning(value: unknown, model: string, asks: Ask[]): { effort?: string; summary?: string } {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) throw invalid('reasoning', `Invalid type for 'reasoning': expected an object, but got ${describe(value)}.`);
  const out: { effort?: string; summary?: string } = {};
  for (const [key, setting] of Object.entries(value)) {
    if (setting === undefined || setting === null) continue;
    if (key !== 'effort' || setting !== 'none') {
      asks.push({ need: 'reasoning', refusal: { param: `reasoning.${key}`, message: `Reasoning is not supported by model '${model}', which does not reason: leave out 'reasoning.${key}'.` } });
    }
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

/**
 * `include`: what the response is to add; the one value this server can honour (asked of the
 * model named: that it reasons), or a 400 naming `include[i]`.
 */
function parseInclude(value: unknown, model: string, asks: Ask[]): Set<string> {
  const include = new Set<string>();
  if (value === undefined || value === null) return include;
  if (!Array.isArray(value)) throw invalid('include', `Invalid type for 'include': expected an array, but got ${describe(value)}.`);
  value.forEach((entry, i) => {
    const at = `include[${i}]`;
    if (typeof entry !== 'string') throw invalid(at, `Invalid type for '${at}': expected a string, but got ${describe(entry)}.`);
    if (entry === 'reasoning.encrypted_content') {
      asks.push({ need: 'reasoning', refusal: { param: at, message: `Invalid value for '${at}': 'reasoning.encrypted_content' needs a model that reasons, and model '${model}' does not: leave it out.` } });
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

/** `tool_choice`, as the response repeats it. */
type ToolChoiceParam = 'auto' | 'none' | 'required' | { readonly type: 'function'; readonly name: string };

function parseToolChoice(choice: unknown): ToolChoiceParam | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (isRecord(choice) && (choice.type === undefined || choice.type === null)) throw invalid('tool_choice.type', `Missing required parameter: 'tool_choice.type'.`);
  if (isRecord(choice) && choice.type === 'function') {
    if (typeof choice.name !== 'string') throw invalid('tool_choice.name', `Missing required parameter: 'tool_choice.name'.`);
    return { type: 'function', name: choice.name };
  }
  throw invalid(
    'tool_choice',
    `Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or {"type": "function", "name": ...}, but got ${isRecord(choice) ? `a choice of type ${describe(choice.type)}` : describe(choice)}.`,
  );
}

/** `text.format`: plain text (the default), any JSON object, or JSON matching a named schema; as the response repeats it. */
function parseText(text: unknown): Record<string, unknown> {
  if (text === undefined || text === null) return { type: 'text' };
  if (!isRecord(text)) throw invalid('text', `Invalid type for 'text': expected an object, but got ${describe(text)}.`);
  const format = text.format;
  if (format === undefined || format === null) return { type: 'text' };
  if (!isRecord(format)) throw invalid('text.format', `Invalid type for 'text.format': expected an object, but got ${describe(format)}.`);
  if (format.type === undefined || format.type === null) throw invalid('text.format.type', `Missing required parameter: 'text.format.type'.`);
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type !== 'json_schema') {
    throw invalid('text.format.type', `Invalid value: ${describe(format.type)}. Supported values are: 'text', 'json_object', and 'json_schema'.`);
  }
  if (format.schema === undefined || format.schema === null) throw invalid('text.format.schema', `Missing required parameter: 'text.format.schema'.`);
  if (format.name === undefined || format.name === null) throw invalid('text.format.name', `Missing required parameter: 'text.format.name'.`);
  return { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? false, ...(format.description !== undefined && format.description !== null ? { description: format.description } : {}) };
}
