/**
 * Arbitrary and malformed API requests as plain data, for fast-check: shared by the Node property
 * test (the gateway over a scripted engine) and the browser fuzz run (the service worker over the
 * real engine). Nothing here knows an engine; a profile names the models, the special prompts and
 * the body cap of the runtime under test.
 */
import fc from 'fast-check';

// ---- request specs (plain data, so fast-check can print and shrink them, and a page can rebuild them)

export type BodySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'bytes'; readonly bytes: readonly number[] }
  /** `value` as JSON followed by spaces up to `bytes` bytes: valid JSON of any size, built where it is sent. */
  | { readonly kind: 'padded'; readonly value: unknown; readonly bytes: number };

export interface RequestSpec {
  /** Which runtime answers (the Node test has an open and a keyed gateway). */
  readonly gateway: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: BodySpec;
}

/**
 * Placeholders for a stored response's id and one of its items' ids, which a runtime under test
 * replaces with those of a response it has stored (the requests are generated before any
 * exists); where none is, or where it is sent as it is, the request is answered 404.
 */
export const PREVIOUS_RESPONSE = '$previous_response';
export const PREVIOUS_ITEM = '$previous_item';
/** The same for a conversation the runtime holds, and one of its items. */
export const CONVERSATION = '$conversation';
export const CONVERSATION_ITEM = '$conversation_item';

/** Methods that `fetch` and `new Request` refuse outright. */
export const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

export function isBodyless(method: string): boolean {
  const upper = method.toUpperCase();
  return upper === 'GET' || upper === 'HEAD';
}

/** The body as a `fetch` would send it; undefined for GET and HEAD, which may not carry one. */
export function toBodyInit(spec: RequestSpec): string | Uint8Array<ArrayBuffer> | undefined {
  if (isBodyless(spec.method)) return undefined;
  const body = spec.body;
  if (body.kind === 'json') return JSON.stringify(body.value) ?? '';
  if (body.kind === 'text') return body.text;
  if (body.kind === 'bytes') return new Uint8Array(body.bytes);
  if (body.kind === 'padded') return (JSON.stringify(body.value) ?? '').padEnd(body.bytes, ' ');
  return undefined;
}

export function toRequest(spec: RequestSpec): Request {
  return new Request(spec.url, { method: spec.method, headers: spec.headers, body: toBodyInit(spec) });
}

/** What differs between the runtimes under test. */
export interface RequestProfile {
  /** Names for `RequestSpec.gateway`. */
  readonly gateways: readonly string[];
  /** The origin of most requests; `otherOrigins` now and then. */
  readonly origin: string;
  readonly otherOrigins: readonly string[];
  readonly chatModel: string;
  /** Ids a chat request may name by mistake (embedding models, unknown ids, wrong case). */
  readonly wrongChatModels: readonly string[];
  readonly embedModels: readonly string[];
  readonly wrongEmbedModels: readonly string[];
  /** Every model id the runtime lists. */
  readonly modelIds: readonly string[];
  /** Prompts that mean something to the runtime (fault markers for a test engine). */
  readonly specialTexts: readonly string[];
  /** A body just over the runtime's size cap. */
  readonly oversizeBody: BodySpec;
}

/** Everything one profile offers: the field arbitraries and the requests built from them. */
export function requestArbitraries(profile: RequestProfile) {
  // ---- values of the wrong type, mixed into every field

  const weird = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.string({ maxLength: 8 }),
    fc.constant([]),
    fc.constant({}),
    fc.array(fc.integer({ min: -5, max: 70_000 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
  );

  /** Text for prompts: plain, unicode (lone surrogates included), special prompts, over-long prompts. */
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('hi', 'Say hi.', 'Tell me about the quick brown fox.', '') },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
    { weight: 2, arbitrary: fc.constantFrom(...profile.specialTexts) },
    { weight: 1, arbitrary: fc.constant('word '.repeat(600)) },
  );

  /** Stop strings that an answer will often hit, and some that it will not. */
  const stopText = fc.oneof(fc.constantFrom('fox', ' ', 'o', 'the', 'brown ', 'zzz', ''), fc.string({ maxLength: 4 }));

  const maxTokens = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 12 }) },
    { weight: 2, arbitrary: fc.constantFrom(0, -1, 1.5, 256, 257, 1e30, 2 ** 53, -0, '5', '', true) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: weird },
  );

  const chatModel = fc.oneof(
    { weight: 8, arbitrary: fc.constant(profile.chatModel) },
    { weight: 2, arbitrary: fc.constantFrom(...profile.wrongChatModels) },
    { weight: 1, arbitrary: weird },
  );

  const embedModel = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...profile.embedModels) },
    { weight: 2, arbitrary: fc.constantFrom(...profile.wrongEmbedModels) },
    { weight: 1, arbitrary: weird },
  );

  const sampling = (max: number) => fc.oneof({ weight: 3, arbitrary: fc.double({ min: 0, max, noNaN: true }) }, { weight: 1, arbitrary: weird });

  /** A valid value, now and then a name every plain object inherits (a lookup-table trap). */
  const validOrPrototypeName = (valid: readonly string[]) =>
    fc.oneof({ weight: 15, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty') });

  // ---- OpenAI chat bodies

  const openaiPart = fc.oneof(
    { weight: 4, arbitrary: fc.record({ type: fc.constant('text'), text }) },
    {
      weight: 1,
      arbitrary: fc.record(
        { type: fc.oneof(fc.constantFrom('image_url', 'input_audio', 'file', 'refusal', 'text'), weird), text: weird, refusal: text, image_url: weird },
        { requiredKeys: ['type'] },
      ),
    },
    { weight: 1, arbitrary: weird },
  );
  const openaiRole = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('user', 'system', 'developer', 'assistant') },
    { weight: 2, arbitrary: fc.constantFrom('tool', 'function', 'constructor', '__proto__', 'toString', 'USER', '') },
    { weight: 1, arbitrary: weird },
  );
  const openaiMessage = fc.oneof(
    { weight: 6, arbitrary: fc.record({ role: fc.constantFrom('user', 'system', 'developer'), content: text }) },
    {
      weight: 3,
      arbitrary: fc.record(
        { role: openaiRole, content: fc.oneof(text, fc.array(openaiPart, { maxLength: 3 }), weird), name: fc.string({ maxLength: 5 }) },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: weird },
  );
  const openaiMessages = fc.oneof(
    { weight: 8, arbitrary: fc.array(openaiMessage, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: weird },
  );
  const chatFields = {
    model: chatModel,
    messages: openaiMessages,
    max_tokens: maxTokens,
    max_completion_tokens: maxTokens,
    stream: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: weird }),
    stream_options: fc.oneof(
      { weight: 4, arbitrary: fc.record({ include_usage: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: weird }) }) },
      { weight: 1, arbitrary: weird },
    ),
    temperature: sampling(2),
    top_p: sampling(1),
    n: fc.oneof(fc.constant(1), fc.integer({ min: -1, max: 3 }), weird),
    stop: fc.oneof(stopText, fc.array(stopText, { maxLength: 5 }), weird),
    seed: fc.oneof(fc.integer(), weird),
    presence_penalty: sampling(2),
    frequency_penalty: sampling(2),
    response_format: fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema') }), weird),
    tools: fc.oneof(fc.constant([]), fc.array(weird, { minLength: 1, maxLength: 2 }), weird),
    logprobs: fc.oneof(fc.boolean(), weird),
    reasoning_effort: fc.oneof(fc.constantFrom('none', 'minimal', 'low', 'high', 'extreme', null), weird),
    chat_template_kwargs: fc.oneof(fc.record({ enable_thinking: fc.oneof(fc.boolean(), weird) }), fc.record({ other: weird }), weird),
    user: text,
    metadata: weird,
  };
  const chatBody = fc.oneof(
    // Valid requests (of every option combination), to exercise the success paths.
    {
      weight: 4,
      arbitrary: fc.record(
        {
          model: fc.constant(profile.chatModel),
          messages: fc.array(fc.record({ role: validOrPrototypeName(['user', 'system', 'developer', 'assistant']), content: text }), { minLength: 1, maxLength: 3 }),
          max_tokens: fc.integer({ min: 1, max: 12 }),
          stream: fc.boolean(),
          stream_options: fc.record({ include_usage: fc.boolean() }),
          stop: fc.oneof(stopText, fc.array(stopText, { maxLength: 4 })),
        },
        { requiredKeys: ['model', 'messages'] },
      ),
    },
    // Mostly plausible: the required fields present, few optional ones.
    {
      weight: 5,
      arbitrary: fc.record(
        { model: chatFields.model, messages: chatFields.messages, max_tokens: chatFields.max_tokens, stream: chatFields.stream, stop: chatFields.stop, stream_options: chatFields.stream_options },
        { requiredKeys: ['model', 'messages'] },
      ),
    },
    // Every field, each maybe absent, maybe the wrong type.
    { weight: 3, arbitrary: fc.record(chatFields, { requiredKeys: [] }) },
  );

  // ---- Anthropic messages bodies

  const anthropicBlock = fc.oneof(
    { weight: 4, arbitrary: fc.record({ type: fc.constant('text'), text }) },
    {
      weight: 1,
      arbitrary: fc.record(
        { type: fc.oneof(fc.constantFrom('image', 'document', 'tool_use', 'tool_result', 'thinking', 'text'), weird), text: weird, source: weird },
        { requiredKeys: ['type'] },
      ),
    },
    { weight: 1, arbitrary: weird },
  );
  const anthropicMessage = fc.oneof(
    { weight: 6, arbitrary: fc.record({ role: fc.constantFrom('user', 'assistant', 'user'), content: text }) },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          role: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('user', 'assistant', 'system') }, { weight: 1, arbitrary: fc.constantFrom('tool', 'developer', 'constructor') }, { weight: 1, arbitrary: weird }),
          content: fc.oneof(text, fc.array(anthropicBlock, { maxLength: 3 }), weird),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: weird },
  );
  const messagesFields = {
    model: chatModel,
    max_tokens: maxTokens,
    messages: fc.oneof(
      { weight: 8, arbitrary: fc.array(anthropicMessage, { minLength: 1, maxLength: 3 }) },
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: weird },
    ),
    system: fc.oneof(text, fc.array(anthropicBlock, { maxLength: 2 }), weird),
    stream: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: weird }),
    stop_sequences: fc.oneof({ weight: 3, arbitrary: fc.array(stopText, { maxLength: 3 }) }, { weight: 1, arbitrary: weird }),
    temperature: sampling(1),
    top_p: sampling(1),
    top_k: fc.oneof(fc.integer({ min: -1, max: 100 }), weird),
    tools: fc.oneof(fc.constant([]), fc.array(weird, { minLength: 1, maxLength: 2 }), weird),
    thinking: fc.oneof(fc.record({ type: fc.constantFrom('enabled', 'disabled', 'adaptive', 'never'), budget_tokens: fc.oneof(fc.integer({ min: -1, max: 4096 }), weird), display: fc.oneof(fc.constantFrom('summarized', 'omitted'), weird) }, { requiredKeys: ['type'] }), weird),
    metadata: fc.oneof(fc.record({ user_id: fc.string({ maxLength: 5 }) }), weird),
  };
  const messagesBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          model: fc.constant(profile.chatModel),
          max_tokens: fc.integer({ min: 1, max: 12 }),
          messages: fc.array(fc.record({ role: validOrPrototypeName(['user', 'assistant']), content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })) }), {
            minLength: 1,
            maxLength: 3,
          }),
          system: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
          stream: fc.boolean(),
          stop_sequences: fc.array(stopText, { maxLength: 3 }),
        },
        { requiredKeys: ['model', 'max_tokens', 'messages'] },
      ),
    },
    {
      weight: 5,
      arbitrary: fc.record(
        { model: messagesFields.model, max_tokens: messagesFields.max_tokens, messages: messagesFields.messages, system: messagesFields.system, stream: messagesFields.stream, stop_sequences: messagesFields.stop_sequences },
        { requiredKeys: ['model', 'max_tokens', 'messages'] },
      ),
    },
    { weight: 3, arbitrary: fc.record(messagesFields, { requiredKeys: [] }) },
  );

  // ---- embeddings bodies

  const embeddingsFields = {
    model: embedModel,
    input: fc.oneof(
      { weight: 4, arbitrary: text },
      { weight: 4, arbitrary: fc.array(text, { minLength: 1, maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 4 }) },
      { weight: 1, arbitrary: fc.array(fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 3 }), { maxLength: 2 }) },
      { weight: 1, arbitrary: weird },
    ),
    encoding_format: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('float', 'base64') }, { weight: 1, arbitrary: fc.constantFrom('hex', '', 'FLOAT') }, { weight: 1, arbitrary: weird }),
    dimensions: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 20 }) }, { weight: 1, arbitrary: weird }),
    user: text,
  };
  const embeddingsBody = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record(
        {
          model: fc.constantFrom(...profile.embedModels),
          input: fc.oneof(text.filter((t) => t.length > 0), fc.array(text.filter((t) => t.length > 0), { minLength: 1, maxLength: 4 })),
          encoding_format: fc.constantFrom('float', 'base64'),
        },
        { requiredKeys: ['model', 'input'] },
      ),
    },
    {
      weight: 5,
      arbitrary: fc.record(
        { model: embeddingsFields.model, input: embeddingsFields.input, encoding_format: embeddingsFields.encoding_format, dimensions: embeddingsFields.dimensions },
        { requiredKeys: ['model', 'input'] },
      ),
    },
    { weight: 3, arbitrary: fc.record(embeddingsFields, { requiredKeys: [] }) },
  );

  // ---- OpenAI Responses bodies (POST /responses)

  const inputText = fc.record({ type: fc.constant('input_text'), text });
  const outputText = fc.record({ type: fc.constant('output_text'), text });
  /** Messages as clients send them: easy ones without `type`, typed ones with text parts. */
  const responsesMessage = fc.oneof(
    { weight: 4, arbitrary: fc.record({ role: validOrPrototypeName(['user', 'system', 'developer']), content: text }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('message'), role: fc.constantFrom('user', 'developer'), content: fc.array(inputText, { minLength: 1, maxLength: 2 }) }) },
    { weight: 2, arbitrary: fc.record({ type: fc.constant('message'), role: fc.constant('assistant'), content: fc.oneof(text, fc.array(outputText, { minLength: 1, maxLength: 2 })) }) },
  );
  /** A function call and its output, as the next turn of a tool loop sends them back. */
  const callAndOutput = fc
    .record({ call_id: fc.stringMatching(/^call_[a-z0-9]{1,6}$/), name: fc.constantFrom('get_weather', 'now'), arguments: fc.constantFrom('{}', '{"city":"Paris"}', ''), output: text })
    .map(({ output, ...call }) => [{ type: 'function_call', ...call }, { type: 'function_call_output', call_id: call.call_id, output }]);
  /** A valid input list: messages and call pairs, a user message last. */
  const responsesItems = fc
    .tuple(fc.array(fc.oneof(responsesMessage.map((m) => [m]), callAndOutput), { maxLength: 3 }), fc.record({ role: fc.constant('user'), content: text }))
    .map(([turns, last]) => [...turns.flat(), last]);

  const responsesPart = fc.oneof(
    { weight: 3, arbitrary: fc.oneof(inputText, outputText) },
    {
      weight: 2,
      arbitrary: fc.record(
        { type: fc.oneof(fc.constantFrom('input_text', 'output_text', 'refusal', 'text', 'input_image', 'input_file', 'input_audio', 'video', 'constructor'), weird), text: weird, refusal: text, image_url: weird },
        { requiredKeys: ['type'] },
      ),
    },
    { weight: 1, arbitrary: weird },
  );
  /** Items of every type, known and unknown (hosted tools' items, reasoning, prototype names), with fields of any type. */
  const anyItem = fc.record(
    {
      type: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('message', 'function_call', 'function_call_output', 'item_reference') },
        { weight: 2, arbitrary: fc.constantFrom('reasoning', 'web_search_call', 'file_search_call', 'computer_call', 'mcp_call', 'custom_tool_call', 'compaction', 'note', '', 'MESSAGE') },
        { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty') },
        { weight: 1, arbitrary: weird },
      ),
      role: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('user', 'assistant', 'system', 'developer') }, { weight: 1, arbitrary: fc.constantFrom('tool', 'function', 'constructor', '') }, { weight: 1, arbitrary: weird }),
      content: fc.oneof(text, fc.array(responsesPart, { maxLength: 3 }), weird),
      id: fc.oneof(fc.constantFrom(PREVIOUS_ITEM, 'msg_nope', ''), weird),
      call_id: fc.oneof(fc.constantFrom('call_1', 'call_2', ''), weird),
      name: fc.oneof(fc.constantFrom('get_weather', ''), weird),
      arguments: fc.oneof(fc.constantFrom('{}', '', '{"a":'), weird),
      output: fc.oneof(text, fc.array(responsesPart, { maxLength: 2 }), weird),
      summary: fc.constant([]),
    },
    { requiredKeys: [] },
  );
  const responsesInput = fc.oneof(
    { weight: 4, arbitrary: text },
    { weight: 6, arbitrary: responsesItems },
    { weight: 1, arbitrary: fc.constant([{ type: 'item_reference', id: PREVIOUS_ITEM }, { role: 'user', content: 'And then?' }]) },
    { weight: 4, arbitrary: fc.array(fc.oneof({ weight: 2, arbitrary: responsesMessage }, { weight: 2, arbitrary: anyItem }, { weight: 1, arbitrary: weird }), { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: weird },
  );
  const maxOutputTokens = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 16, max: 40 }) },
    { weight: 2, arbitrary: fc.constantFrom(15, 0, -1, 16.5, 256, 257, 1e30, 2 ** 53, -0, '20', '', true) },
    { weight: 1, arbitrary: fc.integer() },
    { weight: 1, arbitrary: weird },
  );
  const responsesFields = {
    model: chatModel,
    input: responsesInput,
    instructions: fc.oneof(text, weird),
    max_output_tokens: maxOutputTokens,
    temperature: sampling(2),
    top_p: sampling(1),
    stream: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: weird }),
    store: fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: weird }),
    previous_response_id: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(PREVIOUS_RESPONSE, 'resp_nope', '') }, { weight: 1, arbitrary: weird }),
    metadata: fc.oneof(
      fc.record({ team: fc.string({ maxLength: 8 }) }),
      fc.dictionary(fc.string({ maxLength: 70 }), fc.oneof(fc.string({ maxLength: 600 }), weird), { maxKeys: 20 }),
      weird,
    ),
    tools: fc.oneof(
      fc.constant([]),
      fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('function'), name: fc.constantFrom('get_weather', ''), parameters: fc.constant({ type: 'object', properties: {} }) }, { requiredKeys: ['type'] }),
          fc.record({ type: fc.constantFrom('web_search', 'web_search_preview', 'file_search', 'computer_use_preview', 'mcp', 'code_interpreter', 'image_generation', 'custom', 'constructor') }),
          weird,
        ),
        { minLength: 1, maxLength: 2 },
      ),
      weird,
    ),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required', 'any'), fc.record({ type: fc.constantFrom('function', 'web_search_preview', 'file_search'), name: fc.oneof(fc.string({ maxLength: 8 }), weird) }, { requiredKeys: ['type'] }), weird),
    text: fc.oneof(
      fc.record(
        {
          format: fc.oneof(
            fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'yaml') }),
            fc.record({ type: fc.constant('json_schema'), name: fc.oneof(fc.constantFrom('answer', ''), weird), schema: fc.oneof(fc.constant({ type: 'object' }), weird) }, { requiredKeys: ['type'] }),
            weird,
          ),
          verbosity: fc.oneof(fc.constantFrom('low', 'medium', 'high'), weird),
        },
        { requiredKeys: [] },
      ),
      weird,
    ),
    parallel_tool_calls: fc.oneof(fc.boolean(), weird),
    include: fc.oneof(fc.constant([]), fc.array(fc.constantFrom('reasoning.encrypted_content', 'message.output_text.logprobs', 'file_search_call.results'), { minLength: 1, maxLength: 2 }), weird),
    truncation: fc.oneof(fc.constantFrom('disabled', 'auto'), weird),
    reasoning: fc.oneof(fc.record({ effort: fc.constantFrom('none', 'minimal', 'high'), summary: fc.constantFrom('auto', null) }, { requiredKeys: [] }), weird),
    background: fc.oneof(fc.boolean(), weird),
    conversation: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(CONVERSATION, 'conv_nope', '') }, fc.record({ id: fc.constantFrom(CONVERSATION, 'conv_nope') }), weird),
    top_logprobs: fc.oneof(fc.integer({ min: 0, max: 3 }), weird),
    stop: fc.oneof(stopText, fc.array(stopText, { maxLength: 5 }), weird),
    seed: fc.oneof(fc.integer(), weird),
    user: text,
    service_tier: fc.oneof(fc.constantFrom('auto', 'default', 'flex'), weird),
    stream_options: fc.oneof(fc.record({ include_obfuscation: fc.boolean() }), weird),
  };
  /** Parameters this endpoint does not have (chat's names among them), each with a value of any type. */
  const unknownParameters = fc.dictionary(fc.constantFrom('messages', 'max_tokens', 'max_completion_tokens', 'n', 'frequency_penalty', 'response_format', 'modalities', 'constructor', 'toString', 'x'), weird, { minKeys: 1, maxKeys: 2 });
  const validResponsesBody = fc.record(
    {
      model: fc.constant(profile.chatModel),
      input: fc.oneof(text, responsesItems),
      instructions: text,
      max_output_tokens: fc.integer({ min: 16, max: 40 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      stream: fc.boolean(),
      store: fc.boolean(),
      previous_response_id: fc.constant(PREVIOUS_RESPONSE),
      metadata: fc.record({ team: fc.string({ maxLength: 8 }) }),
      text: fc.record({ format: fc.constant({ type: 'text' }), verbosity: fc.constantFrom('low', 'medium', 'high') }, { requiredKeys: [] }),
      stop: fc.array(stopText, { maxLength: 4 }),
      include: fc.constant([]),
      truncation: fc.constant('disabled'),
      reasoning: fc.constant({ effort: 'none' }),
      background: fc.constant(false),
    },
    { requiredKeys: ['model', 'input'] },
  );
  const responsesBody = fc.oneof(
    // Valid requests, to exercise the success paths (JSON and stream, chained and stored).
    { weight: 8, arbitrary: validResponsesBody },
    // Mostly plausible: the required fields present, few optional ones, items of every kind.
    {
      weight: 4,
      arbitrary: fc.record(
        { model: responsesFields.model, input: responsesFields.input, max_output_tokens: responsesFields.max_output_tokens, stream: responsesFields.stream, previous_response_id: responsesFields.previous_response_id, tools: responsesFields.tools },
        { requiredKeys: ['model', 'input'] },
      ),
    },
    // Every field, each maybe absent, maybe the wrong type.
    { weight: 2, arbitrary: fc.record(responsesFields, { requiredKeys: [] }) },
    // A valid body with parameters this endpoint does not have.
    { weight: 1, arbitrary: fc.tuple(validResponsesBody, unknownParameters).map(([body, extra]) => ({ ...body, ...extra })) },
  );

  // ---- Anthropic count_tokens bodies (POST /messages/count_tokens): a messages body without max_tokens

  const countTokensBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          model: fc.constant(profile.chatModel),
          messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { minLength: 1, maxLength: 2 })) }), { minLength: 1, maxLength: 3 }),
          system: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 })),
        },
        { requiredKeys: ['model', 'messages'] },
      ),
    },
    { weight: 3, arbitrary: fc.record(messagesFields, { requiredKeys: ['model', 'messages'] }) },
    { weight: 2, arbitrary: fc.record(messagesFields, { requiredKeys: [] }) },
  );

  // ---- bodies in every encoding

  /** A valid-ish JSON body for the endpoint most of the time; otherwise garbage of every kind. */
  function bodies(plausible: fc.Arbitrary<unknown>): fc.Arbitrary<BodySpec> {
    return fc.oneof(
      { weight: 12, arbitrary: plausible.map((value): BodySpec => ({ kind: 'json', value })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): BodySpec => ({ kind: 'json', value })) },
      {
        weight: 1,
        arbitrary: fc
          .oneof(fc.constantFrom('', ' ', '{', '{"model":', 'nul', '[1,', '{"a":1}}', '\u0000', `{'model':'${profile.chatModel}'}`, '\ufeff{}'), fc.string({ maxLength: 20 }))
          .map((t): BodySpec => ({ kind: 'text', text: t })),
      },
      {
        weight: 1,
        arbitrary: fc
          .oneof(
            // Never valid UTF-8: a lone 0xFF byte, a truncated sequence, an overlong encoding.
            fc.uint8Array({ maxLength: 24 }).map((b) => [0x7b, 0xff, ...b]),
            fc.constantFrom([0x7b, 0x22, 0x6d, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d], [0x7b, 0xe2, 0x82, 0x7d], [0xc0, 0xaf], [0xed, 0xa0, 0x80]),
          )
          .map((bytes): BodySpec => ({ kind: 'bytes', bytes: [...bytes] })),
      },
      { weight: 1, arbitrary: fc.constant<BodySpec>({ kind: 'none' }) },
      { weight: 1, arbitrary: fc.constant<BodySpec>(profile.oversizeBody) },
    );
  }

  // ---- headers

  const contentType = fc.oneof({ weight: 10, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) });
  const extraHeaders = fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), fc.stringMatching(/^[!-~]([ -~]{0,18}[!-~])?$/), { maxKeys: 2 });

  function headersFor(flavour: 'openai' | 'anthropic' | 'any'): fc.Arbitrary<Record<string, string>> {
    const version = fc.constantFrom(...VERSION_VALUES);
    const auth = flavour === 'anthropic'
      ? fc.oneof(
          { weight: 5, arbitrary: fc.record({ 'x-api-key': fc.constantFrom('sk-good', 'sk-chat') }) },
          { weight: 5, arbitrary: fc.record({ authorization: fc.constantFrom('Bearer sk-good', 'Bearer sk-chat') }) },
          { weight: 2, arbitrary: fc.record({ authorization: fc.constantFrom(...AUTHORIZATIONS), 'x-api-key': fc.constantFrom(...API_KEYS) }, { requiredKeys: [] }) },
        )
      : fc.oneof(
          { weight: 8, arbitrary: fc.record({ authorization: fc.constantFrom('Bearer sk-good', 'Bearer sk-chat') }) },
          { weight: 2, arbitrary: fc.record({ authorization: fc.constantFrom(...AUTHORIZATIONS), 'x-api-key': fc.constantFrom(...API_KEYS) }, { requiredKeys: [] }) },
        );
    const versions =
      flavour === 'anthropic'
        ? fc.oneof(
            { weight: 8, arbitrary: fc.record({ 'anthropic-version': fc.constantFrom('2023-06-01', '2026-10-21') }) },
            { weight: 2, arbitrary: fc.record({ 'vendor-version': fc.constantFrom('2023-06-01', '2026-10-21') }) },
            { weight: 2, arbitrary: fc.record({ 'anthropic-version': version, 'vendor-version': version }, { requiredKeys: [] }) },
          )
        : flavour === 'openai'
          ? fc.oneof({ weight: 9, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.record({ 'anthropic-version': version, 'vendor-version': version }, { requiredKeys: [] }) })
          : fc.record({ 'anthropic-version': version, 'vendor-version': version }, { requiredKeys: [] });
    const misc = fc.record(
      {
        'content-type': contentType,
        accept: fc.constantFrom('application/json', 'text/event-stream', '*/*'),
        'x-stainless-retry-count': fc.constantFrom('0', '1', '2'),
        'anthropic-beta': fc.constantFrom('a,b', ''),
      },
      { requiredKeys: [] },
    );
    // A Content-Length that does not match the body only now and then, so most bodies are read in full.
    const contentLength = fc.oneof(
      { weight: 9, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.record({ 'content-length': fc.constantFrom('0', '5', '999999999', 'abc', '-1') }) },
    );
    return fc.tuple(extraHeaders, misc, contentLength, auth, versions).map(([extra, m, length, a, v]) => ({ ...extra, ...m, ...length, ...a, ...v }));
  }

  // ---- paths and URLs

  const endpointPaths = ['/v1/chat/completions', '/v1/embeddings', '/v1/messages', '/v1/models', `/v1/models/${profile.chatModel}`, `/v1/models/${profile.embedModels[0]}`];
  const oddPaths = [
    '/v1/v1/messages', '/v1/messages/count_tokens', '/v1', '/v1/', '/v2/models', '/', '/v1/chat/completions/', '/v1//messages', '/v1/models/',
    '/v1/chat/completions/x', '/v1/messagesx', '/V1/models', '/v1/MODELS', '/v1/models/a/b', '/v1/%6Dodels', '/v1/models/%ZZ', '/v1/models/%E0%A4%A',
    `/v1/models/${profile.chatModel.replace('-', '%2D')}`, '/v1/models/%2F', '/v1/../v1/models', '/v1/./messages', '/v1/models/50%', '/v1/embeddings/', '/v1/v1/models',
  ];
  const segments = ['v1', 'models', 'messages', 'chat', 'completions', 'embeddings', '%2F', '%ZZ', '..', '.', '', profile.chatModel, 'v2', 'count_tokens'];

  const path = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...endpointPaths) },
    { weight: 4, arbitrary: fc.constantFrom(...oddPaths) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map((s) => `/v1/models/${encodeURIComponent(s)}`) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12 }).map((s) => `/v1/models/${s}`) },
    { weight: 1, arbitrary: fc.webPath() },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...segments), { maxLength: 5 }).map((s) => `/${s.join('/')}`) },
  );
  const query = fc.oneof(
    { weight: 6, arbitrary: fc.constant('') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '?limit=1', `?after_id=${profile.chatModel}`, `?before_id=${profile.embedModels[0]}`, '?limit=abc', '?limit=0', '?beta=true', '?after_id=nope', `?limit=2&after_id=${profile.chatModel}`, '?limit=1001', '?before_id=',
      ),
    },
    { weight: 1, arbitrary: fc.webQueryParameters().map((q) => `?${q}`) },
  );
  const origin = fc.oneof({ weight: 8, arbitrary: fc.constant(profile.origin) }, { weight: 1, arbitrary: fc.constantFrom(...profile.otherOrigins) });
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('GET', 'POST') },
    { weight: 3, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'post', 'get', 'options') },
    { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty') },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z]{1,8}$/).filter((m) => !FORBIDDEN_METHODS.has(m.toUpperCase())) },
  );
  const gatewayName = fc.constantFrom(...profile.gateways);

  /** Requests aimed at a real endpoint with the right method: mostly plausible, often subtly wrong. */
  const coherentRequest: fc.Arbitrary<RequestSpec> = fc.oneof(
    fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: query.map((q) => `${profile.origin}/v1/chat/completions${q}`), headers: headersFor('openai'), body: bodies(chatBody) }),
    fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: query.map((q) => `${profile.origin}/v1/embeddings${q}`), headers: headersFor('openai'), body: bodies(embeddingsBody) }),
    fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: query.map((q) => `${profile.origin}/v1/messages${q}`), headers: headersFor('anthropic'), body: bodies(messagesBody) }),
    fc.record({
      gateway: gatewayName,
      method: fc.constant('GET'),
      url: fc.tuple(fc.constantFrom('/v1/models', '/v1/models/', ...profile.modelIds.map((id) => `/v1/models/${id}`), '/v1/models/nope'), query).map(([p, q]) => `${profile.origin}${p}${q}`),
      headers: fc.oneof(headersFor('openai'), headersFor('anthropic')),
      body: fc.constant<BodySpec>({ kind: 'none' }),
    }),
  );

  /** Anything at all: any method, any path, any headers, any body. */
  const chaosRequest: fc.Arbitrary<RequestSpec> = fc.record({
    gateway: gatewayName,
    method,
    url: fc.tuple(origin, path, query).map(([o, p, q]) => `${o}${p}${q}`),
    headers: headersFor('any'),
    body: bodies(fc.oneof(chatBody, messagesBody, embeddingsBody)),
  });

  /** Bodies no generator above writes: a parameter named `__proto__` (an own key once parsed), numbers past 2^53. */
  const oddResponsesBodies = fc.constantFrom<BodySpec>(
    { kind: 'text', text: `{"model":"${profile.chatModel}","input":"hi","__proto__":{"stream":true}}` },
    { kind: 'text', text: `{"model":"${profile.chatModel}","input":[{"role":"user","content":"hi","__proto__":{"type":"reasoning"}}]}` },
    { kind: 'text', text: `{"model":"${profile.chatModel}","input":"hi","max_output_tokens":1e400}` },
    { kind: 'text', text: `{"model":"${profile.chatModel}","input":"hi","max_output_tokens":123456789012345678901234567890}` },
    { kind: 'text', text: `{"model":"${profile.chatModel}","input":"hi","input":[]}` },
    { kind: 'padded', value: { model: profile.chatModel, input: 'hi' }, bytes: 2048 },
  );

  /** `POST /responses`: mostly plausible bodies, often subtly wrong, and garbage. */
  const responsesRequest: fc.Arbitrary<RequestSpec> = fc.record({
    gateway: gatewayName,
    method: fc.constant('POST'),
    url: fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constant('/v1/responses') }, { weight: 1, arbitrary: fc.constant('/v1/responses/') }), query).map(([p, q]) => `${profile.origin}${p}${q}`),
    headers: headersFor('openai'),
    body: fc.oneof({ weight: 12, arbitrary: bodies(responsesBody) }, { weight: 1, arbitrary: oddResponsesBodies }),
  });

  /** `POST /messages/count_tokens`, in the Anthropic flavour. */
  const countTokensRequest: fc.Arbitrary<RequestSpec> = fc.record({
    gateway: gatewayName,
    method: fc.constant('POST'),
    url: query.map((q) => `${profile.origin}/v1/messages/count_tokens${q}`),
    headers: headersFor('anthropic'),
    body: bodies(countTokensBody),
  });

  /** Anything at all under `/responses` and `/messages/count_tokens`: any method, sub-path (stored ids, cancel, input_items) and body. */
  const responsesChaosRequest: fc.Arbitrary<RequestSpec> = fc.record({
    gateway: gatewayName,
    method,
    url: fc
      .tuple(
        origin,
        fc.oneof(
          { weight: 2, arbitrary: fc.constantFrom('', '/input_items', '/cancel', '/input_items/x').map((rest) => `/v1/responses/${PREVIOUS_RESPONSE}${rest}`) },
          fc.constantFrom(
            '/v1/responses', '/v1/responses/', '/v1/messages/count_tokens', '/v1/messages/count_tokens/', '/v1/responses/resp_nope', '/v1/responses/resp_nope/input_items',
            '/v1/responses/resp_nope/cancel', '/v1/responses/resp_nope/x', '/v1/responses/%ZZ', '/v1/responses//input_items', '/v1/responses/constructor', '/v1/responses/__proto__/input_items',
          ),
          fc.string({ maxLength: 12 }).map((s) => `/v1/responses/${encodeURIComponent(s)}`),
          fc.array(fc.constantFrom('responses', 'input_items', 'cancel', 'count_tokens', 'messages', '%2F', '..', ''), { maxLength: 3 }).map((s) => `/v1/responses/${s.join('/')}`),
        ),
        fc.oneof(query, fc.constantFrom('?order=asc', '?order=up', '?limit=0', '?limit=101', '?limit=2.5', '?after=msg_x&limit=1')),
      )
      .map(([o, p, q]) => `${o}${p}${q}`),
    headers: headersFor('any'),
    body: bodies(fc.oneof(responsesBody, countTokensBody, chatBody)),
  });

  // ---- OpenAI Conversations (/conversations and its items) and POST /responses/input_tokens

  const conversationFields = {
    items: fc.oneof({ weight: 4, arbitrary: responsesItems }, { weight: 1, arbitrary: responsesInput }, { weight: 1, arbitrary: fc.array(fc.record({ type: fc.constant('item_reference'), id: fc.constantFrom(CONVERSATION_ITEM, PREVIOUS_ITEM, 'msg_nope') }), { maxLength: 2 }) }),
    metadata: responsesFields.metadata,
  };
  const conversationBody = fc.oneof(
    { weight: 4, arbitrary: fc.record(conversationFields, { requiredKeys: [] }) },
    // An update's body: the metadata alone; an items create's: the items alone.
    { weight: 2, arbitrary: fc.record({ metadata: fc.record({ team: fc.string({ maxLength: 8 }) }) }) },
    { weight: 2, arbitrary: fc.record({ items: responsesItems }) },
    { weight: 1, arbitrary: fc.tuple(fc.record(conversationFields, { requiredKeys: [] }), unknownParameters).map(([body, extra]) => ({ ...body, ...extra })) },
  );
  /** A /responses body continuing the held conversation (or trying to, alongside previous_response_id). */
  const conversationResponsesBody = fc
    .tuple(validResponsesBody, fc.constantFrom<unknown>(CONVERSATION, { id: CONVERSATION }, 'conv_nope'), fc.boolean())
    .map(([body, conversation, chained]) => {
      const { previous_response_id: previous, ...rest } = body;
      return { ...rest, conversation, ...(chained ? { previous_response_id: previous ?? PREVIOUS_RESPONSE } : {}) };
    });
  const conversationQuery = fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    fc.constantFrom('?order=asc', '?order=desc', '?order=up', '?limit=1', '?limit=0', '?limit=101', '?limit=2.5', `?after=${CONVERSATION_ITEM}&limit=1`, '?after=msg_nope', '?include=message.output_text.logprobs', '?include=nope', '?include[]=message.input_image.image_url'),
  );
  const conversationPath = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(`/v1/conversations/${CONVERSATION}`, `/v1/conversations/${CONVERSATION}/items`, `/v1/conversations/${CONVERSATION}/items/${CONVERSATION_ITEM}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '/v1/conversations', '/v1/conversations/', '/v1/conversations/conv_nope', `/v1/conversations/${CONVERSATION}/`, `/v1/conversations/${CONVERSATION}/items/msg_nope`, `/v1/conversations/${CONVERSATION}/items/${CONVERSATION_ITEM}/x`,
        `/v1/conversations/${CONVERSATION}/x`, '/v1/conversations/%ZZ', '/v1/conversations/__proto__/items', '/v1/conversations//items', '/v1/responses/input_tokens/', '/v1/responses/input_tokens/x',
      ),
    },
    { weight: 1, arbitrary: fc.array(fc.constantFrom('conversations', 'items', CONVERSATION, CONVERSATION_ITEM, 'input_tokens', '%2F', '..', ''), { maxLength: 4 }).map((s) => `/v1/conversations/${s.join('/')}`) },
  );
  const at = (path: fc.Arbitrary<string>, query: fc.Arbitrary<string>) => fc.tuple(origin, path, query).map(([o, p, q]) => `${o}${p}${q}`);
  /**
   * The Conversations API and `POST /responses/input_tokens`: conversations created, read, changed
   * and deleted, items added, listed (orders, pages, include), read and deleted, responses in a
   * conversation, counts; and anything at all under `/conversations` (methods, ids, sub-paths, bodies).
   */
  const conversationsRequest: fc.Arbitrary<RequestSpec> = fc.oneof(
    { weight: 3, arbitrary: fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: at(fc.constant('/v1/conversations'), fc.constant('')), headers: headersFor('openai'), body: bodies(conversationBody) }) },
    { weight: 3, arbitrary: fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: at(fc.constant('/v1/responses'), fc.constant('')), headers: headersFor('openai'), body: bodies(conversationResponsesBody) }) },
    {
      weight: 3,
      arbitrary: fc.record({ gateway: gatewayName, method: fc.constant('POST'), url: at(fc.constant('/v1/responses/input_tokens'), fc.constant('')), headers: headersFor('openai'), body: bodies(fc.oneof(responsesBody, conversationResponsesBody)) }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        gateway: gatewayName,
        method: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('GET', 'POST') }, { weight: 1, arbitrary: fc.constant('DELETE') }),
        url: at(conversationPath, conversationQuery),
        headers: headersFor('openai'),
        body: bodies(conversationBody),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        gateway: gatewayName,
        method: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'constructor'),
        url: at(conversationPath, conversationQuery),
        headers: headersFor('any'),
        body: bodies(fc.oneof(conversationBody, conversationResponsesBody, responsesBody)),
      }),
    },
  );

  return {
    weird,
    text,
    stopText,
    maxTokens,
    chatBody,
    messagesBody,
    embeddingsBody,
    responsesBody,
    countTokensBody,
    bodies,
    headersFor,
    coherentRequest,
    chaosRequest,
    responsesRequest,
    countTokensRequest,
    responsesChaosRequest,
    conversationsRequest,
  };
}

const VERSION_VALUES = ['2023-06-01', '2026-10-21', '2023-01-01', '1999-01-01', '', 'latest', '2023-06-01, 2023-06-01', ' 2026-10-21 '];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/vnd.x+json', 'text/plain', 'application/x-www-form-urlencoded', '', 'multipart/form-data; boundary=x', 'application/jsonl', 'application/json-seq'];
const AUTHORIZATIONS = ['Bearer sk-good', 'Bearer sk-chat', 'Bearer wrong', 'bearer sk-good', 'Basic c2stZ29vZA==', 'Bearer', 'sk-good', 'Bearer  sk-good  ', 'Bearer sk-good sk-chat'];
const API_KEYS = ['sk-good', 'sk-chat', 'wrong', ''];

// ---- oracles (independent of the gateway's own routing code)

/** The flavour a request must be answered in: `/messages` is Anthropic's, else a version header decides. */
export function expectedFlavour(rel: string | null, headers: Headers): 'openai' | 'anthropic' {
  if (rel !== null && (rel === '/messages' || rel.startsWith('/messages/') || rel.startsWith('/v1/messages'))) return 'anthropic';
  return headers.has('anthropic-version') || headers.has('vendor-version') ? 'anthropic' : 'openai';
}

export type Endpoint = 'chat' | 'embeddings' | 'messages' | 'count_tokens' | 'responses' | 'input_tokens' | 'models' | 'model';

/** Which endpoint a path after the base names with this method, or null for none. */
export function endpointOf(rel: string | null, method: string): Endpoint | null {
  if (rel === null) return null;
  const is = (p: string) => rel === p || rel === `${p}/`;
  if (method === 'POST' && is('/chat/completions')) return 'chat';
  if (method === 'POST' && is('/embeddings')) return 'embeddings';
  if (method === 'POST' && is('/messages')) return 'messages';
  if (method === 'POST' && is('/messages/count_tokens')) return 'count_tokens';
  if (method === 'POST' && is('/responses')) return 'responses';
  if (method === 'POST' && is('/responses/input_tokens')) return 'input_tokens';
  if (method === 'GET' && is('/models')) return 'models';
  if (method === 'GET' && rel.startsWith('/models/')) return 'model';
  return null;
}

export function stopsOf(value: unknown): string[] {
  if (typeof value === 'string') return value ? [value] : [];
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string' && s.length > 0) : [];
}
