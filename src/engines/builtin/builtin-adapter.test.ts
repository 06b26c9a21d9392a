/**
 * The built-in model adapter against the Prompt API TEST DOUBLE (test/support/language-model-double.ts,
 * written from the IDL: the real API runs in no browser or runtime here), over the real port
 * between the host page and the engine worker, behind the model host and the gateway, driven by
 * the official SDKs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createModelHost } from '../hosting/model-host.ts';
import { builtinModels } from '../catalog/catalog.ts';
import { connectBuiltinModel, serveBuiltinModel } from '../../rpc/builtin-model-link.ts';
import type { LoadProgress } from '../../contracts/model-progress.ts';
import { createHarness } from '../../../test/support/harness.ts';
import { ScriptedAdapter } from '../../../test/support/scripted-adapter.ts';
import { createLanguageModelDouble, type LanguageModelDoubleConfig } from '../../../test/support/language-model-double.ts';
import { createBuiltinAdapter } from './builtin-adapter.ts';
import { createPromptApiBackend, NO_PROMPT_API } from './prompt-api-backend.ts';
import type { LanguageModelStatic } from './prompt-api.ts';

const MODEL = 'browser-builtin';
const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** The double behind the page's backend, the port, and the adapter in a model host behind the gateway. */
function setup(config: LanguageModelDoubleConfig | 'absent' = {}, { fallback = false } = {}) {
  const double = createLanguageModelDouble(config === 'absent' ? {} : config);
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  serveBuiltinModel(port1, createPromptApiBackend(() => (config === 'absent' ? undefined : (double.LanguageModel as unknown as LanguageModelStatic))));
  const progress: LoadProgress[] = [];
  const models = builtinModels.map((info) => (fallback ? { ...info, fallback: 'scripted-chat' } : info));
  const host = createModelHost({ adapters: [createBuiltinAdapter({ models, backend: connectBuiltinModel(port2) }), new ScriptedAdapter()], onProgress: (p) => progress.push(p) });
  const harness = createHarness('fetch option', { engine: host });
  return { double, host, harness, progress };
}

const localOf = async (harness: ReturnType<typeof setup>['harness']) => {
  const list = (await (await harness.fetch('https://llm.test/v1/models')).json()) as { data: { id: string; local?: Record<string, unknown> }[] };
  return list.data.find((m) => m.id === MODEL)?.local;
};

describe('the built-in model (Prompt API, against a test double)', () => {
  it('is listed as available, downloadable or unavailable with the reason, as LanguageModel.availability() says', async () => {
    expect(await localOf(setup({ availability: 'available' }).harness)).toMatchObject({ runnable: true, downloaded: true, requires: ['prompt-api'] });
    expect(await localOf(setup({ availability: 'downloadable' }).harness)).toMatchObject({ runnable: true, downloaded: false, backend_reason: expect.stringContaining('downloads it on first use') });
    expect(await localOf(setup({ availability: 'downloading' }).harness)).toMatchObject({ runnable: true, downloaded: false, backend_reason: expect.stringContaining('is downloading it') });
    expect(await localOf(setup({ availability: 'unavailable' }).harness)).toMatchObject({ runnable: false, reason: expect.stringContaining('"unavailable"') });
    expect(await localOf(setup('absent').harness)).toMatchObject({ runnable: false, reason: NO_PROMPT_API });
  });

  it('answers a chat: the conversation as initialPrompts, the last turn as input, usage from measureInputUsage, the session destroyed', async () => {
    const { harness, double } = setup();
    const completion = await harness.openai().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('You said: hello there');
    const session = double.sessions.at(-1)!;
    expect(session.options.initialPrompts).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'ok' },
    ]);
    expect(session.prompts[0]!.input).toBe('hello there');
    // The double counts a quarter of the characters plus 4 a message: the initial prompts, then the input.
    expect(completion.usage!.prompt_tokens).toBe(3 + 4 + 2 + 4 + 1 + 4 + (3 + 4));
    expect(completion.usage!.completion_tokens).toBe(4); // the pieces streamed: 'You ', 'said: ', 'hello ', 'there'
    expect(session.destroyed).toBe(true);
  });

  it('continues an assistant prefill: the last turns as input, the prefill marked as a prefix', async () => {
    const { harness, double } = setup({ reply: () => 'You said: go on' });
    const message = await harness.anthropic().messages.create({ model: MODEL, max_tokens: 20, messages: [{ role: 'user', content: 'go on' }, { role: 'assistant', content: 'You said:' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: ' go on' })]);
    expect(double.sessions.at(-1)!.prompts[0]!.input).toEqual([
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: 'You said:', prefix: true },
    ]);
  });

  it('streams an Anthropic answer piece by piece, and cuts at a stop sequence as the gateway does', async () => {
    const { harness } = setup({ reply: () => 'one two three four five' });
    const stream = harness.anthropic().messages.stream({ model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'count' }], stop_sequences: ['four'] });
    const deltas: string[] = [];
    stream.on('text', (text) => deltas.push(text));
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'one two three ', citations: null }].map(({ citations: _, ...b }) => expect.objectContaining(b)));
    expect(message.stop_reason).toBe('stop_sequence');
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('serves a JSON schema with responseConstraint', async () => {
    const { harness, double } = setup();
    const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'integer' } }, required: ['city', 'temp'], additionalProperties: false };
    const completion = await harness.openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'w', schema, strict: true } },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: 'Paris', temp: 21 });
    expect(double.sessions.at(-1)!.prompts[0]!.responseConstraint).toEqual(schema);
  });

  it('calls a tool: the answer constrained by a schema built from the tools, given back as tool calls', async () => {
    const { harness, double } = setup();
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const completion = await harness.openai().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters } }],
      tool_choice: 'auto',
    });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && [call.function.name, JSON.parse(call.function.arguments)]).toEqual(['get_weather', { city: 'Paris' }]);
    const constraint = double.sessions.at(-1)!.prompts[0]!.responseConstraint as { anyOf: unknown[] };
    expect(constraint.anyOf).toHaveLength(2);
    expect(String((double.sessions.at(-1)!.options.initialPrompts as { content: string }[])[0]!.content)).toContain('get_weather');
  });

  it('calls the one tool named by tool_choice: no reply in words is allowed', async () => {
    const { harness, double } = setup();
    const input_schema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };
    const message = await harness.anthropic().messages.create({
      model: MODEL,
      max_tokens: 60,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ name: 'get_time', input_schema: { type: 'object', properties: {} } }, { name: 'get_weather', input_schema }],
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);
    const constraint = double.sessions.at(-1)!.prompts[0]!.responseConstraint as { properties: { tool_calls: { items: { properties: { name: unknown } } } } };
    expect(constraint.properties.tool_calls.items.properties.name).toEqual({ type: 'string', enum: ['get_weather'] });
  });

  it('streams a tool call as the browser streams its JSON: the name first, then the arguments in fragments', async () => {
    const { harness } = setup();
    const input_schema = { type: 'object' as const, properties: { city: { type: 'string' }, country: { type: 'string' } }, required: ['city', 'country'] };
    const stream = harness.anthropic().messages.stream({ model: MODEL, max_tokens: 60, messages: [{ role: 'user', content: 'Weather?' }], tools: [{ name: 'get_weather', input_schema }], tool_choice: { type: 'any' } });
    let partials = 0;
    stream.on('inputJson', () => partials++);
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris', country: 'Paris' } })]);
    expect(partials).toBeGreaterThan(2);
    // Each piece the browser streamed is one output token, the tool answer's too.
    expect(message.usage.output_tokens).toBe(Math.ceil(JSON.stringify({ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris', country: 'Paris' } }] }).length / 6));
  });

  it('sends the tool result back as a user turn and answers in words with tool_choice none', async () => {
    const { harness, double } = setup({ reply: () => 'Sunny.' });
    const completion = await harness.openai().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '21 degrees' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'none',
    });
    expect(completion.choices[0]!.message.content).toBe('Sunny.');
    const session = double.sessions.at(-1)!;
    expect(session.options.initialPrompts).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: '{"tool_calls":[{"name":"get_weather","arguments":{"city":"Paris"}}]}' },
    ]);
    expect(session.prompts[0]!.input).toEqual(expect.stringContaining('21 degrees'));
  });

  it('answers a prompt over the inputQuota with a 400, and maps QuotaExceededError from the API', async () => {
    const { harness } = setup({ inputQuota: 40 });
    const long = 'word '.repeat(100);
    await expect(harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: long }] })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    // Too long already in the initial prompts: create() rejects with QuotaExceededError.
    await expect(
      harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'system', content: long }, { role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', message: expect.stringContaining('QuotaExceededError') });
  });

  it('destroys the session when the caller goes away mid-stream', async () => {
    const { harness, double } = setup({ chunkMs: 20, reply: () => 'a b c d e f g h i j k l m n o p' });
    const controller = new AbortController();
    const stream = await harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'go' }], stream: true }, { signal: controller.signal });
    const seen: string[] = [];
    try {
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? '');
        if (seen.join('').length >= 4) controller.abort();
      }
    } catch {
      // The SDK may end the iteration or throw on abort: either way the caller has gone.
    }
    await expect.poll(() => double.sessions.at(-1)!.destroyed).toBe(true);
    expect(seen.join('').length).toBeLessThan(10);
  });

  it("downloads the model through the product's progress events when it is downloadable", async () => {
    const { harness, host, double, progress } = setup({ availability: 'downloadable' });
    await host.load(MODEL);
    expect(progress.map((p) => p.status)).toEqual(['initiate', 'progress', 'progress', 'progress', 'ready']);
    expect(progress.filter((p) => p.status === 'progress').map((p) => (p.status === 'progress' ? p.loaded : -1))).toEqual([0, 0.5, 1]);
    expect(double.state.availability).toBe('available');
    expect(await localOf(harness)).toMatchObject({ downloaded: true, state: 'loaded' });
  });

  it('passes temperature and top-K only where the browser allows them, within its limits', async () => {
    const allowed = setup({ params: { defaultTopK: 3, maxTopK: 8, defaultTemperature: 1, maxTemperature: 1.2 } });
    await allowed.harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], temperature: 1.5 });
    expect(allowed.double.sessions.at(-1)!.options).toMatchObject({ temperature: 1.2, topK: 3 });
    const refused = setup();
    await refused.harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 });
    expect(refused.double.sessions.at(-1)!.options).not.toHaveProperty('temperature');
  });

  it('refuses a non-empty logit_bias with a 400 naming it, in the gateway and in the adapter, and takes an empty one', async () => {
    const { harness, double } = setup();
    const error = await harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], logit_bias: { '5': 10 } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param: 'logit_bias', type: 'invalid_request_error' });
    expect(double.sessions).toHaveLength(0);
    await harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], logit_bias: {} });
    // The check comes before the backend is asked anything.
    const adapter = createBuiltinAdapter({ models: builtinModels, backend: {} as never });
    const events = adapter.chat({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], maxTokens: 4, stop: [], logitBias: new Map([[5, 10]]) }, { signal: new AbortController().signal });
    await expect(events[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'invalid_request', param: 'logit_bias' });
  });

  it('estimates the prompt where the browser cannot measure it', async () => {
    const { harness } = setup({ measures: false });
    const completion = await harness.openai().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'abcdefgh' }] });
    expect(completion.usage!.prompt_tokens).toBe(2);
  });

  it('without the API: a 503 that says why, or the fallback, named in the headers', async () => {
    const alone = setup('absent');
    const refused = await alone.harness.fetch('https://llm.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(refused.status).toBe(503);
    expect(JSON.stringify(await refused.json())).toContain('Prompt API');
    const withFallback = setup('absent', { fallback: true });
    const served = await withFallback.harness.fetch('https://llm.test/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-inpage-llm-served-by')).toBe('scripted-chat');
    expect(served.headers.get('x-inpage-llm-fallback-from')).toBe(MODEL);
    expect(served.headers.get('x-inpage-llm-fallback-reason')).toBe('model_unavailable');
  });
});
