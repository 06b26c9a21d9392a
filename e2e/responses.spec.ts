/**
 * OpenAI's Responses API and Anthropic's count_tokens with the real clients, unchanged, through
 * the service worker and through the page's fetch shim: `openai` (create, stream, parse, function
 * tools, previous_response_id, retrieve, delete), the Vercel AI SDK's default `openai` provider,
 * the OpenAI Agents SDK and `@anthropic-ai/sdk`, on the tiny random-weight model. Its text is
 * nonsense, but objects and tool calls are grammar-constrained, so they validate. Stored responses
 * live in IndexedDB: one stored through the page is read through the service worker, and one
 * outlives a reload and a restart of the service worker. The store module itself is checked in
 * the page too (bounds, replacement, items shared by responses), on a database of its own.
 */
import type { Page } from '@playwright/test';
import { z } from 'zod';
import { expect, SDK_PAGE, startRuntime, test } from './fixtures.ts';

const API_KEY = 'sk-responses';
const Weather = z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict();
const City = z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }).strict();

/**
 * Starts the runtime, the page's requests answered in the page (`inPage`) or by the service
 * worker, and records, for each request that left the page, whether the service worker answered.
 */
async function start(page: Page, inPage: boolean): Promise<boolean[]> {
  await startRuntime(page, { inPage, apiKeys: [API_KEY] });
  const fromServiceWorker: boolean[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname.startsWith('/v1/')) fromServiceWorker.push(response.fromServiceWorker());
  });
  return fromServiceWorker;
}

/** The SDKs' requests: answered by the service worker, or (in the page) never seen by the network. */
function expectAnsweredBy(fromServiceWorker: readonly boolean[], inPage: boolean, requests: number): void {
  if (inPage) expect(fromServiceWorker).toEqual([]);
  else expect(fromServiceWorker).toEqual(Array.from({ length: requests }, () => true));
}

for (const { path, inPage } of [
  { path: 'service worker', inPage: false },
  { path: 'page', inPage: true },
]) {
  test(`openai responses (${path}): create, incomplete, stream, parse, a tool round trip on previous_response_id, retrieve, delete; anthropic count_tokens`, async ({ page }) => {
    const fromServiceWorker = await start(page, inPage);
    const result = await page.evaluate(
      async ({ apiKey, inPage }) => {
        const { OpenAI, zodTextFormat, zodResponsesFunction, Anthropic, networkFetch, aiSdk } = window.harness;
        const { z } = aiSdk;
        const client = new OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
        const model = 'tiny-chat';
        const failure = async (call: Promise<unknown>) =>
          call.then(
            () => null,
            (error: { status?: number; code?: string; param?: string }) => ({ status: error.status, code: error.code, param: error.param, notFound: error instanceof OpenAI.NotFoundError }),
          );

        // The tiny model ends a text reply after 40 tokens: no cap gives a whole reply.
        const plain = await client.responses.create({ model, instructions: 'Answer briefly.', input: 'Hello there!', metadata: { run: 'e2e' } });
        const cut = await client.responses.create({ model, input: 'Tell me a long story.', max_output_tokens: 16, store: false });

        const stream = client.responses.stream({ model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Stream something.' }] }], max_output_tokens: 16 });
        const events: string[] = [];
        let deltas = '';
        for await (const event of stream) {
          events.push(event.type);
          if (event.type === 'response.output_text.delta') deltas += event.delta;
        }
        const streamed = await stream.finalResponse();

        const parsed = await client.responses.parse({
          model,
          input: 'A forecast, please.',
          text: { format: zodTextFormat(z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict(), 'forecast') },
          max_output_tokens: 64,
        });

        // The call streams, its tool a zod one whose arguments the client parses.
        const callStream = client.responses.stream({
          model,
          input: 'Weather in Oslo?',
          tools: [zodResponsesFunction({ name: 'weather', description: 'Weather forecast for a city.', parameters: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }) })],
          tool_choice: 'required',
          parallel_tool_calls: false,
          max_output_tokens: 200,
        });
        let argumentDeltas = '';
        for await (const event of callStream) if (event.type === 'response.function_call_arguments.delta') argumentDeltas += event.delta;
        const called = await callStream.finalResponse();
        const weather = {
          type: 'function' as const,
          name: 'weather',
          description: 'Weather forecast for a city.',
          parameters: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Oslo', 'Lima'] } }, required: ['city'], additionalProperties: false },
          strict: true,
        };
        const call = called.output.find((item) => item.type === 'function_call');
        // The result goes back on previous_response_id alone: the call comes from the stored response.
        const answered = await client.responses.create({
          model,
          previous_response_id: called.id,
          input: [{ type: 'function_call_output', call_id: call?.call_id ?? 'none', output: JSON.stringify({ forecast: 'sunny', celsius: 21 }) }],
          tools: [weather],
          tool_choice: 'none',
          max_output_tokens: 16,
        });
        const inputItems = await client.responses.inputItems.list(answered.id);

        const retrieved = await client.responses.retrieve(plain.id);
        // Stored through this page's runtime, read through the service worker: one IndexedDB.
        const throughWorker = inPage
          ? await (await networkFetch(`/v1/responses/${plain.id}`, { headers: { authorization: `Bearer ${apiKey}` } })).json()
          : null;
        const notStored = await failure(client.responses.retrieve(cut.id));
        await client.responses.delete(plain.id);
        const deleted = await failure(client.responses.retrieve(plain.id));
        const deletedTwice = await failure(client.responses.delete(plain.id));

        const anthropic = new Anthropic({ baseURL: location.origin, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
        const ask = {
          model,
          system: 'You forecast the weather.',
          messages: [{ role: 'user' as const, content: 'Weather in Lima for two days?' }],
          tools: [{ name: 'weather', description: 'Weather forecast for a city.', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }],
        };
        const counted = await anthropic.messages.countTokens(ask);
        const message = await anthropic.messages.create({ ...ask, max_tokens: 16 });

        return {
          plain,
          cut,
          events,
          deltas,
          streamed,
          parsed: { status: parsed.status, output_parsed: parsed.output_parsed, output_text: parsed.output_text, format: parsed.text?.format },
          called,
          argumentDeltas,
          answered,
          inputItems: inputItems.data,
          retrieved,
          throughWorker,
          notStored,
          deleted,
          deletedTwice,
          counted,
          messageUsage: message.usage,
        };
      },
      { apiKey: API_KEY, inPage },
    );

    const { plain, cut, streamed, called, answered } = result;
    expect(plain).toMatchObject({ object: 'response', status: 'completed', model: 'tiny-chat', instructions: 'Answer briefly.', metadata: { run: 'e2e' }, store: true, incomplete_details: null });
    expect(plain.id).toMatch(/^resp_/);
    expect(plain.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' })]);
    expect(plain.output_text.length).toBeGreaterThan(0);
    expect(plain.usage).toMatchObject({ output_tokens: 40, total_tokens: plain.usage!.input_tokens + 40 });

    expect(cut).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16, store: false });
    expect(cut.usage!.output_tokens).toBe(16);

    // The documented sequence, and the deltas add up to the final text.
    expect(result.events.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(result.events.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.incomplete']);
    expect(streamed.status).toBe('incomplete');
    expect(streamed.output_text).toBe(result.deltas);
    expect(streamed.usage!.output_tokens).toBe(16);

    expect(result.parsed.status).toBe('completed');
    expect(Weather.parse(result.parsed.output_parsed)).toEqual(JSON.parse(result.parsed.output_text));
    expect(result.parsed.format).toMatchObject({ type: 'json_schema', name: 'forecast', strict: true });

    expect(called.status).toBe('completed');
    const calls = called.output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ type: 'function_call', name: 'weather', status: 'completed', arguments: result.argumentDeltas })]);
    expect(City.parse(JSON.parse(calls[0]!.arguments))).toEqual((calls[0] as { parsed_arguments?: unknown }).parsed_arguments);
    expect(called.output_text).toBe('');
    expect(answered.previous_response_id).toBe(called.id);
    expect(answered.output.map((item) => item.type)).toEqual(['message']);
    // The second turn's prompt holds the first turn and its call.
    expect(answered.usage!.input_tokens).toBeGreaterThan(called.usage!.input_tokens + called.usage!.output_tokens);
    expect(result.inputItems).toEqual([expect.objectContaining({ type: 'function_call_output', call_id: calls[0]!.call_id })]);

    expect(result.retrieved).toEqual(plain);
    // The wire object, without the `output_text` the client adds.
    const { output_text: _, ...wire } = plain;
    if (inPage) expect(result.throughWorker).toEqual(wire);
    for (const missing of [result.notStored, result.deleted, result.deletedTwice]) expect(missing).toMatchObject({ status: 404, notFound: true });

    expect(result.counted.input_tokens).toBeGreaterThan(0);
    // The whole prompt: Anthropic counts what came from the prefix cache apart from input_tokens.
    expect(result.messageUsage.input_tokens + (result.messageUsage.cache_read_input_tokens ?? 0)).toBe(result.counted.input_tokens);

    // Seven creates and reads, five retrieves and deletes, two Anthropic calls: through the service
    // worker all of them; in the page none but the read sent past the shim on purpose.
    expect(fromServiceWorker).toEqual(inPage ? [true] : Array.from({ length: 14 }, () => true));
  });

  test(`AI SDK openai provider and the Agents SDK (${path}): text, streamed text, an object, a streamed call, tool round trips`, async ({ page }) => {
    const fromServiceWorker = await start(page, inPage);
    const result = await page.evaluate(
      async ({ apiKey }) => {
        const { OpenAI, aiSdk, agents } = window.harness;
        const { generateText, streamText, Output, tool, stepCountIs, createOpenAI, z } = aiSdk;
        const sent: { url: string; body: Record<string, unknown> }[] = [];
        const recording: typeof fetch = (input, init) => {
          sent.push({ url: String(input), body: JSON.parse(String(init?.body)) });
          return fetch(input, init);
        };
        const baseURL = `${location.origin}/v1`;
        // The provider's default model is the Responses API one.
        const model = createOpenAI({ baseURL, apiKey, fetch: recording })('tiny-chat');
        const settings = { model, maxRetries: 0 } as const;

        const text = await generateText({ ...settings, prompt: 'Hello!', maxOutputTokens: 16 });
        const streamed = streamText({ ...settings, prompt: 'Stream a story.', maxOutputTokens: 16 });
        let chunks = 0;
        for await (const _ of streamed.textStream) chunks++;
        const object = await generateText({
          ...settings,
          prompt: 'A forecast, please.',
          maxOutputTokens: 64,
          output: Output.object({ schema: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']), days: z.number().int().min(1).max(7) }).strict() }),
        });
        // A call streamed: its arguments arrive as deltas before the finished call.
        const streamedCall = streamText({
          ...settings,
          prompt: 'Weather in Paris?',
          maxOutputTokens: 200,
          toolChoice: 'required',
          tools: { weather: tool({ description: 'Weather forecast for a city.', inputSchema: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }).strict() }) },
        });
        const callParts: string[] = [];
        for await (const part of streamedCall.fullStream) callParts.push(part.type);
        const executed: unknown[] = [];
        const weather = tool({
          description: 'Weather forecast for a city.',
          inputSchema: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }).strict(),
          execute: async (input) => {
            executed.push(input);
            return { forecast: 'sunny', celsius: 21 };
          },
        });
        const withTool = await generateText({
          ...settings,
          tools: { weather },
          prompt: 'Weather in Oslo?',
          maxOutputTokens: 200,
          stopWhen: stepCountIs(2),
          // A call first, then an answer in words: the random model would otherwise call on forever.
          prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? 'required' : 'none' }),
        });

        // The Agents SDK raises on an incomplete response: the cap leaves room for a whole call
        // (its JSON is many byte-level tokens) and for the tiny model's 40-token replies. The first turn must call the tool; the SDK then resets the choice, and
        // the second turn answers in words.
        agents.setTracingDisabled(true);
        const client = new OpenAI({ baseURL, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0, fetch: recording });
        agents.setDefaultOpenAIClient(client);
        const agentCalls: unknown[] = [];
        const agent = new agents.Agent({
          name: 'Forecaster',
          instructions: 'Use the weather tool, then answer.',
          model: 'tiny-chat',
          modelSettings: { toolChoice: 'required', maxTokens: 200 },
          tools: [
            agents.tool({
              name: 'weather',
              description: 'Weather forecast for a city.',
              parameters: z.object({ city: z.enum(['Paris', 'Oslo', 'Lima']) }),
              execute: async (input) => {
                agentCalls.push(input);
                return 'Sunny, 21 degrees.';
              },
            }),
          ],
        });
        const agentSent = sent.length;
        const run = await agents.run(agent, 'Weather in Lima?', { maxTurns: 4 });

        return {
          text: { text: text.text, finishReason: text.finishReason, outputTokens: text.usage.outputTokens },
          streamed: { text: await streamed.text, finishReason: await streamed.finishReason, chunks },
          object: { output: object.output, finishReason: object.finishReason },
          streamedCall: { parts: callParts, calls: (await streamedCall.toolCalls).map(({ toolName, input }) => ({ toolName, input })), finishReason: await streamedCall.finishReason },
          withTool: withTool.steps.map((step) => ({
            finishReason: step.finishReason,
            calls: step.toolCalls.map(({ toolName, input, toolCallId }) => ({ toolName, input, toolCallId })),
            text: step.text,
          })),
          executed,
          agent: { finalOutput: run.finalOutput, items: run.newItems.map((item) => item.type), calls: agentCalls },
          sent: sent.map(({ url, body }, i) => ({
            url,
            agent: i >= agentSent,
            input: (body.input as { type?: string }[]).map((item) => item.type ?? 'message'),
            tool_choice: body.tool_choice,
          })),
        };
      },
      { apiKey: API_KEY },
    );

    expect(result.text.text.length).toBeGreaterThan(0);
    expect(result.text.finishReason).toBe('length');
    expect(result.text.outputTokens).toBe(16);
    expect(result.streamed.chunks).toBeGreaterThan(1);
    expect(result.streamed.text.length).toBeGreaterThan(0);
    expect(result.streamed.finishReason).toBe('length');
    expect(Weather.parse(result.object.output)).toEqual(result.object.output);
    expect(result.object.finishReason).toBe('stop');

    expect(result.streamedCall.finishReason).toBe('tool-calls');
    expect(result.streamedCall.calls.map((c) => c.toolName)).toEqual(['weather']);
    City.parse(result.streamedCall.calls[0]!.input);
    const parts = result.streamedCall.parts;
    expect(parts).toEqual(expect.arrayContaining(['tool-input-start', 'tool-input-delta', 'tool-input-end', 'tool-call']));
    expect(parts.indexOf('tool-input-delta')).toBeLessThan(parts.indexOf('tool-call'));

    expect(result.withTool.length).toBe(2);
    const [first, second] = result.withTool as [(typeof result.withTool)[0], (typeof result.withTool)[0]];
    expect(first.finishReason).toBe('tool-calls');
    expect(first.calls.map((c) => c.toolName)).toEqual(['weather']);
    City.parse(first.calls[0]!.input);
    expect(result.executed).toEqual([first.calls[0]!.input]);
    expect(second.calls).toEqual([]);
    expect(second.text.length).toBeGreaterThan(0);

    expect(result.agent.calls.length).toBe(1);
    City.parse(result.agent.calls[0]);
    expect(result.agent.items).toEqual(['tool_call_item', 'tool_call_output_item', 'message_output_item']);
    expect(typeof result.agent.finalOutput).toBe('string');
    expect(String(result.agent.finalOutput).length).toBeGreaterThan(0);

    // Every request went to /responses; each round trip's second turn sent the call and its
    // result back as input items.
    expect(new Set(result.sent.map((s) => new URL(s.url).pathname))).toEqual(new Set(['/v1/responses']));
    const turns = (agent: boolean) => result.sent.filter((s) => s.agent === agent).slice(-2);
    for (const agent of [false, true]) expect(turns(agent).map((s) => s.input)).toEqual([['message'], ['message', 'function_call', 'function_call_output']]);
    expect(turns(false).map((s) => s.tool_choice)).toEqual(['required', 'none']);
    expect(turns(true).map((s) => s.tool_choice)).toEqual(['required', undefined]);
    expectAnsweredBy(fromServiceWorker, inPage, result.sent.length);
  });
}

test('stored responses outlive a reload and a service worker restart: retrieve, item_reference and input_items read them from IndexedDB', async ({ page, context }) => {
  await start(page, false);
  const created = await page.evaluate(async (apiKey) => {
    const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
    return client.responses.create({ model: 'tiny-chat', input: [{ type: 'message', role: 'user', content: 'Remember me.', id: 'msg_e2e_kept' } as { type: 'message'; role: 'user'; content: string }], max_output_tokens: 16 });
  }, API_KEY);

  // A fresh service worker has nothing in memory: what it finds comes from the database.
  const cdp = await context.newCDPSession(page);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await page.reload();
  const fromServiceWorker = await start(page, false);
  const after = await page.evaluate(
    async ({ apiKey, id, outputId }) => {
      const client = new window.harness.OpenAI({ baseURL: `${location.origin}/v1`, apiKey, dangerouslyAllowBrowser: true, maxRetries: 0 });
      const retrieved = await client.responses.retrieve(id);
      const inputItems = await client.responses.inputItems.list(id);
      const followUp = await client.responses.create({
        model: 'tiny-chat',
        input: [
          { type: 'item_reference', id: 'msg_e2e_kept' },
          { type: 'item_reference', id: outputId },
          { role: 'user', content: 'And again.' },
        ],
        max_output_tokens: 16,
      });
      // The database itself, as the page sees it.
      const records = await new Promise<number>((resolve, reject) => {
        const open = indexedDB.open('inpage-llm-responses');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const count = open.result.transaction('responses').objectStore('responses').count();
          count.onsuccess = () => {
            open.result.close();
            resolve(count.result);
          };
        };
      });
      return { retrieved, inputItems: inputItems.data, followUp: { status: followUp.status, inputTokens: followUp.usage!.input_tokens }, records };
    },
    { apiKey: API_KEY, id: created.id, outputId: created.output[0]!.id! },
  );
  expect(after.retrieved).toEqual(created);
  expect(after.inputItems).toEqual([expect.objectContaining({ id: 'msg_e2e_kept', type: 'message', role: 'user' })]);
  expect(after.followUp.status).toBe('incomplete');
  // The referenced turns are in the prompt: more than the created response's own.
  expect(after.followUp.inputTokens).toBeGreaterThan(created.usage!.input_tokens + created.usage!.output_tokens);
  expect(after.records).toBe(2);
  expect(fromServiceWorker).toEqual([true, true, true]);
});

test('the IndexedDB response store: bounded, oldest out first, put replaces, an item kept while any response holds it, delete says whether there was one', async ({ page }) => {
  await page.goto(SDK_PAGE);
  await expect(page.locator('body[data-ready="true"]')).toBeAttached();
  const result = await page.evaluate(async () => {
    const database = `responses-store-test-${Date.now()}`;
    const store = window.harness.createIndexedDBResponseStore({ maxEntries: 3, database });
    type Input = { type: 'message'; id: string; role: 'user' | 'assistant'; text: string };
    const entry = (id: string, text = id, repeats: Input[] = []) => ({
      response: { id, created_at: 1, output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] },
      context: [],
      input: [{ type: 'message' as const, id: `in_${id}`, role: 'user' as const, text: `asked ${id}` }, ...repeats],
    });
    const ids = async () => (await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map(async (id) => ((await store.get(id)) ? id : null)))).filter(Boolean);
    const text = async (itemId: string) => {
      const item = await store.findItem(itemId);
      return item?.type === 'message' ? item.text : item;
    };

    for (const id of ['a', 'b', 'c']) await store.put(entry(id));
    // Replacing `a` makes it the newest: `b` is then the oldest.
    await store.put(entry('a', 'again'));
    await store.put(entry('d'));
    const bounded = { kept: await ids(), replaced: (await store.get('a'))?.response.output[0], evicted: await text('msg_b'), input: await store.findItem('in_c'), output: await text('msg_a') };
    // Another store on the same database sees the same entries (the service worker and a page).
    const other = window.harness.createIndexedDBResponseStore({ maxEntries: 3, database });
    const seenByOther = (await other.get('d'))?.response.id;
    const deleted = [await store.delete('c'), await store.delete('c'), await store.delete('never')];
    const afterDelete = { kept: await ids(), item: await other.findItem('in_c') };

    // Later inputs repeat `d`'s and `a`'s outputs by id; `f` evicts `a`, their producer.
    await store.put(entry('e', 'e', [{ type: 'message', id: 'msg_d', role: 'assistant', text: 'repeated' }]));
    await store.put(entry('f', 'f', [{ type: 'message', id: 'msg_a', role: 'assistant', text: 'repeated' }]));
    const shared = { kept: await ids(), a: await text('msg_a'), d: await text('msg_d') };
    await store.delete('d');
    const producerGone = await text('msg_d');
    await store.delete('e');
    await store.delete('f');
    const holdersGone = [await text('msg_d'), await text('msg_a'), await text('in_e')];
    indexedDB.deleteDatabase(database);
    return { bounded, seenByOther, deleted, afterDelete, shared, producerGone, holdersGone };
  });
  expect(result.bounded).toEqual({
    kept: ['a', 'c', 'd'],
    replaced: expect.objectContaining({ content: [{ type: 'output_text', text: 'again' }] }),
    evicted: undefined,
    input: { type: 'message', id: 'in_c', role: 'user', text: 'asked c' },
    output: 'again',
  });
  expect(result.seenByOther).toBe('d');
  expect(result.deleted).toEqual([true, false, false]);
  expect(result.afterDelete).toEqual({ kept: ['a', 'd'], item: undefined });
  // Each item is its first holder's copy, kept while a later response still holds it.
  expect(result.shared).toEqual({ kept: ['d', 'e', 'f'], a: 'again', d: 'd' });
  expect(result.producerGone).toBe('d');
  expect(result.holdersGone).toEqual([undefined, undefined, undefined]);
});
