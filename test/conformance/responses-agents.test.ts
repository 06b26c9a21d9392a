/**
 * The OpenAI Agents SDK (`@openai/agents`) against the gateway's `/responses`, through an `openai`
 * client whose `fetch` is the gateway: one agent with one function tool, run to its final output
 * on the tiny random-weight model (real transformers.js inference). The Agents SDK is the strictest
 * Responses client here: it raises on any incomplete response and on a tool call it cannot parse,
 * so the tool's schema is bounded (the grammar closes every value) and the token cap leaves room.
 * The first turn must call the tool (`toolChoice: 'required'`); the SDK then resets the choice to
 * the default, so the turn after the tool's result can end in words.
 */
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { transformersFixture } from '../support/engines.ts';
import { BASE, createHarness, type Harness } from '../support/harness.ts';

const WeatherInput = z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) });

describe('Agents SDK (@openai/agents) on transformers.js (tiny-chat)', () => {
  let h: Harness;
  // Tracing would post spans to OpenAI's servers, which are not ours to reach.
  beforeAll(() => setTracingDisabled(true));
  afterAll(() => setTracingDisabled(false));
  beforeEach(async () => {
    h = createHarness('fetch option', { engine: (await transformersFixture.create()).engine });
  });
  afterEach(() => h.close());

  /** The agent, its runner on the gateway, and the inputs its tool was called with. */
  function forecaster() {
    const executed: z.infer<typeof WeatherInput>[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'The forecast for a city.',
      parameters: WeatherInput,
      execute: async (input) => {
        executed.push(input);
        return `Sunny in ${input.city} for ${input.days} days.`;
      },
    });
    const agent = new Agent({
      name: 'Forecaster',
      instructions: 'Answer weather questions with the get_weather tool.',
      model: 'tiny-chat',
      tools: [getWeather],
      // Room to spare for a whole call (this model's took 90 tokens) and an answer: the SDK refuses an incomplete response.
      modelSettings: { toolChoice: 'required', maxTokens: 200, temperature: 0 },
      resetToolChoice: true,
    });
    const client = new OpenAI({ baseURL: BASE, apiKey: 'sk-local', maxRetries: 0, fetch: (input, init) => h.fetch(String(input), init) });
    const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true });
    return { agent, runner, executed };
  }

  it('runs an agent with a function tool to its final output: the tool is called, its result sent back, the answer a string', async () => {
    const { agent, runner, executed } = forecaster();
    const result = await runner.run(agent, 'What is the weather in Oslo?', { maxTurns: 3 });

    expect(executed.length).toBeGreaterThan(0);
    for (const input of executed) expect(WeatherInput.parse(input)).toEqual(input);
    expect(typeof result.finalOutput).toBe('string');
    expect(result.finalOutput!.length).toBeGreaterThan(0);
    const items = result.newItems.map((item) => item.type);
    expect(items[0]).toBe('tool_call_item');
    expect(items).toContain('tool_call_output_item');
    expect(items.at(-1)).toBe('message_output_item');

    // Every model call went to /responses: the call first, with the tool forced; then the result back, with the choice reset.
    const bodies = await Promise.all(h.seen.map(async (request) => ({ path: new URL(request.url).pathname, body: (await request.json()) as Record<string, unknown> })));
    expect(bodies.map((b) => b.path)).toEqual(bodies.map(() => '/v1/responses'));
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    expect(bodies[0]!.body.tool_choice).toBe('required');
    expect(bodies[1]!.body.tool_choice ?? 'auto').toBe('auto');
    const followUp = bodies[1]!.body.input as { type?: string; call_id?: string }[];
    expect(followUp.some((item) => item.type === 'function_call_output')).toBe(true);
    expect(result.rawResponses.every((response) => response.usage.outputTokens > 0)).toBe(true);
  });

  it('streams the same run: text deltas as they come, the tool called, the same final output', async () => {
    const whole = forecaster();
    const expected = await whole.runner.run(whole.agent, 'What is the weather in Oslo?', { maxTurns: 3 });
    const { agent, runner, executed } = forecaster();
    const result = await runner.run(agent, 'What is the weather in Oslo?', { maxTurns: 3, stream: true });
    let text = '';
    const kinds = new Set<string>();
    for await (const event of result) {
      kinds.add(event.type);
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') text += event.data.delta;
    }
    await result.completed;
    expect(result.error).toBeNull();
    expect(executed).toEqual(whole.executed);
    expect([...kinds]).toEqual(expect.arrayContaining(['raw_model_stream_event', 'run_item_stream_event']));
    expect(result.finalOutput).toBe(expected.finalOutput);
    expect(text).toBe(expected.finalOutput);
    expect(h.seen.filter((request) => new URL(request.url).pathname === '/v1/responses').length).toBeGreaterThanOrEqual(4);
  });
});
