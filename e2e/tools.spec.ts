/**
 * Tool calling in the browser: the official SDKs in the page, the service worker answering, the
 * grammar compiled by xgrammar's wasm in the engine worker. A round trip in each flavour (call,
 * result, answer), the call streamed, on the tiny random-weight model.
 */
import { expect, startRuntime, test } from './fixtures.ts';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 12 }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};

test('OpenAI flavour: a streamed call reassembled by the SDK, its result sent back, a final answer', async ({ page }) => {
  await startRuntime(page);
  const out = await page.evaluate(async (schema) => {
    const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey: 'k', dangerouslyAllowBrowser: true });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'The weather in a city.', parameters: schema } }];
    const messages: Parameters<typeof client.chat.completions.create>[0]['messages'] = [{ role: 'user', content: 'Weather in Paris?' }];
    const stream = client.chat.completions.stream({ model: 'tiny-chat', messages, tools, tool_choice: 'required', max_tokens: 120, stream_options: { include_usage: true } });
    let fragments = 0;
    stream.on('tool_calls.function.arguments.delta', () => fragments++);
    const first = await stream.finalChatCompletion();
    const message = first.choices[0]!.message;
    messages.push(message, ...(message.tool_calls ?? []).map((call) => ({ role: 'tool' as const, tool_call_id: call.id, content: 'Sunny, 21 degrees.' })));
    const final = await client.chat.completions.create({ model: 'tiny-chat', messages, tools, tool_choice: 'none', max_tokens: 12 });
    return {
      finish: first.choices[0]!.finish_reason,
      calls: (message.tool_calls ?? []).map((c) => (c.type === 'function' ? { name: c.function.name, args: c.function.arguments } : null)),
      fragments,
      answer: final.choices[0]!.message,
      prompts: [first.usage!.prompt_tokens, final.usage!.prompt_tokens],
    };
  }, WEATHER);
  expect(out.finish).toBe('tool_calls');
  expect(out.calls.length).toBeGreaterThan(0);
  for (const call of out.calls) {
    expect(call!.name).toBe('get_weather');
    const args = JSON.parse(call!.args) as { city: string; unit: string };
    expect(Object.keys(args)).toEqual(['city', 'unit']);
    expect(['celsius', 'fahrenheit']).toContain(args.unit);
    expect(args.city.length).toBeLessThanOrEqual(12);
  }
  expect(out.fragments).toBeGreaterThan(3);
  expect(out.answer.tool_calls).toBeUndefined();
  expect(typeof out.answer.content).toBe('string');
  expect(out.prompts[1]).toBeGreaterThan(out.prompts[0]!);
});

test('Anthropic flavour: tool_use streamed through the SDK helper, a tool_result, a final answer', async ({ page }) => {
  await startRuntime(page);
  const out = await page.evaluate(async (schema) => {
    const client = new window.harness.Anthropic({ baseURL: location.origin, apiKey: 'k', dangerouslyAllowBrowser: true });
    const tools = [{ name: 'get_weather', description: 'The weather in a city.', input_schema: schema as { type: 'object' } }];
    const messages: Parameters<typeof client.messages.create>[0]['messages'] = [{ role: 'user', content: 'Weather in Paris?' }];
    const stream = client.messages.stream({ model: 'tiny-chat', max_tokens: 120, messages, tools, tool_choice: { type: 'tool', name: 'get_weather' } });
    let partials = 0;
    stream.on('inputJson', () => partials++);
    const first = await stream.finalMessage();
    messages.push({ role: 'assistant', content: first.content });
    messages.push({ role: 'user', content: first.content.flatMap((b) => (b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'Sunny.' }] : [])) });
    const final = await client.messages.create({ model: 'tiny-chat', max_tokens: 12, messages, tools, tool_choice: { type: 'none' } });
    return { stop: first.stop_reason, blocks: first.content, partials, answer: final.content.map((b) => b.type), prompts: [first, final].map(({ usage }) => usage.input_tokens + (usage.cache_read_input_tokens ?? 0)) };
  }, WEATHER);
  expect(out.stop).toBe('tool_use');
  expect(out.blocks.length).toBeGreaterThan(0);
  for (const block of out.blocks) {
    expect(block).toMatchObject({ type: 'tool_use', name: 'get_weather', id: expect.stringMatching(/^toolu_/) });
    const input = (block as { input: { city: string; unit: string } }).input;
    expect(Object.keys(input)).toEqual(['city', 'unit']);
    expect(['celsius', 'fahrenheit']).toContain(input.unit);
  }
  expect(out.partials).toBeGreaterThan(3);
  expect(out.answer).toEqual(['text']);
  expect(out.prompts[1]).toBeGreaterThan(out.prompts[0]!);
});
