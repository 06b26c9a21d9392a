import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../core/errors.ts';
import { inResponsesTerms, MIN_OUTPUT_TOKENS, parseResponsesRequest } from './request.ts';

const MODEL = 'tiny-chat';
const WEATHER = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

function parse(body: Record<string, unknown>) {
  return parseResponsesRequest({ model: MODEL, input: 'Hi', ...body }, MODEL);
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

describe('parseResponsesRequest: the chat completion body', () => {
  it('makes the smallest chat body of a minimal request, and echoes the API’s defaults', () => {
    const parsed = parse({});
    expect(parsed).toEqual({
      stream: false,
      store: true,
      input: [{ type: 'message', role: 'user', text: 'Hi' }],
      chat: { model: MODEL },
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
      summary: false,
      encryptedContent: false,
      reasons: false,
    });
  });

  it('renames max_output_tokens to max_completion_tokens and passes sampling, stop and seed as they are', () => {
    const parsed = parse({ max_output_tokens: 64, temperature: 0, top_p: 0.5, seed: 7, stop: ['\n'], parallel_tool_calls: false });
    expect(parsed.chat).toEqual({ model: MODEL, max_completion_tokens: 64, temperature: 0, top_p: 0.5, seed: 7, stop: ['\n'], parallel_tool_calls: false });
    expect(parsed.echo).toMatchObject({ max_output_tokens: 64, temperature: 0, top_p: 0.5, parallel_tool_calls: false });
    expect(parsed.chat).not.toHaveProperty('max_output_tokens');
  });

  it('asks a streamed answer for its usage, which response.completed reports', () => {
    expect(parse({ stream: true }).chat).toEqual({ model: MODEL, stream: true, stream_options: { include_usage: true } });
    expect(parse({ stream: true }).stream).toBe(true);
    // The Responses API's own stream_options (include_obfuscation) is a hint here, not chat's.
    expect(parse({ stream: false, stream_options: { include_obfuscation: false } }).chat).toEqual({ model: MODEL });
  });

  it('keeps instructions out of the input (they become the system message), with store and previous_response_id', () => {
    const parsed = parse({ instructions: 'Be brief.', store: false, previous_response_id: 'resp_1' });
    expect(parsed).toMatchObject({ instructions: 'Be brief.', store: false, previousResponseId: 'resp_1', input: [{ type: 'message', role: 'user', text: 'Hi' }] });
    expect(parsed.echo.instructions).toBe('Be brief.');
    // A follow-up may send no input of its own.
    expect(parse({ input: undefined, previous_response_id: 'resp_1' }).input).toEqual([]);
  });

  it('nests flat function tools in chat’s `function`, and echoes them flat, strict by default', () => {
    const parsed = parse({
      tools: [
        { type: 'function', name: 'get_weather', description: 'The weather.', parameters: WEATHER },
        { type: 'function', name: 'now', strict: false },
      ],
    });
    expect(parsed.chat.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'The weather.', parameters: WEATHER, strict: true } },
      { type: 'function', function: { name: 'now', strict: false } },
    ]);
    expect(parsed.echo.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'The weather.', parameters: WEATHER, strict: true },
      { type: 'function', name: 'now', description: null, parameters: null, strict: false },
    ]);
    expect(parse({ tools: [] }).chat).not.toHaveProperty('tools');
  });

  it.each([
    ['auto', 'auto', 'auto'],
    ['none', 'none', 'none'],
    ['required', 'required', 'required'],
    ['a named function', { type: 'function', name: 'get_weather' }, { type: 'function', function: { name: 'get_weather' } }],
  ])('passes tool_choice %s in chat’s form and echoes it in its own', (_, choice, chat) => {
    const parsed = parse({ tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER }], tool_choice: choice });
    expect(parsed.chat.tool_choice).toEqual(chat);
    expect(parsed.echo.tool_choice).toEqual(choice);
  });

  it('turns text.format into response_format, and echoes the format', () => {
    expect(parse({ text: { format: { type: 'text' } } }).chat).not.toHaveProperty('response_format');
    expect(parse({ text: { verbosity: 'low' } }).echo.text).toEqual({ format: { type: 'text' }, verbosity: 'low' });
    expect(parse({ text: { format: { type: 'json_object' } } }).chat.response_format).toEqual({ type: 'json_object' });
    const schema = parse({ text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true, description: 'A city.' } } });
    expect(schema.chat.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true, description: 'A city.' } });
    expect(schema.echo.text).toEqual({ format: { type: 'json_schema', name: 'weather', schema: WEATHER, strict: true, description: 'A city.' }, verbosity: 'medium' });
    expect(parse({ text: { format: { type: 'json_schema', name: 'w', schema: WEATHER } } }).chat.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'w', schema: WEATHER, strict: false } });
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
    expect(parse({ max_output_tokens: MIN_OUTPUT_TOKENS }).chat.max_completion_tokens).toBe(16);
  });
});

describe('parseResponsesRequest: conversation', () => {
  it('takes a conversation by its id or as { id }, with no input needed', () => {
    expect(parseResponsesRequest({ model: MODEL, input: 'Hi.', conversation: 'conv_1' }, MODEL).conversation).toBe('conv_1');
    expect(parseResponsesRequest({ model: MODEL, conversation: { id: 'conv_2' } }, MODEL).conversation).toBe('conv_2');
    expect(parseResponsesRequest({ model: MODEL, input: 'Hi.' }, MODEL).conversation).toBeUndefined();
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

describe('inResponsesTerms', () => {
  const renamed = (param: string | undefined, message: string) => {
    const error = inResponsesTerms(new GatewayError('invalid_request', message, param === undefined ? {} : { param }));
    return { param: error.param, message: error.message, code: error.code };
  };

  it('names max_output_tokens where the chat path named max_completion_tokens', () => {
    expect(renamed('max_completion_tokens', 'max_completion_tokens is too large: 999. This model supports at most 256 completion tokens, whereas you provided 999.')).toEqual({
      code: 'invalid_request',
      param: 'max_output_tokens',
      message: 'max_output_tokens is too large: 999. This model supports at most 256 completion tokens, whereas you provided 999.',
    });
  });

  it.each([
    ['response_format.json_schema.name', "Invalid 'response_format.json_schema.name': expected …", 'text.format.name', "Invalid 'text.format.name': expected …"],
    ['response_format.json_schema', "Missing required parameter: 'response_format.json_schema'.", 'text.format', "Missing required parameter: 'text.format'."],
    ['response_format', "response_format of type 'json_object' is not supported by model 'm'.", 'text.format', "text.format of type 'json_object' is not supported by model 'm'."],
    ['tools[1].function.parameters', "Invalid 'tools[1].function.parameters': …", 'tools[1].parameters', "Invalid 'tools[1].parameters': …"],
    ['tool_choice.function.name', "Invalid 'tool_choice.function.name'.", 'tool_choice.name', "Invalid 'tool_choice.name'."],
    ['messages[3].content', "Invalid 'messages[3].content'.", 'input.content', "Invalid 'input.content'."],
    ['messages', 'The conversation in messages is too long.', 'input', 'The conversation in input is too long.'],
  ])('renames %s', (param, message, toParam, toMessage) => {
    expect(renamed(param, message)).toMatchObject({ param: toParam, message: toMessage });
  });

  it('renames a message with no param, and keeps retryAfter and the code', () => {
    const error = inResponsesTerms(new GatewayError('context_length_exceeded', 'Too many tokens in messages.', { retryAfter: 3 }));
    expect(error).toMatchObject({ code: 'context_length_exceeded', message: 'Too many tokens in input.', retryAfter: 3 });
    expect(error.param).toBeUndefined();
  });

  it('gives back an error with nothing to rename as it is', () => {
    const error = new GatewayError('queue_full', 'Too many requests.', { retryAfter: 1 });
    expect(inResponsesTerms(error)).toBe(error);
    const named = new GatewayError('invalid_request', "Invalid 'temperature'.", { param: 'temperature' });
    expect(inResponsesTerms(named)).toMatchObject({ param: 'temperature', message: "Invalid 'temperature'." });
  });
});

describe('parseResponsesRequest: a thinking model', () => {
  const parseThinker = (body: Record<string, unknown>) => parseResponsesRequest({ model: MODEL, input: 'Hi', ...body }, MODEL, true);

  it('passes reasoning.effort on, echoes it, asks for a summary where reasoning.summary does, and keeps earlier reasoning items as items', () => {
    const parsed = parseThinker({ reasoning: { effort: 'none', summary: 'auto' }, input: [{ role: 'user', content: 'a' }, { type: 'reasoning', id: 'rs_1', summary: [] }] });
    expect(parsed.chat).toMatchObject({ reasoning_effort: 'none' });
    expect(parsed.echo).toMatchObject({ reasoning: { effort: 'none', summary: 'auto' } });
    expect(parsed.summary).toBe(true);
    expect(parsed.reasons).toBe(true);
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
