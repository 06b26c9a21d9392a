/**
 * The Vercel AI SDK, unchanged, against the API through the service worker: `ai` with its
 * OpenAI-compatible and Anthropic providers asks for objects (zod schemas) and tool calls, whole and
 * streamed, and runs a tool round trip, on the tiny random-weight model. Its text is nonsense, but
 * objects and tool calls are grammar-constrained, so they validate.
 */
import type { Page } from '@playwright/test';
import { z } from 'zod';
import { expect, startRuntime, test } from './fixtures.ts';

// Bounded everywhere: a random-weight model may never close an unbounded string.
const Person = z.object({ name: z.string().max(10), age: z.number().int().min(0).max(120), pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3) }).strict();
const WeatherInput = z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict();
const TimeInput = z.object({ zone: z.enum(['UTC', 'CET']) }).strict();

const API_KEY = 'sk-ai-sdk';

/** Starts the runtime with its requests answered by the service worker, and records which were. */
async function start(page: Page): Promise<boolean[]> {
  await startRuntime(page, { inPage: false, apiKeys: [API_KEY] });
  const fromServiceWorker: boolean[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/v1/')) fromServiceWorker.push(response.fromServiceWorker());
  });
  return fromServiceWorker;
}

type Provider = 'openai-compatible' | 'anthropic';

for (const provider of ['openai-compatible', 'anthropic'] as const satisfies readonly Provider[]) {
  test(`ai SDK (${provider}): object output from a zod schema, whole, streamed and by generateObject`, async ({ page }) => {
    const fromServiceWorker = await start(page);
    const result = await page.evaluate(
      async ({ provider, apiKey }) => {
        const { generateText, streamText, generateObject, Output, createOpenAICompatible, createAnthropic, z } = window.harness.aiSdk;
        const sent: { url: string; body: Record<string, unknown> }[] = [];
        const recording: typeof fetch = (input, init) => {
          sent.push({ url: String(input), body: JSON.parse(String(init?.body)) });
          return fetch(input, init);
        };
        const baseURL = `${location.origin}/v1`;
        const model =
          provider === 'anthropic'
            ? createAnthropic({ baseURL, apiKey, fetch: recording })('tiny-chat')
            : createOpenAICompatible({ name: 'inpage', baseURL, apiKey, supportsStructuredOutputs: true, fetch: recording })('tiny-chat');
        const Person = z.object({ name: z.string().max(10), age: z.number().int().min(0).max(120), pets: z.array(z.enum(['cat', 'dog', 'fish'])).max(3) }).strict();
        const settings = { model, prompt: 'A person, please.', maxOutputTokens: 200, maxRetries: 0 } as const;

        const whole = await generateText({ ...settings, output: Output.object({ schema: Person }) });
        const streamed = streamText({ ...settings, output: Output.object({ schema: Person }) });
        const partials: unknown[] = [];
        for await (const partial of streamed.partialOutputStream) partials.push(partial);
        const legacy = await generateObject({ ...settings, schema: Person });
        return {
          whole: { output: whole.output, finishReason: whole.finishReason, outputTokens: whole.usage.outputTokens },
          streamed: { output: await streamed.output, finishReason: await streamed.finishReason, partials: partials.length },
          legacy: { object: legacy.object, finishReason: legacy.finishReason },
          sent,
        };
      },
      { provider, apiKey: API_KEY },
    );

    for (const output of [result.whole.output, result.streamed.output, result.legacy.object]) expect(Person.parse(output)).toEqual(output);
    expect(result.whole.outputTokens).toBeGreaterThan(0);
    // Partial objects arrive as the JSON streams, not only the finished one.
    expect(result.streamed.partials).toBeGreaterThan(1);
    expect(result.sent.map((s) => [s.url, s.body.stream ?? false])).toEqual(
      [false, true, false].map((stream) => [`${new URL(page.url()).origin}/v1/${provider === 'anthropic' ? 'messages' : 'chat/completions'}`, stream]),
    );
    if (provider === 'openai-compatible') {
      for (const answer of [result.whole, result.streamed, { finishReason: result.legacy.finishReason }]) expect(answer.finishReason).toBe('stop');
      for (const { body } of result.sent) expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true, schema: { type: 'object' } } });
    } else {
      // No structured-output parameter in this flavour: the provider forces a `json` tool, whose
      // call it turns back into the object.
      for (const { body } of result.sent) {
        expect(body.tool_choice).toMatchObject({ type: 'any', disable_parallel_tool_use: true });
        expect((body.tools as { name: string }[]).map((t) => t.name)).toEqual(['json']);
      }
    }
    expect(fromServiceWorker.length).toBe(3);
    expect(fromServiceWorker.every(Boolean)).toBe(true);
  });

  test(`ai SDK (${provider}): tool calls, required and named, whole and streamed`, async ({ page }) => {
    const fromServiceWorker = await start(page);
    const result = await page.evaluate(
      async ({ provider, apiKey }) => {
        const { generateText, streamText, tool, createOpenAICompatible, createAnthropic, z } = window.harness.aiSdk;
        const sent: Record<string, unknown>[] = [];
        const recording: typeof fetch = (input, init) => {
          sent.push(JSON.parse(String(init?.body)));
          return fetch(input, init);
        };
        const baseURL = `${location.origin}/v1`;
        const model =
          provider === 'anthropic'
            ? createAnthropic({ baseURL, apiKey, fetch: recording })('tiny-chat')
            : createOpenAICompatible({ name: 'inpage', baseURL, apiKey, fetch: recording })('tiny-chat');
        // No `execute`: the calls come back to the caller.
        const tools = {
          weather: tool({ description: 'Weather forecast for a city.', inputSchema: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict() }),
          time: tool({ description: 'Current time in a zone.', inputSchema: z.object({ zone: z.enum(['UTC', 'CET']) }).strict() }),
        };
        const settings = { model, tools, maxOutputTokens: 200, maxRetries: 0 } as const;
        const calls = (list: readonly { toolName: string; input: unknown; toolCallId: string }[]) => list.map(({ toolName, input, toolCallId }) => ({ toolName, input, toolCallId }));

        const required = await generateText({ ...settings, prompt: 'Weather in Oslo?', toolChoice: 'required' });
        const named = streamText({ ...settings, prompt: 'What time is it?', toolChoice: { type: 'tool', toolName: 'time' } });
        const parts: string[] = [];
        for await (const part of named.fullStream) parts.push(part.type);
        return {
          required: { calls: calls(required.toolCalls), finishReason: required.finishReason, invalid: required.toolCalls.filter((c) => c.invalid).length },
          named: { calls: calls(await named.toolCalls), finishReason: await named.finishReason, parts },
          sent,
        };
      },
      { provider, apiKey: API_KEY },
    );

    expect(result.required.finishReason).toBe('tool-calls');
    expect(result.required.invalid).toBe(0);
    expect(result.required.calls.length).toBeGreaterThan(0);
    for (const call of result.required.calls) {
      expect(['weather', 'time']).toContain(call.toolName);
      (call.toolName === 'weather' ? WeatherInput : TimeInput).parse(call.input);
      expect(call.toolCallId).toBeTruthy();
    }
    expect(result.named.finishReason).toBe('tool-calls');
    expect(result.named.calls.length).toBeGreaterThan(0);
    for (const call of result.named.calls) {
      expect(call.toolName).toBe('time');
      TimeInput.parse(call.input);
    }
    // The arguments streamed in as deltas before the finished call.
    expect(result.named.parts).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']));
    expect(result.named.parts.indexOf('tool-input-delta')).toBeLessThan(result.named.parts.indexOf('tool-call'));
    if (provider === 'openai-compatible') {
      expect(result.sent.map((body) => body.tool_choice)).toEqual(['required', { type: 'function', function: { name: 'time' } }]);
    } else {
      expect(result.sent.map((body) => body.tool_choice)).toEqual([{ type: 'any' }, { type: 'tool', name: 'time' }]);
    }
    expect(fromServiceWorker.length).toBe(2);
    expect(fromServiceWorker.every(Boolean)).toBe(true);
  });

  test(`ai SDK (${provider}): a tool round trip, executed and answered in a second step`, async ({ page }) => {
    const fromServiceWorker = await start(page);
    const result = await page.evaluate(
      async ({ provider, apiKey }) => {
        const { generateText, tool, stepCountIs, createOpenAICompatible, createAnthropic, z } = window.harness.aiSdk;
        const sent: Record<string, unknown>[] = [];
        const recording: typeof fetch = (input, init) => {
          sent.push(JSON.parse(String(init?.body)));
          return fetch(input, init);
        };
        const baseURL = `${location.origin}/v1`;
        const model =
          provider === 'anthropic'
            ? createAnthropic({ baseURL, apiKey, fetch: recording })('tiny-chat')
            : createOpenAICompatible({ name: 'inpage', baseURL, apiKey, fetch: recording })('tiny-chat');
        const executed: unknown[] = [];
        const weather = tool({
          description: 'Weather forecast for a city.',
          inputSchema: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict(),
          execute: async (input) => {
            executed.push(input);
            return { forecast: 'sunny', celsius: 21 };
          },
        });
        const answer = await generateText({
          model,
          tools: { weather },
          prompt: 'Weather in Oslo?',
          maxOutputTokens: 150,
          maxRetries: 0,
          stopWhen: stepCountIs(2),
          // A call first, then an answer in words: the random model would otherwise call on forever.
          prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? 'required' : 'none' }),
        });
        return {
          steps: answer.steps.map((step) => ({
            finishReason: step.finishReason,
            calls: step.toolCalls.map(({ toolName, input, toolCallId }) => ({ toolName, input, toolCallId })),
            results: step.toolResults.map(({ toolCallId, output }) => ({ toolCallId, output })),
            text: step.text,
          })),
          executed,
          sent,
        };
      },
      { provider, apiKey: API_KEY },
    );

    expect(result.steps.length).toBe(2);
    const [first, second] = result.steps as [(typeof result.steps)[0], (typeof result.steps)[0]];
    expect(first.finishReason).toBe('tool-calls');
    expect(first.calls.length).toBeGreaterThan(0);
    for (const call of first.calls) {
      expect(call.toolName).toBe('weather');
      WeatherInput.parse(call.input);
    }
    expect(result.executed).toEqual(first.calls.map((c) => c.input));
    expect(first.results).toEqual(first.calls.map((c) => ({ toolCallId: c.toolCallId, output: { forecast: 'sunny', celsius: 21 } })));
    expect(second.calls).toEqual([]);
    expect(['stop', 'length']).toContain(second.finishReason);
    expect(second.text.length).toBeGreaterThan(0);

    // The second request carries the calls and their results back, in the flavour's own shape.
    expect(result.sent.length).toBe(2);
    const ids = first.calls.map((c) => c.toolCallId);
    const followUp = result.sent[1]!.messages as Record<string, unknown>[];
    if (provider === 'openai-compatible') {
      expect(followUp.map((m) => m.role)).toEqual(['user', 'assistant', ...ids.map(() => 'tool')]);
      expect(followUp.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, JSON.parse(String(m.content))])).toEqual(ids.map((id) => [id, { forecast: 'sunny', celsius: 21 }]));
    } else {
      expect(followUp.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      const blocks = followUp[2]!.content as { type: string; tool_use_id: string }[];
      expect(blocks.map((b) => [b.type, b.tool_use_id])).toEqual(ids.map((id) => ['tool_result', id]));
    }
    expect(fromServiceWorker.length).toBe(2);
    expect(fromServiceWorker.every(Boolean)).toBe(true);
  });
}
