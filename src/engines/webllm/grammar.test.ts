// Structured output and tools on web-llm models. web-llm's MLCEngine is played by a TEST DOUBLE
// (test/support/webllm-double.ts; the real one needs WebGPU and a compiled model library), which
// matches its scripted output against the grammar each request carries, character by character
// with xgrammar, as web-llm's matcher does token by token: a script outside the grammar fails.
import type { Grammar, Testings } from '@mlc-ai/web-xgrammar';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent, ChatRequest, ToolSpec } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { toolInstructions } from '../../core/tool-syntax.ts';
import { createHarness, type Harness } from '../../../test/support/harness.ts';
import { replyScript, TestDoubleMLCEngine, type WebLLMScript } from '../../../test/support/webllm-double.ts';
import { WEATHER } from '../../../test/support/tool-schemas.ts';
import { grammarSpecOf, toEbnf } from '../grammar/ebnf.ts';
import { loadXGrammar } from '../grammar/load-xgrammar.node.ts';
import type { XGrammar } from '../grammar/xgrammar.ts';
import { createModelHost } from '../hosting/model-host.ts';
import type { WebLLMModelSpec } from '../catalog/webllm-model-spec.ts';
import { createWebLLMAdapter } from './webllm-adapter.ts';

const QWEN: WebLLMModelSpec = {
  info: { id: 'qwen', kind: 'chat', engine: 'webllm', contextWindow: 4096, maxOutputTokens: 1024 },
  variants: { f32: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC' },
};

const TIME = {
  type: 'object',
  properties: { zone: { type: 'string', enum: ['UTC', 'CET', 'PST'] } },
  required: ['zone'],
  additionalProperties: false,
};
const TOOLS: ToolSpec[] = [
  { name: 'get_weather', description: 'The forecast for a city.', parameters: WEATHER },
  { name: 'get_time', parameters: TIME },
];
const QUESTION = 'What is the weather in Paris?';

/** Calls as the grammar writes them (and as the tool instructions show them). */
const WEATHER_ARGS = '{"city": "Paris", "unit": "celsius", "days": 3}';
const WEATHER_CALL = `<tool_call>\n{"name": "get_weather", "arguments": ${WEATHER_ARGS}}\n</tool_call>`;
const TIME_CALL = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>';
/** The weather call as a model's tokens, split inside the name and the arguments. */
const WEATHER_TOKENS = ['<tool_call>\n{"na', 'me": "get_', 'weather", "arguments": {"city', '": "Paris", "unit": "celsius', '", "days": 3}}\n</tool', '_call>'];

let xgrammar: XGrammar;
let full: { Grammar: typeof Grammar; Testings: typeof Testings };
beforeAll(async () => {
  xgrammar = await loadXGrammar();
  full = xgrammar as unknown as typeof full;
});

/** Whether the grammar accepts the whole of `text` (xgrammar's own check, no tokenizer). */
async function accepts(ebnf: string, text: string): Promise<boolean> {
  const grammar = await full.Grammar.fromEBNF(ebnf, 'root');
  try {
    return await full.Testings.isGrammarAcceptString(grammar, text);
  } finally {
    grammar.dispose();
  }
}

function setup(options: { grammar?: boolean } = {}) {
  const engines: TestDoubleMLCEngine[] = [];
  const answers: WebLLMScript[] = [];
  const adapter = createWebLLMAdapter({
    models: [QWEN],
    gpu: async () => ({ hasShaderF16: false }),
    createEngine: (engineOptions) => {
      const engine = new TestDoubleMLCEngine(engineOptions, { grammar: xgrammar, answer: () => answers.shift() ?? replyScript(['Hi']) });
      engines.push(engine);
      return engine;
    },
    ...(options.grammar === false ? {} : { grammar: loadXGrammar }),
  });
  const sent = () => {
    const request = engines[0]!.requests.at(-1)!;
    return { request, grammar: request.response_format?.grammar };
  };
  return { adapter, engines, answers, sent };
}

const request = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'qwen',
  messages: [{ role: 'user', content: QUESTION }],
  maxTokens: 64,
  stop: [],
  ...over,
});

async function collect(events: AsyncIterable<ChatEvent>): Promise<string> {
  let text = '';
  for await (const event of events) if (event.type === 'token') text += event.text;
  return text;
}

const signal = () => new AbortController().signal;

/** The EBNF the transformers.js engine compiles for the same request. */
async function transformersEbnf(chat: ChatRequest): Promise<string> {
  return (await toEbnf(xgrammar, grammarSpecOf(chat)!)).ebnf;
}

/** What web-llm must be given: the same EBNF. */
const expected = transformersEbnf;

describe('the grammar web-llm is given', () => {
  it("keeps control characters out of strings with length bounds in the grammar itself (web-llm has no byte gate)", async () => {
    const chat = request({ output: { kind: 'json_schema', schema: WEATHER, strict: true } });
    const shared = await transformersEbnf(chat);
    // xgrammar's own class for such strings, before the rewrite, lets a tab in.
    const raw = shared.replaceAll(String.raw`[^\0-\x1f"\\]`, String.raw`[^"\\\r\n]`);
    expect(raw).not.toBe(shared);
    const tab = '{"city":"Pa\tris","unit":"celsius","days":3}';
    expect(await accepts(raw, tab)).toBe(true);
    expect(await accepts(shared, tab)).toBe(false);
    expect(await accepts(shared, '{"city":"Paris","unit":"celsius","days":3}')).toBe(true);
  });

  it('json_schema: the same EBNF as on transformers.js, compact JSON matching the schema only; messages as they are', async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript(['{"city":"Paris",', '"unit":"celsius","days":3}']));
    const chat = request({ output: { kind: 'json_schema', schema: WEATHER, strict: true } });
    expect(await collect(adapter.chat(chat, { signal: signal() }))).toBe('{"city":"Paris","unit":"celsius","days":3}');
    const { request: body, grammar } = sent();
    expect(body.response_format).toEqual({ type: 'grammar', grammar: await expected(chat) });
    expect(body.messages).toEqual([{ role: 'user', content: QUESTION }]);
    expect(body.stop).toBeUndefined();
    expect(await accepts(grammar!, '{"city":"Lyon","unit":"fahrenheit","days":7}')).toBe(true);
    for (const wrong of ['{"city":"Paris","unit":"celsius","days":9}', '{"city":"Paris","unit":"kelvin","days":3}', '{"city":"Paris","days":3}', '{"city": "Paris", "unit": "celsius", "days": 3}', '{"city":"Pa\u0001ris","unit":"celsius","days":3}', 'Sunny']) {
      expect(await accepts(grammar!, wrong), wrong).toBe(false);
    }
  });

  it('json_object: any object, and nothing else', async () => {
    const { adapter, answers, sent } = setup();
    // xgrammar's rules for values of any kind put ", " between items.
    answers.push(replyScript(['{"a":', '[1, true], "b":null}']));
    const chat = request({ output: { kind: 'json_object' } });
    await collect(adapter.chat(chat, { signal: signal() }));
    expect(sent().grammar).toBe(await expected(chat));
    expect(await accepts(sent().grammar!, '[1]')).toBe(false);
  });

  it("tool_choice 'required': calls only, of the given tools with arguments by their schemas; the tools are in the system prompt", async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript(WEATHER_TOKENS));
    const chat = request({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: QUESTION }], tools: TOOLS, toolChoice: 'required' });
    expect(await collect(adapter.chat(chat, { signal: signal() }))).toBe(WEATHER_CALL);
    const { request: body, grammar } = sent();
    expect(grammar).toBe(await expected(chat));
    // The prompt shows exactly the format the grammar enforces (web-llm's templates have none).
    expect(body.messages).toEqual([
      { role: 'system', content: `Be brief.\n\n${toolInstructions(TOOLS)}` },
      { role: 'user', content: QUESTION },
    ]);
    expect(await accepts(grammar!, WEATHER_CALL)).toBe(true);
    expect(await accepts(grammar!, `${WEATHER_CALL}\n${TIME_CALL}`)).toBe(true);
    for (const wrong of ['Sunny in Paris.', WEATHER_CALL.replace('get_weather', 'get_forecast'), WEATHER_CALL.replace('celsius', 'kelvin'), WEATHER_CALL.replace('"days": 3', '"days": 30'), `${WEATHER_CALL}\nSunny.`]) {
      expect(await accepts(grammar!, wrong), wrong).toBe(false);
    }
  });

  it('a named tool without parallel calls: one call, of that tool', async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript([TIME_CALL]));
    await collect(adapter.chat(request({ tools: TOOLS, toolChoice: { name: 'get_time' }, parallelToolCalls: false }), { signal: signal() }));
    const { grammar } = sent();
    expect(await accepts(grammar!, TIME_CALL)).toBe(true);
    expect(await accepts(grammar!, WEATHER_CALL)).toBe(false);
    expect(await accepts(grammar!, `${TIME_CALL}\n${TIME_CALL}`)).toBe(false);
  });

  it("tool_choice 'auto': a text reply or calls; text never opens like a call", async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript(['Let me', ' check.']));
    expect(await collect(adapter.chat(request({ tools: TOOLS }), { signal: signal() }))).toBe('Let me check.');
    const { grammar } = sent();
    expect(await accepts(grammar!, 'Sunny.\nWarm.')).toBe(true);
    expect(await accepts(grammar!, WEATHER_CALL)).toBe(true);
    expect(await accepts(grammar!, '<tool_call>\n{"name": "get_forecast", "arguments": {}}\n</tool_call>')).toBe(false);
  });

  it("tool_choice 'none': the tools stay in the prompt, and the grammar keeps the reply text (no call)", async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript(['Sunny.']));
    const chat = request({ tools: TOOLS, toolChoice: 'none' });
    await collect(adapter.chat(chat, { signal: signal() }));
    const { request: body, grammar } = sent();
    expect(grammar).toBe(await expected(chat));
    expect(body.messages[0]).toEqual({ role: 'system', content: toolInstructions(TOOLS) });
    expect(await accepts(grammar!, 'Sunny in <b>Paris</b>.')).toBe(true);
    expect(await accepts(grammar!, WEATHER_CALL)).toBe(false);
  });

  it('no output and no tools: no response format', async () => {
    const { adapter, sent } = setup();
    await collect(adapter.chat(request(), { signal: signal() }));
    expect(sent().request).not.toHaveProperty('response_format');
  });

  it('earlier calls as text in the assistant turn and their results as a user turn, so the conversation still ends with the user', async () => {
    const { adapter, answers, sent } = setup();
    answers.push(replyScript(['Sunny', ', 3 days.']));
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius","days":3}' }, { id: 'call_2', name: 'get_time', arguments: '{"zone":"UTC"}' }] },
      { role: 'tool', content: '{"forecast":"sunny"}', toolCallId: 'call_1', toolName: 'get_weather' },
      { role: 'tool', content: '12:00', toolCallId: 'call_2', toolName: 'get_time' },
    ];
    await collect(adapter.chat(request({ messages, tools: TOOLS }), { signal: signal() }));
    expect(sent().request.messages).toEqual([
      { role: 'system', content: toolInstructions(TOOLS) },
      { role: 'user', content: QUESTION },
      { role: 'assistant', content: `${WEATHER_CALL}\n${TIME_CALL}` },
      { role: 'user', content: '<tool_response>\n{"forecast":"sunny"}\n</tool_response>\n<tool_response>\n12:00\n</tool_response>' },
    ]);
  });

  it('reuses the grammar built for the same tools and schema', async () => {
    const { adapter, answers, engines } = setup();
    const chat = request({ tools: TOOLS, toolChoice: 'required' });
    answers.push(replyScript(WEATHER_TOKENS), replyScript([TIME_CALL]));
    await collect(adapter.chat(chat, { signal: signal() }));
    await collect(adapter.chat({ ...chat, tools: [{ ...TOOLS[0]!, description: 'Changed.' }, TOOLS[1]!] }, { signal: signal() }));
    const [first, second] = engines[0]!.requests;
    expect(second!.response_format!.grammar).toBe(first!.response_format!.grammar);
    expect(second!.messages[0]!.content).toContain('Changed.');
  });
});

describe('what cannot be enforced', () => {
  it('without a grammar engine, output and tools are a 400 before the model is loaded', async () => {
    const { adapter, engines } = setup({ grammar: false });
    const output = await collect(adapter.chat(request({ output: { kind: 'json_object' } }), { signal: signal() })).catch((e: unknown) => e);
    expect(output).toBeInstanceOf(GatewayError);
    expect(output).toMatchObject({ code: 'invalid_request', param: 'response_format' });
    const tools = await collect(adapter.chat(request({ tools: TOOLS }), { signal: signal() })).catch((e: unknown) => e);
    expect(tools).toMatchObject({ code: 'invalid_request', param: 'tools' });
    expect(engines).toHaveLength(0);
  });

  it("a grammar web-llm cannot compile (its GrammarMatcherInitError) is a 400, as on transformers.js", async () => {
    const { adapter, answers } = setup();
    const cause = Object.assign(new Error('Failed to initialize the grammar matcher for response format `grammar`: bad'), { name: 'GrammarMatcherInitError' });
    answers.push({ steps: [], finish: 'stop', promptTokens: 5, prefillError: cause });
    const error = await collect(adapter.chat(request({ tools: TOOLS }), { signal: signal() })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'tools' });
    expect((error as Error).message).toContain('cannot be enforced');
  });

  it('the double, like web-llm, fails a generation whose tokens leave the grammar', async () => {
    const { adapter, answers } = setup();
    answers.push(replyScript(['Sunny', '.']));
    const error = await collect(adapter.chat(request({ tools: TOOLS, toolChoice: 'required' }), { signal: signal() })).catch((e: unknown) => e);
    expect(String((error as GatewayError).cause ?? error)).toContain('Grammar matcher rejected the newly sampled token');
  });
});

describe('through the gateway, with the official clients', () => {
  let harness: Harness;
  afterEach(() => harness.close());
  const start = () => {
    const fixture = setup();
    harness = createHarness('fetch option', { engine: createModelHost({ adapters: [fixture.adapter] }) });
    return fixture;
  };
  const openaiTools = TOOLS.map(({ name, description, parameters }) => ({ type: 'function' as const, function: { name, ...(description ? { description } : {}), parameters } }));

  it('OpenAI: the scripted call comes back as tool_calls, whole and streamed, with finish_reason tool_calls', async () => {
    const { answers, sent } = start();
    answers.push(replyScript(WEATHER_TOKENS), replyScript(WEATHER_TOKENS));
    const body = { model: 'qwen', messages: [{ role: 'user' as const, content: QUESTION }], tools: openaiTools, tool_choice: 'required' as const };
    const whole = await harness.openai().chat.completions.create(body);
    const { message, finish_reason } = whole.choices[0]!;
    expect(finish_reason).toBe('tool_calls');
    expect(message.content).toBeNull();
    expect(message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'get_weather', arguments: WEATHER_ARGS } }]);
    expect(sent().grammar).toBe(await expected(request({ tools: TOOLS, toolChoice: 'required' })));
    const final = await harness.openai().chat.completions.stream(body).finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    expect(final.choices[0]!.message.tool_calls!.map((c) => (c.type === 'function' ? [c.function.name, c.function.arguments] : []))).toEqual([['get_weather', WEATHER_ARGS]]);
  });

  it('OpenAI: response_format json_schema gives the scripted JSON as content', async () => {
    const { answers, sent } = start();
    answers.push(replyScript(['{"city":"Paris",', '"unit":"celsius","days":3}']));
    const completion = await harness.openai().chat.completions.create({
      model: 'qwen',
      messages: [{ role: 'user', content: QUESTION }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: WEATHER, strict: true } },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: 'Paris', unit: 'celsius', days: 3 });
    // The schema as the gateway hands it on (its integer range as a list of values).
    expect(await accepts(sent().grammar!, '{"city":"Lyon","unit":"fahrenheit","days":7}')).toBe(true);
    expect(await accepts(sent().grammar!, '{"city":"Lyon","unit":"fahrenheit","days":8}')).toBe(false);
  });

  it('Anthropic: the scripted call comes back as a tool_use block, stop_reason tool_use', async () => {
    const { answers } = start();
    answers.push(replyScript(WEATHER_TOKENS));
    const message = await harness.anthropic().messages.create({
      model: 'qwen',
      max_tokens: 64,
      messages: [{ role: 'user', content: QUESTION }],
      tools: TOOLS.map(({ name, description, parameters }) => ({ name, ...(description ? { description } : {}), input_schema: parameters as { type: 'object' } })),
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: { city: 'Paris', unit: 'celsius', days: 3 } }]);
  });
});
