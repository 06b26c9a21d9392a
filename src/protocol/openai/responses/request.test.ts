import { describe, expect, it } from 'vitest';
import { admitFor, faultFor, inCallerTerms, refusalOf } from '../../../core/admit.ts';
import type { ModelInfo } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { toConversation, type ConversationItem } from './items.ts';
import { echoFor, MIN_OUTPUT_TOKENS, parseResponsesRequest, toNeutralRequest } from './request.ts';

const MODEL = 'tiny-chat';
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
/** The model named: one that does not reason, and one that does. */
const PLAIN: ModelInfo = { id: MODEL, kind: 'chat', engine: 'test', contextWindow: 512, maxOutputTokens: 256 };
const THINKER: ModelInfo = { ...PLAIN, reasoning: { open: '<think>', close: '</think>', switch: 'enable_thinking' } };

/** The body's own parameters as the route takes them for the model named: its first refusal or fault, thrown. */
function parseFor(body: Record<string, unknown>, named: ModelInfo = PLAIN) {
  const read = parseResponsesRequest(body);
  if ('fault' in read) throw faultFor(read, named);
  const refused = refusalOf(read.names.asks, named);
  if (refused) throw refused;
  return read;
}

function parse(body: Record<string, unknown>) {
  return parseFor({ model: MODEL, input: 'Hi', ...body });
}

/** The neutral request of a body without references, its input the whole conversation (the instructions first). */
function neutralOf(body: Record<string, unknown>, named: ModelInfo = PLAIN) {
  const full = { model: MODEL, input: 'Hi', ...body };
  const parsed = parseFor(full, named);
  const messages = [...(parsed.instructions ? [{ role: 'system' as const, content: parsed.instructions }] : []), ...toConversation(parsed.input as ConversationItem[], 0)];
  const neutral = toNeutralRequest(full, parsed, messages);
  if ('fault' in neutral) throw neutral.fault;
  return neutral;
}

/** The request as `model` is given it, or the first refusal (or fault) it gets. */
function admittedFor(body: Record<string, unknown>, model: ModelInfo = PLAIN) {
  const full = { model: MODEL, input: 'Hi', ...body };
  const parsed = parseFor(full);
  return admitFor(toNeutralRequest(full, parsed, toConversation(parsed.input as ConversationItem[], 0)), model).chat;
}

/** The 400 a body gets; fails the test if the body is accepted. */
function rejected(body: Record<string, unknown>): GatewayError {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).status).toBe(400);
    return error as GatewayError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('parseResponsesRequest: the neutral request', () => {
  it('makes the smallest neutral request of a minimal request, and echoes the API’s defaults', () => {
    const parsed = parse({});
    expect(parsed).toEqual({
      stream: false,
      store: true,
      input: [{ type: 'message', role: 'user', text: 'Hi' }],
      echo: {
        instructions: null,
        metadata: {},
        max_output_tokens: null,
        parallel_tool_calls: true,
        temperature: 1,
        top_p: 1,
        tool_choice: 'auto',
        tools: [],
        text: { format: { type: 'text' }, verbosity: 'medium' },
        truncation: 'disabled',
        user: null,
        safety_identifier: null,
        prompt_cache_key: null,
      },
      reasoning: {},
      summary: false,
      encryptedContent: false,
      tools: [],
      format: { type: 'text' },
      names: { asks: [] },
    });
    expect(neutralOf({}).chat).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], stop: [] });
  });

  it('carries max_output_tokens as the cap and sampling, stop and seed as they are', () => {
    const body = { max_output_tokens: 64, temperature: 0, top_p: 0.5, seed: 7, stop: ['\n'], parallel_tool_calls: false };
    expect(neutralOf(body).chat).toEqual({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], maxTokens: 64, temperature: 0, topP: 0.5, seed: 7, stop: ['\n'] });
    expect(parse(body).echo).toMatchObject({ max_output_tokens: 64, temperature: 0, top_p: 0.5, parallel_tool_calls: false });
    // parallel_tool_calls is read with tools, as chat completions read it.
    expect(neutralOf(body).chat).not.toHaveProperty('parallelToolCalls');
  });

  it('streams a streamed request, whose usage response.completed reports', () => {
    expect(neutralOf({ stream: true }).stream).toBe(true);
    expect(parse({ stream: true }).stream).toBe(true);
    // The Responses API's own stream_options (include_obfuscation) is a hint here.
    expect(neutralOf({ stream: false, stream_options: { include_obfuscation: false } }).chat).toEqual(neutralOf({}).chat);
  });

  it('keeps instructions out of the input (they become the system message), with store and previous_response_id', () => {
    const parsed = parse({ instructions: 'Be brief.', store: false, previous_response_id: 'resp_1' });
    expect(parsed).toMatchObject({ instructions: 'Be brief.', store: false, previousResponseId: 'resp_1', input: [{ type: 'message', role: 'user', text: 'Hi' }] });
    expect(parsed.echo.instructions).toBe('Be brief.');
    expect(neutralOf({ instructions: 'Be brief.' }).chat.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
    // A follow-up may send no input of its own.
    expect(parse({ input: undefined, previous_response_id: 'resp_1' }).input).toEqual([]);
  });

  it('reads flat function tools as the neutral request’s tools, and echoes them flat, strict by default', () => {
    const body = {
      tools: [
        { type: 'function', name: 'get_weather', description: 'The weather.', parameters: WEATHER },
        { type: 'function', name: 'now', strict: false },
      ],
    };
    expect(neutralOf(body).chat).toMatchObject({
      tools: [
        { name: 'get_weather', description: 'The weather.', parameters: WEATHER },
        { name: 'now', parameters: { type: 'object', properties: {} } },
      ],
      toolChoice: 'auto',
      parallelToolCalls: true,
    });
    expect(parse(body).echo.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'The weather.', parameters: WEATHER, strict: true },
      { type: 'function', name: 'now', description: null, parameters: null, strict: false },
    ]);
    expect(neutralOf({ tools: [] }).chat).not.toHaveProperty('tools');
  });

  it.each([
    ['auto', 'auto', 'auto'],
    ['none', 'none', 'none'],
    ['required', 'required', 'required'],
    ['a named function', { type: 'function', name: 'get_weather' }, { name: 'get_weather' }],
  ])('reads tool_choice %s as the neutral choice and echoes it in its own form', (_, choice, neutral) => {
    const body = { tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER }], tool_choice: choice };
    expect(neutralOf(body).chat.toolChoice).toEqual(neutral);
    expect(parse(body).echo.tool_choice).toEqual(choice);
  });

  it('turns text.format into the output, its schema as sent, and echoes the format', () => {
    expect(neutralOf({ text: { format: { type: 'text' } } }).chat).not.toHaveProperty('output');
    expect(parse({ text: { verbosity: 'low' } }).echo.text).toEqual({ format: { type: 'text' }, verbosity: 'low' });
    expect(neutralOf({ text: { format: { type: 'json_object' } } }).chat.output).toEqual({ kind: 'json_object' });
    const body = { text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true, description: 'A city.' } } };
    expect(neutralOf(body).chat.output).toEqual({ kind: 'json_schema', name: 'weather', schema: WEATHER, strict: true });
    expect(parse(body).echo.text).toEqual({ format: { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true, description: 'A city.' }, verbosity: 'medium' });
    expect(neutralOf({ text: { format: { type: 'json_schema', name: 'w', schema: WEATHER } } }).chat.output).toEqual({ kind: 'json_schema', name: 'w', schema: WEATHER, strict: false });
  });

  it('accepts what asks for nothing this server lacks: empty include, disabled truncation, no reasoning, false background', () => {
    expect(() =>
      parse({
        include: [],
        truncation: 'disabled',
        reasoning: { effort: 'none', summary: null },
        background: false,
        conversation: null,
        top_logprobs: 0,
        metadata: { team: 'a' },
        user: 'u',
        safety_identifier: 's',
        prompt_cache_key: 'k',
        service_tier: 'auto',
      }),
    ).not.toThrow();
    expect(parse({ metadata: { team: 'a' }, user: 'u' }).echo).toMatchObject({ metadata: { team: 'a' }, user: 'u' });
  });

  it('accepts the smallest max_output_tokens the real API does', () => {
    expect(neutralOf({ max_output_tokens: MIN_OUTPUT_TOKENS }).chat.maxTokens).toBe(16);
  });
});

describe('parseResponsesRequest: conversation', () => {
  it('takes a conversation by its id or as { id }, with no input needed', () => {
    expect(parseFor({ model: MODEL, input: 'Hi.', conversation: 'conv_1' }).conversation).toBe('conv_1');
    expect(parseFor({ model: MODEL, conversation: { id: 'conv_2' } }).conversation).toBe('conv_2');
    expect(parseFor({ model: MODEL, input: 'Hi.' }).conversation).toBeUndefined();
  });
});

describe('parseResponsesRequest: each 400 names its parameter', () => {
  it.each([
    ['an unknown top-level parameter', { messages: [] }, 'messages', "Unknown parameter: 'messages'."],
    ['chat’s name for the token cap', { max_tokens: 20 }, 'max_tokens', "Unknown parameter: 'max_tokens'."],
    ['chat’s logit_bias, which the Responses API does not have', { logit_bias: { '5': 1 } }, 'logit_bias', "Unknown parameter: 'logit_bias'."],
    ['a background run', { background: true }, 'background', /Background responses are not supported/],
    ['a conversation and a previous response both', { conversation: 'conv_1', previous_response_id: 'resp_1' }, 'conversation', /Mutually exclusive parameters/],
    ['a conversation that is not an id', { conversation: 7 }, 'conversation', /expected a conversation id/],
    ['a stored prompt', { prompt: { id: 'pmpt_1' } }, 'prompt', /Stored prompt templates/],
    ['max_tool_calls', { max_tool_calls: 2 }, 'max_tool_calls', /max_tool_calls is not supported/],
    ['reasoning.encrypted_content for a model that does not reason', { include: ['reasoning.encrypted_content'] }, 'include[0]', `Invalid value for 'include[0]': 'reasoning.encrypted_content' needs a model that reasons, and model '${MODEL}' does not: leave it out.`],
    ['logprobs to include', { include: ['message.output_text.logprobs'] }, 'include[0]', /'message.output_text.logprobs' cannot be included: this server gives no logprobs/],
    ['a hosted tool’s data to include', { include: ['file_search_call.results'] }, 'include[0]', /'file_search_call.results' cannot be included: this server runs no hosted tools/],
    ['an input image URL to include', { include: ['message.input_image.image_url'] }, 'include[0]', /cannot be included: its models read text only/],
    ['an unknown include value', { include: ['reasoning.everything'] }, 'include[0]', /Invalid value for 'include\[0\]': 'reasoning.everything'. Supported values are: 'reasoning.encrypted_content'/],
    ['an include value of the wrong type', { include: [7] }, 'include[0]', /expected a string, but got 7/],
    ['include of the wrong type', { include: 'x' }, 'include', /expected an array/],
    ['truncation auto', { truncation: 'auto' }, 'truncation', /Only 'disabled' is supported/],
    ['a reasoning effort', { reasoning: { effort: 'high' } }, 'reasoning.effort', `Reasoning is not supported by model '${MODEL}', which does not reason: leave out 'reasoning.effort'.`],
    ['a reasoning summary', { reasoning: { summary: 'auto' } }, 'reasoning.summary', /does not reason/],
    ['reasoning of the wrong type', { reasoning: 'high' }, 'reasoning', /expected an object/],
    ['top_logprobs', { top_logprobs: 3 }, 'top_logprobs', /not supported/],
    ['max_output_tokens below 16', { max_output_tokens: 15 }, 'max_output_tokens', 'Invalid \'max_output_tokens\': integer below minimum value. Expected a value >= 16, but got 15 instead.'],
    ['max_output_tokens of the wrong type', { max_output_tokens: '20' }, 'max_output_tokens', /expected an integer/],
    ['a fractional max_output_tokens', { max_output_tokens: 20.5 }, 'max_output_tokens', /expected an integer/],
    ['no input and no previous response', { input: [] }, 'input', "Missing required parameter: 'input'."],
    ['instructions of the wrong type', { instructions: ['a'] }, 'instructions', /expected a string/],
    ['previous_response_id of the wrong type', { previous_response_id: 5 }, 'previous_response_id', /expected a string/],
    ['stream of the wrong type', { stream: 'yes' }, 'stream', /expected a boolean/],
    ['store of the wrong type', { store: 1 }, 'store', /expected a boolean/],
    ['metadata of the wrong type', { metadata: [] }, 'metadata', /expected an object/],
    ['too many metadata keys', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata', /too many keys/],
    ['a metadata value that is not a string', { metadata: { n: 1 } }, 'metadata.n', /expected a string/],
    ['a hosted tool', { tools: [{ type: 'web_search' }] }, 'tools[0].type', /Tools of type 'web_search' are not supported: model 'tiny-chat' runs no hosted tools/],
    ['a hosted tool after a function', { tools: [{ type: 'function', name: 'f' }, { type: 'file_search', vector_store_ids: [] }] }, 'tools[1].type', /Tools of type 'file_search'/],
    ['tools of the wrong type', { tools: { type: 'function' } }, 'tools', /expected an array/],
    ['a tool that is not an object', { tools: ['f'] }, 'tools[0]', /expected an object/],
    ['a tool without a type', { tools: [{ name: 'f' }] }, 'tools[0].type', "Missing required parameter: 'tools[0].type'."],
    ['a tool_choice object without a type', { tool_choice: { name: 'f' } }, 'tool_choice.type', "Missing required parameter: 'tool_choice.type'."],
    ['a text.format without a type', { text: { format: { name: 'x' } } }, 'text.format.type', "Missing required parameter: 'text.format.type'."],
    ['a function tool_choice without a name', { tool_choice: { type: 'function' } }, 'tool_choice.name', /Missing required parameter/],
    ['a hosted tool_choice', { tool_choice: { type: 'web_search_preview' } }, 'tool_choice', /a choice of type 'web_search_preview'/],
    ['an unknown tool_choice', { tool_choice: 'any' }, 'tool_choice', /Invalid value for 'tool_choice'/],
    ['text of the wrong type', { text: 'json' }, 'text', /expected an object/],
    ['text.format of the wrong type', { text: { format: 'json' } }, 'text.format', /expected an object/],
    ['an unknown text.format type', { text: { format: { type: 'yaml' } } }, 'text.format.type', /Supported values are: 'text', 'json_object', and 'json_schema'/],
    ['json_schema without a schema', { text: { format: { type: 'json_schema', name: 'w' } } }, 'text.format.schema', "Missing required parameter: 'text.format.schema'."],
    ['json_schema without a name', { text: { format: { type: 'json_schema', schema: WEATHER } } }, 'text.format.name', "Missing required parameter: 'text.format.name'."],
    ['a malformed item', { input: [{ type: 'message', role: 'tool', content: 'x' }] }, 'input[0].role', /Invalid value for 'input\[0\]\.role': 'tool'/],
    ['a reasoning item', { input: [{ type: 'reasoning', summary: [] }] }, 'input[0].type', /does not reason/],
  ])('%s', (_, body, param, message) => {
    const error = rejected(body);
    expect(error.param).toBe(param);
    if (typeof message === 'string') expect(error.message).toBe(message);
    else expect(error.message).toMatch(message);
    // A missing value is named as missing, never described as "a undefined undefined".
    expect(error.message).not.toContain('undefined');
  });

  it('names the first unknown parameter before any other complaint', () => {
    expect(rejected({ frequency_penalty: 1, background: true }).param).toBe('frequency_penalty');
  });
});

describe('the neutral request’s refusals, in this API’s names', () => {
  const refusal = (body: Record<string, unknown>, model: ModelInfo = PLAIN) => {
    try {
      admittedFor(body, model);
    } catch (error) {
      const { param, message, code } = error as GatewayError;
      return { param, message, code };
    }
    throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  };

  it('names max_output_tokens where the cap is more than the model takes', () => {
    expect(refusal({ max_output_tokens: 999 })).toEqual({
      code: 'invalid_request',
      param: 'max_output_tokens',
      message: 'max_output_tokens is too large: 999. This model supports at most 256 completion tokens, whereas you provided 999.',
    });
  });

  it.each([
    ['a schema’s name', { text: { format: { type: 'json_schema', name: 'a name', schema: WEATHER } } }, { ...PLAIN, structuredOutput: true }, 'text.format.name', /^Invalid 'text.format.name': expected a string of 1 to 64/],
    ['JSON output, on a model without it', { text: { format: { type: 'json_object' } } }, { ...PLAIN, id: 'm' }, 'text.format', /^text.format of type 'json_object' is not supported by model 'm'.$/],
    ['a schema the grammar cannot enforce', { text: { format: { type: 'json_schema', name: 'w', schema: { type: 'object', not: {} } } } }, { ...PLAIN, structuredOutput: true }, 'text.format.schema', /^Invalid schema for text.format at #\/not: /],
    [
      'a tool’s parameters',
      { tools: [{ type: 'function', name: 'f' }, { type: 'function', name: 'g', parameters: { type: 'object', not: {} } }] },
      { ...PLAIN, toolCalling: true },
      'tools[1].parameters',
      /^Invalid schema for tools\[1\].parameters at #\/not: /,
    ],
    ['a named tool that is not among the tools', { tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } }, { ...PLAIN, toolCalling: true }, 'tool_choice', /^Invalid 'tool_choice': no tool named 'g'/],
    ['the input, which a prefill cannot end with tools', { input: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Sure' }], tools: [{ type: 'function', name: 'f' }] }, { ...PLAIN, toolCalling: true }, 'input', /^A trailing assistant message \(a prefill\) cannot be combined with tools/],
  ])('names %s as the caller sent it', (_, body, model, param, message) => {
    const refused = refusal(body, model);
    expect(refused.param).toBe(param);
    expect(refused.message).toMatch(message);
  });

  it("names the field an engine's refusal names (messages, response_format) as this API does, keeping its words, code and retryAfter", () => {
    const { names } = neutralOf({});
    const error = inCallerTerms(new GatewayError('context_length_exceeded', 'Too many tokens in messages.', { param: 'messages', retryAfter: 3 }), names);
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'input', message: 'Too many tokens in messages.', retryAfter: 3 });
    expect(inCallerTerms(new GatewayError('invalid_request', 'This engine cannot constrain output.', { param: 'response_format' }), names).param).toBe('text.format');
  });

  it('gives back an error with nothing to rename as it is', () => {
    const { names } = neutralOf({});
    const error = new GatewayError('queue_full', 'Too many requests.', { retryAfter: 1 });
    expect(inCallerTerms(error, names)).toBe(error);
    const named = new GatewayError('invalid_request', "Invalid 'temperature'.", { param: 'temperature' });
    expect(inCallerTerms(named, names)).toMatchObject({ param: 'temperature', message: "Invalid 'temperature'." });
  });
});

describe('parseResponsesRequest: a thinking model', () => {
  const parseThinker = (body: Record<string, unknown>) => parseFor({ model: MODEL, input: 'Hi', ...body }, THINKER);

  it('passes reasoning.effort on, echoes it, asks for a summary where reasoning.summary does, and keeps earlier reasoning items as items', () => {
    const body = { reasoning: { effort: 'none', summary: 'auto' }, input: [{ role: 'user', content: 'a' }, { type: 'reasoning', id: 'rs_1', summary: [] }] };
    const parsed = parseThinker(body);
    expect(neutralOf(body, THINKER).chat).toMatchObject({ thinking: false });
    expect(neutralOf({ reasoning: { effort: 'low' } }, THINKER).chat).toMatchObject({ reasoningEffort: 'low' });
    expect(echoFor(parsed, true)).toMatchObject({ reasoning: { effort: 'none', summary: 'auto' } });
    expect(echoFor(parseThinker({}), true)).toMatchObject({ reasoning: { effort: null, summary: null } });
    expect(echoFor(parse({}), false)).not.toHaveProperty('reasoning');
    expect(parsed.summary).toBe(true);
    expect(parsed.input).toEqual([
      { type: 'message', role: 'user', text: 'a' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
    ]);
    expect(parseThinker({}).summary).toBe(false);
  });

  it("takes include: ['reasoning.encrypted_content'], and a reasoning item sent back with any encrypted_content string", () => {
    expect(parseThinker({}).encryptedContent).toBe(false);
    expect(parseThinker({ include: [] }).encryptedContent).toBe(false);
    expect(parseThinker({ include: ['reasoning.encrypted_content'] }).encryptedContent).toBe(true);
    const input = [
      { role: 'user', content: 'a' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Thought.' }], encrypted_content: 'inpage-llm.rs.v1.cnNfMQ' },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAAAB-made-up-elsewhere' },
      { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Hi.' }] },
    ];
    expect(parseThinker({ input, store: false }).input).toEqual([
      { type: 'message', role: 'user', text: 'a' },
      { type: 'reasoning', id: 'rs_1', summary: ['Thought.'] },
      { type: 'reasoning', summary: [] },
      { type: 'message', id: 'msg_1', role: 'assistant', text: 'Hi.' },
    ]);
  });

  it.each([
    [{ input: [{ type: 'reasoning', summary: [], encrypted_content: 42 }] }, 'input[0].encrypted_content', "Invalid type for 'input[0].encrypted_content': expected a string, but got 42."],
    [{ input: [{ type: 'reasoning', summary: 'x' }] }, 'input[0].summary', /expected an array of 'summary_text' parts/],
    [{ input: [{ type: 'reasoning', summary: [{ type: 'output_text', text: 'x' }] }] }, 'input[0].summary[0].type', /Supported values are: 'summary_text'/],
    [{ input: [{ type: 'reasoning', summary: [{ type: 'summary_text' }] }] }, 'input[0].summary[0].text', /Missing required parameter/],
    [{ include: ['reasoning.encrypted_content', 'message.output_text.logprobs'] }, 'include[1]', /this server gives no logprobs/],
  ])('refuses %j naming %s', (body, param, message) => {
    try {
      parseThinker(body);
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_request', param });
      if (typeof message === 'string') expect((error as Error).message).toBe(message);
      else expect((error as Error).message).toMatch(message);
      return;
    }
    throw new Error('accepted');
  });

  it.each([
    [{ reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    [{ reasoning: { summary: 'long' } }, 'reasoning.summary'],
    [{ reasoning: { budget: 3 } }, 'reasoning.budget'],
  ])('refuses %j naming %s', (body, param) => {
    expect(() => parseThinker(body)).toThrow(expect.objectContaining({ code: 'invalid_request', param }));
  });
});
