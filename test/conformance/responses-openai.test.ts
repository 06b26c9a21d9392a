/**
 * The official `openai` client's Responses API (`responses.create`, `.stream`, `.parse`,
 * `.retrieve`, `.delete`, `.inputItems`) against the gateway's `/responses`, through the SDK's
 * `fetch` option and through msw/node, for every engine fixture. The server answers by translation
 * to chat completions, so each answer is checked against what `/chat/completions` reports for the
 * same prompt: same text, same exact usage. Tools and JSON formats run where the model has them
 * (the tiny model, grammar-constrained); the scripted test double has neither and must say so
 * with a 400 in Responses terms. Streams go through the client's strict rebuild (`finalResponse`),
 * which throws on any event out of order or out of line with the final response.
 */
import Ajv from 'ajv';
import OpenAI from 'openai';
import { zodResponsesFunction, zodTextFormat } from 'openai/helpers/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelInfo } from '../../src/core/engine.ts';
import { ENGINE_FIXTURES } from '../support/engines.ts';
import { FAULTS, type ChatCallRecord } from '../support/fault-engine.ts';
import { createHarness, TRANSPORTS, type Harness } from '../support/harness.ts';
import { SCHEMAS, TIME, WEATHER } from '../support/tool-schemas.ts';

type ResponseItem = OpenAI.Responses.ResponseOutputItem;
type FunctionCall = OpenAI.Responses.ResponseFunctionToolCall;

const TOOLS: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'get_weather', description: 'The forecast for a city.', parameters: WEATHER, strict: true },
  { type: 'function', name: 'get_time', description: 'The time in a zone.', parameters: TIME, strict: true },
];
const QUESTION = 'What is the weather in Paris, and the time in UTC?';
const Mood = z.object({ mood: z.enum(['calm', 'busy', 'tired']), level: z.number().int().min(1).max(5), word: z.string().max(8) });

const ajv = new Ajv({ strict: true });
/** Throws unless the item is a call of a known tool whose arguments match its schema. */
function expectValidCall(item: ResponseItem): asserts item is FunctionCall {
  expect(item.type).toBe('function_call');
  const call = item as FunctionCall;
  expect(call).toMatchObject({ id: expect.stringMatching(/^fc_/), call_id: expect.any(String), status: 'completed' });
  expect(Object.keys(SCHEMAS)).toContain(call.name);
  const validate = ajv.compile(SCHEMAS[call.name]!);
  expect(validate(JSON.parse(call.arguments)), JSON.stringify(validate.errors)).toBe(true);
}
const callsOf = (output: readonly ResponseItem[]) => output.filter((item): item is FunctionCall => item.type === 'function_call');
/** What must agree between two answers to one request: the calls' names and arguments, not their fresh ids. */
const stripCalls = (output: readonly ResponseItem[]) => callsOf(output).map((c) => [c.name, c.arguments]);

/** A response as the server sent it: the stream helper adds `parsed` and `output_parsed` (null for text) on its side. */
function withoutParsed(response: OpenAI.Responses.Response): OpenAI.Responses.Response {
  const { output_parsed: _, ...rest } = response as OpenAI.Responses.Response & { output_parsed?: unknown };
  const output = rest.output.map((item) => (item.type === 'message' ? { ...item, content: item.content.map(({ parsed: __, ...part }: { parsed?: unknown } & typeof item.content[number]) => part) } : item));
  return { ...rest, output } as OpenAI.Responses.Response;
}

/** The error a call rejected with (the test fails if it resolved). */
async function rejection<E = InstanceType<typeof OpenAI.APIError>>(promise: Promise<unknown>): Promise<E> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value).slice(0, 200)}`);
    },
    (error: unknown) => error as E,
  );
}

/** What each fixture's chat model can do, known before the tests are collected (so the tests that need a feature show as skipped where it is missing). */
const INFO = new Map<string, ModelInfo>(
  await Promise.all(ENGINE_FIXTURES.map(async (f) => [f.name, (await (await f.create()).engine.listModels()).find((m) => m.id === f.chatModel)!] as const)),
);

describe.each(ENGINE_FIXTURES)('openai responses on $name', (fixture) => {
  const info = INFO.get(fixture.name)!;
  describe.each(TRANSPORTS)('via %s', (transport) => {
    let h: Harness;
    let oa: OpenAI;
    let calls: ChatCallRecord[];
    const model = fixture.chatModel;

    beforeEach(async () => {
      const created = await fixture.create();
      calls = created.calls;
      h = createHarness(transport, { engine: created.engine });
      oa = h.openai();
    });
    afterEach(() => h.close());

    /** The same prompt through /chat/completions, for the figures a response must repeat. */
    const viaChat = (messages: OpenAI.ChatCompletionMessageParam[], max_tokens: number) => oa.chat.completions.create({ model, messages, max_tokens, temperature: 0 });

    describe('create', () => {
      it('answers with a complete response whose text and exact usage are those of the chat completion for the same prompt', async () => {
        const before = Math.floor(Date.now() / 1000);
        const res = await oa.responses.create({ model, input: 'Say something.', max_output_tokens: 40, temperature: 0 });
        const wire = h.seen.at(-1)!;
        expect(new URL(wire.url).pathname).toBe('/v1/responses');
        expect(res.object).toBe('response');
        expect(res.id).toMatch(/^resp_/);
        expect(res.model).toBe(model);
        expect(res.created_at).toBeGreaterThanOrEqual(before - 1);
        expect(res.error).toBeNull();
        expect(res.previous_response_id).toBeNull();
        // Not in the client's Response type, but sent by the real API.
        expect(res).toMatchObject({ store: true });
        expect(res.max_output_tokens).toBe(40);
        expect(['completed', 'incomplete']).toContain(res.status);
        expect(res.output).toHaveLength(1);
        const [message] = res.output;
        expect(message).toMatchObject({ type: 'message', role: 'assistant', id: expect.stringMatching(/^msg_/), status: res.status });
        if (message!.type !== 'message') throw new Error('not a message');
        expect(message.content).toHaveLength(1);
        expect(message.content[0]).toMatchObject({ type: 'output_text', annotations: [] });
        const text = (message.content[0] as OpenAI.Responses.ResponseOutputText).text;
        expect(text.length).toBeGreaterThan(0);
        // Filled in by the client from the output items, not sent by the server.
        expect(res.output_text).toBe(text);

        const usage = res.usage!;
        expect(usage.output_tokens).toBe(calls.at(-1)!.tokens);
        expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
        expect(usage.input_tokens_details.cached_tokens).toBeLessThan(usage.input_tokens);
        expect(usage.output_tokens_details.reasoning_tokens).toBe(0);
        const chat = await viaChat([{ role: 'user', content: 'Say something.' }], 40);
        expect(usage.input_tokens).toBe(chat.usage!.prompt_tokens);
        // The chat request came second: it found all but the last of the same prompt's tokens cached
        // (or, on an engine without a prefix cache, none).
        expect(chat.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(usage.input_tokens_details.cached_tokens);
        expect(usage.output_tokens).toBe(chat.usage!.completion_tokens);
        expect(text).toBe(chat.choices[0]!.message.content);
        expect(res.status).toBe(chat.choices[0]!.finish_reason === 'length' ? 'incomplete' : 'completed');
      });

      it('sends instructions as the system prompt and message items as chat turns', async () => {
        const input: OpenAI.Responses.ResponseInputItem[] = [
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: 'Hello Ada.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is ' }, { type: 'input_text', text: 'my name?' }] },
        ];
        const res = await oa.responses.create({ model, instructions: 'Answer briefly.', input, max_output_tokens: 16, temperature: 0 });
        expect(res.instructions).toBe('Answer briefly.');
        const chat = await viaChat(
          [
            { role: 'system', content: 'Answer briefly.' },
            { role: 'user', content: 'My name is Ada.' },
            { role: 'assistant', content: 'Hello Ada.' },
            { role: 'user', content: 'What is my name?' },
          ],
          16,
        );
        expect(res.usage!.input_tokens).toBe(chat.usage!.prompt_tokens);
        expect(res.output_text).toBe(chat.choices[0]!.message.content);
      });

      it("stops at max_output_tokens with status 'incomplete' and reason max_output_tokens; refuses a cap below 16", async () => {
        const res = await oa.responses.create({ model, input: 'Tell a long story.', max_output_tokens: 16, temperature: 0 });
        expect(res.status).toBe('incomplete');
        expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
        expect(res.usage!.output_tokens).toBe(16);
        expect(res.output[0]).toMatchObject({ type: 'message', status: 'incomplete' });
        expect(res.output_text.length).toBeGreaterThan(0);
        const error = await rejection(oa.responses.create({ model, input: 'x', max_output_tokens: 15 }));
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error.param).toBe('max_output_tokens');
      });

      it('exposes the request id and a JSON content type', async () => {
        const { data, response, request_id } = await oa.responses.create({ model, input: 'Hi', max_output_tokens: 16 }).withResponse();
        expect(request_id).toMatch(/^req_/);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(data.object).toBe('response');
      });
    });

    describe('stream', () => {
      // A cap the answer reaches (response.incomplete) and one it may not (response.completed, on the scripted double at least).
      it.each([24, 200])('streams the documented events in order, and finalResponse() rebuilds the response the JSON call returns (max_output_tokens %i)', async (cap) => {
        const request = { model, input: 'Stream please.', max_output_tokens: cap, temperature: 0 };
        const stream = oa.responses.stream(request);
        const events: OpenAI.Responses.ResponseStreamEvent[] = [];
        let deltas = '';
        stream.on('response.output_text.delta', (event) => (deltas += event.delta));
        for await (const event of stream) events.push(event);
        const final = await stream.finalResponse();

        expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
        const types = events.map((e) => e.type);
        const deltaCount = types.filter((t) => t === 'response.output_text.delta').length;
        expect(deltaCount).toBeGreaterThan(1);
        expect(types).toEqual([
          'response.created',
          'response.in_progress',
          'response.output_item.added',
          'response.content_part.added',
          ...Array<string>(deltaCount).fill('response.output_text.delta'),
          'response.output_text.done',
          'response.content_part.done',
          'response.output_item.done',
          final.status === 'completed' ? 'response.completed' : 'response.incomplete',
        ]);
        const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
        expect(created.response).toMatchObject({ id: final.id, status: 'in_progress', output: [] });
        expect(new Set(events.flatMap((e) => ('item_id' in e ? [e.item_id] : []))).size).toBe(1);
        expect(final.output_text).toBe(deltas);
        expect((events.find((e) => e.type === 'response.output_text.done') as OpenAI.Responses.ResponseTextDoneEvent).text).toBe(deltas);

        // The same request, not streamed: same text, same usage, same status.
        const whole = await oa.responses.create(request);
        expect(final.output_text).toBe(whole.output_text);
        // The same counts, but for what the second found in the engine's prefix cache.
        expect({ ...whole.usage, input_tokens_details: undefined }).toEqual({ ...final.usage, input_tokens_details: undefined });
        expect(final.status).toBe(whole.status);
        expect(final.incomplete_details).toEqual(whole.incomplete_details);
        expect(final.usage!.output_tokens).toBe(calls.at(-2)!.tokens);
        // The streamed response was stored as it was sent.
        expect(await oa.responses.retrieve(final.id)).toEqual(withoutParsed(final));
      });

      it('reports a failure after the first event in-band: the stream helper throws an APIError, and nothing is stored', async () => {
        const stream = oa.responses.stream({ model, input: `Go ${FAULTS.midstream}`, max_output_tokens: 40 });
        const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
        const error = await (async () => {
          try {
            for await (const event of stream) seen.push(event);
          } catch (e) {
            return e;
          }
        })();
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const types = seen.map((e) => e.type);
        expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
        expect(types).toContain('response.output_text.delta');
        expect(types).not.toContain('response.completed');
        const id = (seen[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
        expect(await rejection(oa.responses.retrieve(id))).toBeInstanceOf(OpenAI.NotFoundError);
      });

      it('answers an engine failure before the first byte with the status the chat path gives (500)', async () => {
        const error = await rejection(oa.responses.create({ model, input: FAULTS.crash }));
        expect(error).toBeInstanceOf(OpenAI.InternalServerError);
        expect(error.status).toBe(500);
      });

      it('streams with create({ stream: true }) as SSE with event lines matching each type', async () => {
        const response = await oa.responses.create({ model, input: 'Raw', max_output_tokens: 16, stream: true }).asResponse();
        expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const body = await response.text();
        const frames = body.split('\n\n').filter(Boolean);
        expect(frames.length).toBeGreaterThan(5);
        for (const frame of frames) {
          const [eventLine, dataLine] = frame.split('\n');
          expect(eventLine).toMatch(/^event: response\./);
          expect(JSON.parse(dataLine!.replace(/^data: /, '')).type).toBe(eventLine!.slice('event: '.length));
        }
        expect(body).not.toContain('[DONE]');
      });
    });

    describe('text formats', () => {
      it('responses.parse with zodTextFormat gives output_parsed that the zod schema accepts (or a 400 naming text.format)', async () => {
        const request = { model, input: 'How do you feel?', max_output_tokens: 128, text: { format: zodTextFormat(Mood, 'mood') } };
        if (!info.structuredOutput) {
          const error = await rejection(oa.responses.parse(request));
          expect(error).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error.param).toBe('text.format');
          expect(error.message).toContain(`not supported by model '${model}'`);
          return;
        }
        for (const seed of [1, 2]) {
          const res = await oa.responses.parse({ ...request, temperature: 1, ...({ seed } as object) });
          expect(res.status).toBe('completed');
          expect(Mood.parse(res.output_parsed)).toEqual(res.output_parsed);
          expect(res.text?.format).toMatchObject({ type: 'json_schema', name: 'mood', strict: true });
        }
        const streamed = await oa.responses.stream({ ...request, temperature: 0 }).finalResponse();
        const whole = await oa.responses.parse({ ...request, temperature: 0 });
        expect(Mood.parse(streamed.output_parsed)).toEqual(whole.output_parsed);
        expect(streamed.usage).toEqual(whole.usage);
      });
    });

    describe('function tools', () => {
      it("tool_choice 'required' makes function_call items whose arguments match the schema (or a 400 naming tools)", async () => {
        const request = { model, input: QUESTION, tools: TOOLS, tool_choice: 'required' as const, max_output_tokens: 200 };
        if (!info.toolCalling) {
          const error = await rejection(oa.responses.create(request));
          expect(error).toBeInstanceOf(OpenAI.BadRequestError);
          expect(error.param).toBe('tools');
          return;
        }
        for (const seed of [1, 2]) {
          const res = await oa.responses.create({ ...request, temperature: 1, ...({ seed } as object) });
          expect(res.status).toBe('completed');
          expect(res.output.length).toBeGreaterThan(0);
          for (const item of res.output) expectValidCall(item);
          expect(res.tools.map((t) => (t.type === 'function' ? t.name : t.type))).toEqual(['get_weather', 'get_time']);
          expect(res.tool_choice).toBe('required');
          expect(res.output_text).toBe('');
        }
        const named = await oa.responses.create({ ...request, tool_choice: { type: 'function', name: 'get_time' }, parallel_tool_calls: false });
        expect(named.output).toHaveLength(1);
        expectValidCall(named.output[0]!);
        expect((named.output[0] as FunctionCall).name).toBe('get_time');
        expect(named.tool_choice).toEqual({ type: 'function', name: 'get_time' });
      });

      // Only where the engine calls tools: the scripted doubles cannot (their 400 is checked above).
      if (info.toolCalling) it('responses.parse with zodResponsesFunction gives parsed_arguments that the zod schema accepts', async () => {
        const Forecast = z.object({ city: z.enum(['Paris', 'Oslo']), days: z.number().int().min(1).max(7) });
        const res = await oa.responses.parse({ model, input: QUESTION, tools: [zodResponsesFunction({ name: 'forecast', parameters: Forecast })], tool_choice: 'required', max_output_tokens: 200 });
        const parsed = res.output.filter((item) => item.type === 'function_call');
        expect(parsed.length).toBeGreaterThan(0);
        for (const call of parsed) {
          expect(call.name).toBe('forecast');
          expect(Forecast.parse(call.parsed_arguments)).toEqual(call.parsed_arguments);
        }
      });

      // Only where the engine calls tools: the scripted doubles cannot (their 400 is checked above).
      if (info.toolCalling) it('a round trip: the call, then function_call and function_call_output items in input, answered with text', async () => {
        const first = await oa.responses.create({ model, input: QUESTION, tools: TOOLS, tool_choice: { type: 'function', name: 'get_weather' }, max_output_tokens: 200 });
        const call = first.output[0]!;
        expectValidCall(call);
        const input: OpenAI.Responses.ResponseInput = [
          { role: 'user', content: QUESTION },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify({ forecast: 'sunny', celsius: 21 }) },
        ];
        const final = await oa.responses.create({ model, input, tools: TOOLS, tool_choice: 'none', max_output_tokens: 16, store: false });
        expect(final.output).toHaveLength(1);
        expect(final.output[0]!.type).toBe('message');
        expect(final.output_text.length).toBeGreaterThan(0);
        expect(final.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens + first.usage!.output_tokens);
        // The same conversation through /chat/completions: the same prompt, token for token.
        const chat = await oa.chat.completions.create({
          model,
          messages: [
            { role: 'user', content: QUESTION },
            { role: 'assistant', content: null, tool_calls: [{ id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } }] },
            { role: 'tool', tool_call_id: call.call_id, content: JSON.stringify({ forecast: 'sunny', celsius: 21 }) },
          ],
          tools: TOOLS.map(({ name, description, parameters }) => ({ type: 'function' as const, function: { name, description: description!, parameters: parameters! } })),
          tool_choice: 'none',
          max_tokens: 16,
        });
        expect(final.usage!.input_tokens).toBe(chat.usage!.prompt_tokens);

        // The same follow-up by previous_response_id, with only the output in input.
        const chained = await oa.responses.create({
          model,
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify({ forecast: 'sunny', celsius: 21 }) }],
          tools: TOOLS,
          tool_choice: 'none',
          max_output_tokens: 16,
        });
        expect(chained.usage!.input_tokens).toBe(final.usage!.input_tokens);
        // An output for a call nobody made is the 400 the real API gives.
        const orphan = await rejection(oa.responses.create({ model, input: [{ role: 'user', content: 'x' }, { type: 'function_call_output', call_id: 'call_nobody', output: 'r' }] }));
        expect(orphan).toBeInstanceOf(OpenAI.BadRequestError);
        expect(orphan.param).toBe('input[1].call_id');
      });

      // Only where the engine calls tools: the scripted doubles cannot (their 400 is checked above).
      if (info.toolCalling) it('streamed calls: argument deltas and finalResponse() agree with the JSON call at temperature 0', async () => {
        const request = { model, input: QUESTION, tools: TOOLS, tool_choice: 'required' as const, max_output_tokens: 200, temperature: 0 };
        const whole = await oa.responses.create(request);
        const stream = oa.responses.stream(request);
        const args = new Map<string, string>();
        stream.on('response.function_call_arguments.delta', (e) => args.set(e.item_id, (args.get(e.item_id) ?? '') + e.delta));
        const done: OpenAI.Responses.ResponseFunctionCallArgumentsDoneEvent[] = [];
        stream.on('response.function_call_arguments.done', (e) => done.push(e));
        const final = await stream.finalResponse();
        expect(stripCalls(final.output)).toEqual(stripCalls(whole.output));
        expect(stripCalls(final.output).length).toBeGreaterThan(0);
        expect(final.usage).toEqual(whole.usage);
        for (const item of final.output) {
          expectValidCall(item);
          expect(args.get(item.id!)).toBe(item.arguments);
          expect(done.find((e) => e.item_id === item.id)).toMatchObject({ arguments: item.arguments, name: item.name });
        }
      });
    });

    describe('stored responses', () => {
      it('previous_response_id sends the history (not the instructions) and retrieve returns the response as created', async () => {
        const first = await oa.responses.create({ model, instructions: 'Answer in French.', input: 'My name is Ada.', max_output_tokens: 16, temperature: 0 });
        const second = await oa.responses.create({ model, previous_response_id: first.id, input: 'What is my name?', max_output_tokens: 16, temperature: 0 });
        expect(second.previous_response_id).toBe(first.id);
        expect(second.instructions).toBeNull();
        expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens);
        // Exactly the earlier turn and its answer, without the first request's system prompt.
        const chat = await viaChat(
          [
            { role: 'user', content: 'My name is Ada.' },
            { role: 'assistant', content: first.output_text },
            { role: 'user', content: 'What is my name?' },
          ],
          16,
        );
        expect(second.usage!.input_tokens).toBe(chat.usage!.prompt_tokens);
        expect(second.output_text).toBe(chat.choices[0]!.message.content);

        expect(await oa.responses.retrieve(first.id)).toEqual(first);
        expect(await oa.responses.retrieve(second.id)).toEqual(second);
      });

      it('delete removes it: retrieve, a second delete and previous_response_id are then 404', async () => {
        const res = await oa.responses.create({ model, input: 'Forget me.', max_output_tokens: 16 });
        await oa.responses.delete(res.id);
        const gone = await rejection(oa.responses.retrieve(res.id));
        expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
        expect(gone.status).toBe(404);
        expect(gone.message).toContain(res.id);
        expect(await rejection(oa.responses.delete(res.id))).toBeInstanceOf(OpenAI.NotFoundError);
        const chained = await rejection(oa.responses.create({ model, previous_response_id: res.id, input: 'x' }));
        expect(chained).toBeInstanceOf(OpenAI.NotFoundError);
      });

      it('store: false keeps nothing: retrieve is 404', async () => {
        const res = await oa.responses.create({ model, input: 'Do not keep.', max_output_tokens: 16, store: false });
        expect(res).toMatchObject({ store: false });
        const error = await rejection(oa.responses.retrieve(res.id));
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error.status).toBe(404);
      });

      it('inputItems.list gives the input items, newest first unless asked', async () => {
        const res = await oa.responses.create({
          model,
          input: [
            { role: 'user', content: 'One.' },
            { role: 'assistant', content: 'Two.' },
            { role: 'user', content: 'Three.' },
          ],
          max_output_tokens: 16,
        });
        const page = await oa.responses.inputItems.list(res.id);
        const texts = (items: OpenAI.Responses.ResponseItem[]) => items.map((item) => (item.type === 'message' ? [item.role, item.content.map((p) => ('text' in p ? p.text : '')).join('')] : [item.type]));
        expect(texts(page.data)).toEqual([
          ['user', 'Three.'],
          ['assistant', 'Two.'],
          ['user', 'One.'],
        ]);
        for (const item of page.data) expect(item.id).toEqual(expect.any(String));
        const asc = await oa.responses.inputItems.list(res.id, { order: 'asc', limit: 2 });
        expect(texts(asc.data)).toEqual([
          ['user', 'One.'],
          ['assistant', 'Two.'],
        ]);
        expect(asc.has_more).toBe(true);
        const rest = await asc.getNextPage();
        expect(texts(rest.data)).toEqual([['user', 'Three.']]);
        expect(await rejection(oa.responses.inputItems.list('resp_nothing'))).toBeInstanceOf(OpenAI.NotFoundError);
      });

      it('cancel is a 400 (there are no background responses), and a 404 for an unknown id', async () => {
        const res = await oa.responses.create({ model, input: 'Hi', max_output_tokens: 16 });
        const error = await rejection(oa.responses.cancel(res.id));
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(await rejection(oa.responses.cancel('resp_nothing'))).toBeInstanceOf(OpenAI.NotFoundError);
      });
    });

    describe('errors', () => {
      it('an unknown previous_response_id is a 404 naming previous_response_id', async () => {
        const error = await rejection(oa.responses.create({ model, previous_response_id: 'resp_nothing', input: 'x' }));
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error.status).toBe(404);
        expect(error.param).toBe('previous_response_id');
        expect(error.requestID).toMatch(/^req_/);
      });

      it('a hosted tool is a 400 naming tools[0].type', async () => {
        const error = await rejection(oa.responses.create({ model, input: 'Search the web.', tools: [{ type: 'web_search' }] }));
        expect(error).toBeInstanceOf(OpenAI.BadRequestError);
        expect(error.param).toBe('tools[0].type');
        expect(error.type).toBe('invalid_request_error');
      });

      it('an unknown model is a 404 model_not_found', async () => {
        const error = await rejection(oa.responses.create({ model: 'gpt-nothing', input: 'x' }));
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error.code).toBe('model_not_found');
      });
    });
  });
});
