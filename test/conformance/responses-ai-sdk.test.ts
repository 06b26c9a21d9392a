/**
 * The Vercel AI SDK (`ai`) with `@ai-sdk/openai`'s default provider, which speaks the Responses
 * API (`POST /responses`), against the gateway through the provider's `fetch` option, for every
 * engine fixture: text whole and streamed (the same text and exact usage as the chat path gives),
 * objects from a zod schema and tool calls where the model has them (the tiny model,
 * grammar-constrained), a two-step tool run that sends the tool's result back, and a conversation
 * whose second request names the first answer's stored message by `item_reference` (the provider's
 * default while responses are stored), which the server must resolve. The scripted test double has neither
 * JSON output nor tools: there the provider must surface the server's 400.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelInfo } from '../../src/core/engine.ts';
import { ENGINE_FIXTURES } from '../support/engines.ts';
import { BASE, createHarness, type Harness } from '../support/harness.ts';

// Bounded everywhere: a random-weight model may never close an unbounded string.
/** The counts two equal requests share: the second finds the first's prompt in the prefix cache, so its cached part differs. */
const countsOf = ({ inputTokens, outputTokens, totalTokens }: { inputTokens: number | undefined; outputTokens: number | undefined; totalTokens: number | undefined }) => ({ inputTokens, outputTokens, totalTokens });

const Person = z.object({ name: z.string().max(10), age: z.number().int().min(0).max(120), pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3) }).strict();
const WeatherInput = z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict();

/** What each fixture's chat model can do, known before the tests are collected. */
const INFO = new Map<string, ModelInfo>(
  await Promise.all(ENGINE_FIXTURES.map(async (f) => [f.name, (await (await f.create()).engine.listModels()).find((m) => m.id === f.chatModel)!] as const)),
);

describe.each(ENGINE_FIXTURES)('ai SDK (@ai-sdk/openai, Responses API) on $name', (fixture) => {
  const info = INFO.get(fixture.name)!;
  let h: Harness;
  /** Each request the provider sent: its path and JSON body. */
  let sent: { path: string; body: Record<string, unknown> }[];
  let model: ReturnType<ReturnType<typeof createOpenAI>>;

  beforeEach(async () => {
    h = createHarness('fetch option', { engine: (await fixture.create()).engine });
    sent = [];
    const recording: typeof fetch = (input, init) => {
      sent.push({ path: new URL(String(input instanceof Request ? input.url : input)).pathname, body: JSON.parse(String(init?.body)) });
      return h.fetch(String(input instanceof Request ? input.url : input), init);
    };
    // The default provider call (not `.chat(...)`): the one that posts to /responses.
    model = createOpenAI({ baseURL: BASE, apiKey: 'sk-local', fetch: recording })(fixture.chatModel);
  });
  afterEach(() => h.close());

  const settings = () => ({ model, maxRetries: 0, temperature: 0 }) as const;

  it('generateText posts to /responses; the text and exact usage are those of the chat path for the same prompt', async () => {
    const result = await generateText({ ...settings(), prompt: 'Say something.', maxOutputTokens: 24 });
    expect(sent.map((s) => s.path)).toEqual(['/v1/responses']);
    expect(sent[0]!.body).toMatchObject({ model: fixture.chatModel, max_output_tokens: 24, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say something.' }] }] });
    expect(result.response.id).toMatch(/^resp_/);
    expect(result.text.length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(result.finishReason);

    const chat = await h.openai().chat.completions.create({ model: fixture.chatModel, messages: [{ role: 'user', content: 'Say something.' }], max_tokens: 24, temperature: 0 });
    expect(result.text).toBe(chat.choices[0]!.message.content);
    expect(result.usage.inputTokens).toBe(chat.usage!.prompt_tokens);
    expect(result.usage.outputTokens).toBe(chat.usage!.completion_tokens);
    expect(result.usage.totalTokens).toBe(chat.usage!.total_tokens);
    expect(result.finishReason).toBe(chat.choices[0]!.finish_reason === 'length' ? 'length' : 'stop');
  });

  it('streamText streams the same text and usage as generateText', async () => {
    const request = { ...settings(), system: 'Be brief.', prompt: 'Stream please.', maxOutputTokens: 24 };
    const streamed = streamText(request);
    const deltas: string[] = [];
    for await (const delta of streamed.textStream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    const whole = await generateText(request);
    expect(deltas.join('')).toBe(whole.text);
    expect(await streamed.text).toBe(whole.text);
    expect(countsOf(await streamed.usage)).toEqual(countsOf(whole.usage));
    expect(await streamed.finishReason).toBe(whole.finishReason);
    expect(sent.map((s) => [s.path, s.body.stream ?? false])).toEqual([
      ['/v1/responses', true],
      ['/v1/responses', false],
    ]);
    // The system prompt goes as a system (or developer) message item.
    expect((sent[0]!.body.input as { role: string }[])[0]!.role).toMatch(/^(system|developer)$/);
  });

  it('Output.object with a zod schema gives an object the schema accepts (or the 400 for a model without JSON output)', async () => {
    const request = { ...settings(), prompt: 'A person, please.', maxOutputTokens: 200, output: Output.object({ schema: Person }) };
    if (!info.structuredOutput) {
      const error = await generateText(request).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as APICallError).statusCode).toBe(400);
      expect((error as APICallError).message).toContain(`not supported by model '${fixture.chatModel}'`);
      return;
    }
    const whole = await generateText(request);
    expect(Person.parse(whole.output)).toEqual(whole.output);
    expect(whole.finishReason).toBe('stop');
    expect(sent[0]!.body.text).toMatchObject({ format: { type: 'json_schema', strict: true, schema: { type: 'object' } } });

    const streamed = streamText(request);
    const partials: unknown[] = [];
    for await (const partial of streamed.partialOutputStream) partials.push(partial);
    expect(await streamed.output).toEqual(whole.output);
    expect(partials.length).toBeGreaterThan(1);
  });

  it("tools with toolChoice 'required': the calls name the tool and their input matches its schema (or the 400 for a model without tools)", async () => {
    const tools = { weather: tool({ description: 'Weather forecast for a city.', inputSchema: WeatherInput }) };
    const request = { ...settings(), tools, prompt: 'Weather in Oslo?', toolChoice: 'required' as const, maxOutputTokens: 200 };
    if (!info.toolCalling) {
      const error = await generateText(request).catch((e: unknown) => e);
      expect(APICallError.isInstance(error)).toBe(true);
      expect((error as APICallError).statusCode).toBe(400);
      expect(JSON.parse((error as APICallError).responseBody!).error.param).toBe('tools');
      return;
    }
    const result = await generateText(request);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.length).toBeGreaterThan(0);
    for (const call of result.toolCalls) {
      expect(call.toolName).toBe('weather');
      expect(call.invalid ?? false).toBe(false);
      expect(WeatherInput.parse(call.input)).toEqual(call.input);
    }
    expect(sent[0]!.body).toMatchObject({ tool_choice: 'required', tools: [{ type: 'function', name: 'weather', parameters: { type: 'object' } }] });

    const streamed = streamText(request);
    const parts: string[] = [];
    for await (const part of streamed.fullStream) parts.push(part.type);
    expect(await streamed.finishReason).toBe('tool-calls');
    expect(parts).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']));
    expect(parts.indexOf('tool-input-delta')).toBeLessThan(parts.indexOf('tool-call'));
    // Temperature 0: the stream makes the same calls as the whole answer did, with the same usage.
    expect((await streamed.toolCalls).map((c) => [c.toolName, c.input])).toEqual(result.toolCalls.map((c) => [c.toolName, c.input]));
    expect(countsOf(await streamed.usage)).toEqual(countsOf(result.usage));
  });

  it('a conversation continued with the first answer: the provider names the stored message by item_reference, which the server resolves', async () => {
    const first = await generateText({ ...settings(), prompt: 'My name is Ada.', maxOutputTokens: 16 });
    const second = await generateText({
      ...settings(),
      messages: [{ role: 'user', content: 'My name is Ada.' }, ...first.response.messages, { role: 'user', content: 'What is my name?' }],
      maxOutputTokens: 16,
    });
    const input = sent[1]!.body.input as { type?: string; id?: string; role?: string }[];
    expect(input.map((item) => item.type ?? item.role)).toEqual(['user', 'item_reference', 'user']);
    expect(input[1]!.id).toMatch(/^msg_/);
    // The prompt the model read holds the first answer's text in its place.
    const chat = await h.openai().chat.completions.create({
      model: fixture.chatModel,
      messages: [
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'What is my name?' },
      ],
      max_tokens: 16,
      temperature: 0,
    });
    expect(second.usage.inputTokens).toBe(chat.usage!.prompt_tokens);
    expect(second.text).toBe(chat.choices[0]!.message.content);
  });

  // Only where the engine calls tools: the scripted doubles cannot (their 400 is checked above).
  if (info.toolCalling) it('a two-step run executes the tool and sends its result back', async () => {
    const executed: unknown[] = [];
    const weather = tool({
      description: 'Weather forecast for a city.',
      inputSchema: WeatherInput,
      execute: async (input) => {
        executed.push(input);
        return { forecast: 'sunny', celsius: 21 };
      },
    });
    const result = await generateText({
      ...settings(),
      tools: { weather },
      prompt: 'Weather in Oslo?',
      // Room for a whole call: a call cut short would end the run.
      maxOutputTokens: 160,
      stopWhen: stepCountIs(2),
      // A call first, then an answer in words: the random model would otherwise call on forever.
      prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? 'required' : 'none' }),
    });
    expect(result.steps).toHaveLength(2);
    const [first, second] = result.steps as [(typeof result.steps)[0], (typeof result.steps)[0]];
    expect(first.finishReason).toBe('tool-calls');
    expect(executed.length).toBe(first.toolCalls.length);
    expect(executed.length).toBeGreaterThan(0);
    for (const input of executed) WeatherInput.parse(input);
    expect(first.toolResults.map((r) => r.output)).toEqual(executed.map(() => ({ forecast: 'sunny', celsius: 21 })));
    expect(second.toolCalls).toEqual([]);
    expect(second.text.length).toBeGreaterThan(0);

    expect(sent.map((s) => s.path)).toEqual(['/v1/responses', '/v1/responses']);
    const input = sent[1]!.body.input as { type?: string; id?: string; call_id?: string; output?: unknown }[];
    // Function calls go back inline (the provider references stored items only for text and hosted tools), then their outputs.
    expect(input.filter((item) => item.type === 'function_call').map((c) => c.call_id)).toEqual(first.toolCalls.map((c) => c.toolCallId));
    expect(input.filter((item) => item.type === 'function_call_output').map((o) => o.call_id)).toEqual(first.toolCalls.map((c) => c.toolCallId));
    // The follow-up's prompt holds the first prompt, the calls and their results.
    expect(second.usage.inputTokens).toBeGreaterThan(first.usage.inputTokens! + first.usage.outputTokens!);
  });
});
