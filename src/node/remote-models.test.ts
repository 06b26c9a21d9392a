/**
 * Remote models end to end over real HTTP on 127.0.0.1, with the official SDKs as clients: a front
 * gateway forwards to an upstream (the project's own Node server on the tiny models, which speaks
 * both flavours) and to a scripted upstream (test/support/scripted-upstream.ts) for the behaviour
 * a model cannot be made to show on demand: paced streams, late headers, chosen errors, closes.
 * Each answer through the front is compared with the same question asked of the upstream directly.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { AutoTokenizer } from '@huggingface/transformers';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedUpstream, type ScriptedUpstream, type UpstreamReply } from '../../test/support/scripted-upstream.ts';
import { createGateway, createNodeEngine, serveGateway, writeTinyModels, type GatewayServer, type ModelEntry } from './index.ts';

const SCRIPTED_KEY = 'sk-upstream-secret-4f9a';
const CALLER_KEY = 'sk-caller-own-key-77';
const user = (content: string) => [{ role: 'user' as const, content }];
// Spread into Anthropic requests: SDK 1.x's types follow the newest API version, which has no temperature.
const GREEDY = { temperature: 0 };
const openai = (server: GatewayServer, apiKey = CALLER_KEY) => new OpenAI({ baseURL: server.url, apiKey, maxRetries: 0 });
// The Anthropic SDK appends /v1 itself. Its default version (2026-10-21) has no `temperature`, and
// only temperature 0 makes the tiny model's answers comparable between two servers.
const anthropic = (server: GatewayServer, apiKey = CALLER_KEY) =>
  new Anthropic({ baseURL: server.url.replace(/\/v1$/, ''), apiKey, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2023-06-01' } });

let dir: string;
let upstream: GatewayServer;
let scripted: ScriptedUpstream;
let front: GatewayServer;
let closedURL: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inpage-remote-'));
  await writeTinyModels(dir);
  upstream = await serveGateway({ engine: createNodeEngine({ localModelPath: dir }), port: 0 });
  scripted = await startScriptedUpstream();
  closedURL = await closedPortURL();
  const models: ModelEntry[] = [
    { engine: 'remote', id: 'up-openai', upstream: { baseURL: upstream.url, speaks: ['openai'], model: 'tiny-chat' } },
    { engine: 'remote', id: 'up-anthropic', upstream: { baseURL: upstream.url, speaks: ['anthropic'], model: 'tiny-chat' } },
    { engine: 'remote', id: 'up-embed', kind: 'embedding', upstream: { baseURL: upstream.url, model: 'tiny-embed' } },
    { engine: 'remote', id: 'scripted', upstream: { baseURL: scripted.url, model: 'scripted-model', apiKey: SCRIPTED_KEY } },
    { engine: 'remote', id: 'slow-headers', upstream: { baseURL: scripted.url, model: 'scripted-model', apiKey: SCRIPTED_KEY, timeoutMs: 300 } },
    { engine: 'remote', id: 'down', upstream: { baseURL: closedURL, model: 'tiny-chat' }, fallback: 'tiny-chat' },
    { engine: 'remote', id: 'down-alone', upstream: { baseURL: closedURL, model: 'tiny-chat' } },
    { engine: 'remote', id: 'cluster', upstream: { baseURL: [closedURL, upstream.url], model: 'tiny-chat' } },
    { engine: 'transformers', id: 'broken', kind: 'chat', source: 'no-such-model', fallback: 'up-openai' },
    // What a proxy answers for a server behind it that is down: the next URL, or the fallback.
    { engine: 'remote', id: 'proxied-pair', upstream: { baseURL: [scripted.url, upstream.url], model: 'tiny-chat' } },
    { engine: 'remote', id: 'proxied-or-local', upstream: { baseURL: scripted.url, model: 'scripted-model', apiKey: 'sk-proxied' }, fallback: 'tiny-chat' },
    // The config's own header replaces the key's, whatever the case of its name.
    { engine: 'remote', id: 'own-auth', upstream: { baseURL: scripted.url, model: 'scripted-model', apiKey: 'sk-from-key', headers: { Authorization: 'Bearer sk-from-headers', 'X-Org': 'org-1' } } },
    // Its entry says its limits: they are what is listed, whatever its server says.
    { engine: 'remote', id: 'scripted-sized', upstream: { baseURL: scripted.url, model: 'scripted-model', apiKey: SCRIPTED_KEY }, contextWindow: 4096, maxOutputTokens: 512 },
  ];
  front = await serveGateway({ engine: createNodeEngine({ localModelPath: dir, models }), port: 0 });
});

afterAll(async () => {
  await Promise.all([front?.close(), upstream?.close(), scripted?.close()]);
  await rm(dir, { recursive: true, force: true });
});

describe('remote models: answers through the front equal the upstream’s own', () => {
  it('OpenAI client → OpenAI upstream: passed through, JSON and stream', async () => {
    const ask = { max_tokens: 8, temperature: 0, messages: user('Tell me about the sea.') };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    const { data, response } = await openai(front).chat.completions.create({ ...ask, model: 'up-openai' }).withResponse();
    expect(data.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);
    expect(data.choices[0]!.finish_reason).toBe(direct.choices[0]!.finish_reason);
    // The same counts; the second of the two equal prompts found the first in the upstream's prefix cache.
    expect({ ...data.usage, prompt_tokens_details: undefined }).toEqual({ ...direct.usage, prompt_tokens_details: undefined });
    expect(data.usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('up-openai');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    expect(response.headers.get('x-inpage-llm-fallback-from')).toBeNull();

    const streamed = await openai(front).chat.completions.create({ ...ask, model: 'up-openai', stream: true, stream_options: { include_usage: true } }).withResponse();
    expect(streamed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.response.headers.get('x-inpage-llm-served-by')).toBe('up-openai');
    expect(streamed.response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of streamed.data) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(direct.choices[0]!.message.content);
    expect({ ...usage, prompt_tokens_details: undefined }).toEqual({ ...direct.usage, prompt_tokens_details: undefined });
    expect(usage!.prompt_tokens_details!.cached_tokens).toBeGreaterThan(0);
  });

  it('Anthropic client → OpenAI upstream: translated, whole and streamed', async () => {
    const ask = { ...GREEDY, max_tokens: 8, messages: user('Tell me about the hills.') };
    const direct = await anthropic(upstream).messages.create({ ...ask, model: 'tiny-chat' });
    expect(direct.content).toEqual([expect.objectContaining({ type: 'text', text: expect.stringMatching(/\S/) })]);
    const { data, response } = await anthropic(front).messages.create({ ...ask, model: 'up-openai' }).withResponse();
    expect(data).toMatchObject({ type: 'message', role: 'assistant', model: 'up-openai' });
    expect(data.id).toMatch(/^msg_/);
    expect(data.content).toEqual([{ type: 'text', text: textOf(direct) }]);
    expect(data.stop_reason).toBe(direct.stop_reason);
    expect(tokens(data.usage)).toEqual(tokens(direct.usage));
    // The upstream read the same prompt for the direct request: its cached_tokens come back as Anthropic's cache reads.
    expect(data.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('up-openai');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);

    const stream = anthropic(front).messages.stream({ ...ask, model: 'up-openai' });
    let deltas = '';
    stream.on('text', (delta) => (deltas += delta));
    const final = await stream.finalMessage();
    expect(textOf(final)).toBe(textOf(direct));
    expect(deltas).toBe(textOf(direct));
    expect(final.stop_reason).toBe(direct.stop_reason);
    expect(tokens(final.usage)).toEqual(tokens(direct.usage));
  });

  it('OpenAI client → Anthropic upstream: translated, whole and streamed', async () => {
    const ask = { max_tokens: 8, temperature: 0, messages: user('Tell me about the rivers.') };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    const { data, response } = await openai(front).chat.completions.create({ ...ask, model: 'up-anthropic' }).withResponse();
    expect(data).toMatchObject({ object: 'chat.completion', model: 'up-anthropic' });
    expect(data.choices).toHaveLength(1);
    expect(data.choices[0]!.message).toMatchObject({ role: 'assistant', content: direct.choices[0]!.message.content });
    expect(data.choices[0]!.finish_reason).toBe(direct.choices[0]!.finish_reason);
    expect(pick(data.usage!, 'prompt_tokens', 'completion_tokens', 'total_tokens')).toEqual(pick(direct.usage!, 'prompt_tokens', 'completion_tokens', 'total_tokens'));
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('up-anthropic');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);

    const final = await openai(front)
      .chat.completions.stream({ ...ask, model: 'up-anthropic', stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);
    expect(final.choices[0]!.finish_reason).toBe(direct.choices[0]!.finish_reason);
    expect(pick(final.usage!, 'prompt_tokens', 'completion_tokens', 'total_tokens')).toEqual(pick(direct.usage!, 'prompt_tokens', 'completion_tokens', 'total_tokens'));
  });

  it('logit_bias: passed on as it came to an OpenAI upstream, which applies it; a 400 naming it for an Anthropic one', async () => {
    const [cat] = (await AutoTokenizer.from_pretrained('tiny-chat')).encode(' cat', { add_special_tokens: false });
    const ask = { max_tokens: 6, temperature: 0, messages: user('Tell me about the hills.'), logit_bias: { [String(cat)]: 100 } };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    expect(direct.choices[0]!.message.content).toBe(' cat'.repeat(6));
    const viaFront = await openai(front).chat.completions.create({ ...ask, model: 'up-openai' });
    expect(viaFront.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);

    scripted.reply = () => ({});
    await openai(front).chat.completions.create({ model: 'scripted', messages: user('Go.'), logit_bias: { '50256': -100, '7': 2.5 } });
    expect(scripted.posts().at(-1)!.body).toMatchObject({ model: 'scripted-model', logit_bias: { '50256': -100, '7': 2.5 } });

    const refused = await openai(front).chat.completions.create({ ...ask, model: 'up-anthropic' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ status: 400, param: 'logit_bias', type: 'invalid_request_error' });
  });

  it('tools both ways: the same call as asked directly, and the result answered in a second turn', async () => {
    const question = user('What is the weather in Paris?');
    const anthropicTool: Anthropic.Tool = {
      name: 'get_weather',
      description: 'The weather in a city.',
      // An enum: the tiny model's free strings never close (random words until max_tokens), so a
      // free-text argument would leave every call cut off.
      input_schema: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'London', 'Tokyo'] } }, required: ['city'] },
    };
    const anthropicAsk = { ...GREEDY, max_tokens: 120, messages: question, tools: [anthropicTool], tool_choice: { type: 'any' as const } };
    const direct = await anthropic(upstream).messages.create({ ...anthropicAsk, model: 'tiny-chat' });
    const viaFront = await anthropic(front).messages.create({ ...anthropicAsk, model: 'up-openai' });
    const directUse = direct.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    const frontUse = viaFront.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use')!;
    expect(direct.stop_reason).toBe('tool_use');
    expect(directUse.input).toEqual({ city: expect.stringMatching(/^(Paris|London|Tokyo)$/) });
    expect(frontUse).toEqual({ type: 'tool_use', id: expect.any(String), name: directUse.name, input: directUse.input });
    expect(viaFront.stop_reason).toBe('tool_use');

    // Anthropic's tool_result goes to the OpenAI upstream as a `tool` message: the model reads the
    // same conversation as when asked directly, so it gives the same answer.
    const result = {
      ...GREEDY,
      max_tokens: 6,
      tools: [anthropicTool],
      tool_choice: { type: 'none' as const },
      messages: [...question, { role: 'assistant' as const, content: viaFront.content }, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: frontUse.id, content: 'Sunny, 21 °C.' }] }],
    };
    const secondTurn = await anthropic(front).messages.create({ ...result, model: 'up-openai' }).withResponse();
    expect(secondTurn.response.status).toBe(200);
    expect(secondTurn.data.content).toEqual([{ type: 'text', text: expect.stringMatching(/\S/) }]);
    const secondDirect = await anthropic(upstream).messages.create({ ...result, model: 'tiny-chat' });
    expect(secondTurn.data.content).toEqual(secondDirect.content);

    const openaiTool: OpenAI.ChatCompletionTool = { type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: anthropicTool.input_schema } };
    const openaiAsk = { max_tokens: 120, temperature: 0, messages: question, tools: [openaiTool], tool_choice: 'required' as const };
    const directCalls = (await openai(upstream).chat.completions.create({ ...openaiAsk, model: 'tiny-chat' })).choices[0]!;
    const frontCalls = (await openai(front).chat.completions.create({ ...openaiAsk, model: 'up-anthropic' })).choices[0]!;
    expect(directCalls.finish_reason).toBe('tool_calls');
    const functions = (choice: OpenAI.ChatCompletion.Choice) =>
      choice.message.tool_calls!.map((call) => (call.type === 'function' ? { name: call.function.name, arguments: JSON.parse(call.function.arguments) } : call));
    expect(functions(frontCalls)).toEqual(functions(directCalls));
    expect(frontCalls.finish_reason).toBe('tool_calls');

    // OpenAI's `tool` message goes to the Anthropic upstream as a tool_result block.
    const call = frontCalls.message.tool_calls![0]!;
    const followUp = {
      max_tokens: 6,
      temperature: 0,
      tools: [openaiTool],
      tool_choice: 'none' as const,
      messages: [...question, { role: 'assistant' as const, content: null, tool_calls: frontCalls.message.tool_calls! }, { role: 'tool' as const, tool_call_id: call.id, content: 'Sunny, 21 °C.' }],
    };
    const answered = await openai(front).chat.completions.create({ ...followUp, model: 'up-anthropic' }).withResponse();
    expect(answered.response.status).toBe(200);
    expect(answered.data.choices[0]!.message.content).toMatch(/\S/);
    const answeredDirect = await openai(upstream).chat.completions.create({ ...followUp, model: 'tiny-chat' });
    expect(answered.data.choices[0]!.message.content).toBe(answeredDirect.choices[0]!.message.content);
  });

  it('structured output both ways: OpenAI json_schema to an Anthropic upstream, and Anthropic output_config to an OpenAI one', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Rome', 'Oslo'] } }, required: ['city'], additionalProperties: false };
    const viaAnthropic = await openai(front).chat.completions.create({
      model: 'up-anthropic',
      max_tokens: 24,
      temperature: 0,
      messages: user('Pick a city.'),
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
    });
    expect(['Paris', 'Rome', 'Oslo']).toContain((JSON.parse(viaAnthropic.choices[0]!.message.content!) as { city: string }).city);

    const viaOpenAI = await anthropic(front).messages.create({
      model: 'up-openai',
      max_tokens: 24,
      messages: user('Pick a city.'),
      ...GREEDY,
      output_config: { format: { type: 'json_schema', schema } },
    } as Anthropic.MessageCreateParamsNonStreaming);
    const text = viaOpenAI.content.find((block) => block.type === 'text')!.text;
    expect(['Paris', 'Rome', 'Oslo']).toContain((JSON.parse(text) as { city: string }).city);
  });

  it('embeddings through the front equal the upstream’s, as floats and as base64', async () => {
    const input = ['the cat sleeps', 'a dog runs'];
    const direct = await openai(upstream).embeddings.create({ model: 'tiny-embed', input, encoding_format: 'float' });
    const { data, response } = await openai(front).embeddings.create({ model: 'up-embed', input, encoding_format: 'float' }).withResponse();
    expect(data.data.map((d) => d.embedding)).toEqual(direct.data.map((d) => d.embedding));
    expect(data.usage).toEqual(direct.usage);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('up-embed');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    // The SDK's default asks for base64 and decodes it: the bytes pass through unchanged.
    const decoded = await openai(front).embeddings.create({ model: 'up-embed', input });
    expect(decoded.data.map((d) => d.embedding)).toEqual(direct.data.map((d) => d.embedding.map(Math.fround)));
  });
});

describe('remote models: streams, aborts, errors, timeouts (scripted upstream)', () => {
  const PACED: UpstreamReply = { chunks: ['one', ' two', ' three', ' four', ' five'], chunkDelayMs: 300 };

  it('passes a paced stream on chunk by chunk (OpenAI client, same flavour)', async () => {
    scripted.reply = () => PACED;
    const stream = await openai(front).chat.completions.create({ model: 'scripted', stream: true, max_tokens: 10, messages: user('Go.') });
    const arrivals: { text: string; at: number }[] = [];
    for await (const chunk of stream) {
      const text = chunk.choices[0]?.delta.content;
      if (text) arrivals.push({ text, at: performance.now() });
    }
    expect(arrivals.map((a) => a.text)).toEqual(PACED.chunks);
    expectSpreadOut(arrivals, scripted.posts().at(-1)!.chunkSentAt);
  });

  it('passes a paced stream on chunk by chunk while translating it (Anthropic client → OpenAI upstream)', async () => {
    scripted.reply = () => PACED;
    const stream = await anthropic(front).messages.create({ model: 'scripted', stream: true, max_tokens: 10, messages: user('Go.') });
    const arrivals: { text: string; at: number }[] = [];
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') arrivals.push({ text: event.delta.text, at: performance.now() });
    }
    expect(arrivals.map((a) => a.text)).toEqual(PACED.chunks);
    expectSpreadOut(arrivals, scripted.posts().at(-1)!.chunkSentAt);
  });

  it.each([
    ['OpenAI client, passed through', 'openai'],
    ['Anthropic client, translated', 'anthropic'],
  ] as const)('a client that aborts mid-stream closes the upstream connection (%s)', async (_, flavour) => {
    scripted.reply = () => ({ chunks: Array.from({ length: 40 }, (_, i) => ` w${i}`), chunkDelayMs: 100 });
    const controller = new AbortController();
    const before = scripted.posts().length;
    // Both SDKs end a stream's loop quietly when its signal aborts; the count shows it ended early.
    let received = 0;
    if (flavour === 'openai') {
      const stream = await openai(front).chat.completions.create({ model: 'scripted', stream: true, max_tokens: 50, messages: user('Go.') }, { signal: controller.signal });
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content && ++received === 1) controller.abort();
    } else {
      const stream = await anthropic(front).messages.create({ model: 'scripted', stream: true, max_tokens: 50, messages: user('Go.') }, { signal: controller.signal });
      for await (const event of stream) if (event.type === 'content_block_delta' && ++received === 1) controller.abort();
    }
    expect(received).toBeGreaterThanOrEqual(1);
    expect(received).toBeLessThan(5);
    const posted = scripted.posts();
    expect(posted).toHaveLength(before + 1);
    const closed = await within(posted.at(-1)!.closed, 3000);
    expect(closed).toMatchObject({ early: true });
    // Forty chunks 100 ms apart would take 4 s: the upstream stopped sending well before.
    expect(posted.at(-1)!.chunkSentAt.length).toBeLessThan(20);
  });

  const VLLM_422 = { object: 'error', message: "This model's maximum context length is 2048 tokens. However, you requested 4096 tokens.", type: 'BadRequestError', param: null, code: 422 };
  const cases = [
    { status: 422, body: VLLM_422, said: VLLM_422.message, openaiClass: OpenAI.UnprocessableEntityError, anthropicClass: Anthropic.UnprocessableEntityError, anthropicType: 'invalid_request_error' },
    {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { message: 'Rate limit reached for requests.', type: 'rate_limit_error', code: 'rate_limit_exceeded' } },
      said: 'Rate limit reached for requests.',
      openaiClass: OpenAI.RateLimitError,
      anthropicClass: Anthropic.RateLimitError,
      anthropicType: 'rate_limit_error',
    },
    { status: 500, body: { error: { message: 'The model runner crashed.', type: 'server_error' } }, said: 'The model runner crashed.', openaiClass: OpenAI.InternalServerError, anthropicClass: Anthropic.InternalServerError, anthropicType: 'api_error' },
    {
      status: 503,
      body: '<html><head><title>503 Service Temporarily Unavailable</title></head><body><center>nginx</center></body></html>',
      said: '503 Service Temporarily Unavailable',
      openaiClass: OpenAI.InternalServerError,
      anthropicClass: Anthropic.ServiceUnavailableError,
      anthropicType: 'api_error',
    },
    {
      status: 529,
      // Node knows no reason phrase for 529 (it would send "unknown").
      statusText: 'Overloaded',
      body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      said: 'Overloaded',
      openaiClass: OpenAI.InternalServerError,
      anthropicClass: Anthropic.OverloadedError,
      anthropicType: 'overloaded_error',
    },
  ];

  it.each(cases)('an upstream $status reaches both SDKs as their $status error, with the upstream’s message', async (c) => {
    const statusText = c.statusText ?? { 422: 'Unprocessable Entity', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable' }[c.status];
    const expected = `The upstream ${scripted.url} answered ${c.status} ${statusText}: ${c.said}`;
    scripted.reply = () => ({ status: c.status, body: c.body, ...(c.statusText ? { statusText: c.statusText } : {}), ...(c.headers ? { headers: c.headers } : {}) });

    const oa = await caught(openai(front).chat.completions.create({ model: 'scripted', max_tokens: 5, messages: user('Hi.') }));
    expect(oa).toBeInstanceOf(c.openaiClass);
    expect(oa).toMatchObject({ status: c.status, message: `${c.status} ${expected}` });
    expect(oa.error).toMatchObject({ message: expected });
    expect(oa.headers.get('x-inpage-llm-upstream')).toBe(scripted.url);
    expect(oa.headers.get('retry-after')).toBe(c.headers?.['retry-after'] ?? null);
    if (c.status === 429) expect(oa).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error' });

    const an = await caught(anthropic(front).messages.create({ model: 'scripted', max_tokens: 5, messages: user('Hi.') }));
    expect(an).toBeInstanceOf(c.anthropicClass);
    expect(an.status).toBe(c.status);
    expect(an.error).toEqual({ type: 'error', error: { type: c.anthropicType, message: expected }, request_id: expect.stringMatching(/^req_/) });
    expect(an.headers.get('retry-after')).toBe(c.headers?.['retry-after'] ?? null);
  });

  it('answers 504 when the upstream sends no headers within timeoutMs', async () => {
    scripted.reply = () => ({ headersDelayMs: 2000 });
    const started = performance.now();
    const oa = await caught(openai(front).chat.completions.create({ model: 'slow-headers', max_tokens: 5, messages: user('Hi.') }));
    expect(performance.now() - started).toBeLessThan(1500);
    expect(oa).toBeInstanceOf(OpenAI.InternalServerError);
    expect(oa.status).toBe(504);
    expect(oa.error).toMatchObject({ message: `The upstream ${scripted.url} sent no response headers within 0.3 s.` });
    expect(oa.headers.get('x-should-retry')).toBe('false');
    const an = await caught(anthropic(front).messages.create({ model: 'slow-headers', max_tokens: 5, messages: user('Hi.') }));
    expect(an).toBeInstanceOf(Anthropic.GatewayTimeoutError);
    expect(an.status).toBe(504);
    expect(an.error).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
  });
});

describe('remote models: what the gateway does not pass on', () => {
  it('ends a passed-through stream that the upstream breaks off between events with an error event, not a network error', async () => {
    scripted.reply = () => ({ chunks: ['one', ' two', ' three'], chunkDelayMs: 50, cutAfter: 2 });
    const stream = await openai(front).chat.completions.create({ model: 'scripted', max_tokens: 5, stream: true, messages: user('Hi.') });
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('one two');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain(`The upstream ${scripted.url} broke off the stream`);
  });

  it('does not follow an upstream redirect, which would carry its key elsewhere', async () => {
    scripted.reply = () => ({ status: 307, headers: { location: `${scripted.url}/elsewhere` } });
    const before = scripted.requests.length;
    const oa = await caught(openai(front).chat.completions.create({ model: 'scripted', max_tokens: 5, messages: user('Hi.') }));
    expect(oa.status).toBe(502);
    expect(oa.error).toMatchObject({ message: expect.stringContaining(`The upstream ${scripted.url} answered 307`) });
    expect(scripted.requests.slice(before).map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  it('sends the config’s own Authorization header instead of the key’s, once', async () => {
    scripted.reply = () => ({ chunks: ['ok'] });
    await openai(front).chat.completions.create({ model: 'own-auth', max_tokens: 5, messages: user('Hi.') });
    const post = scripted.posts().at(-1)!;
    expect(post.headers.authorization).toBe('Bearer sk-from-headers');
    expect(post.headers['x-org']).toBe('org-1');
  });

  it('in a runtime that cuts late responses, gives up on the upstream first, with a 504 that says why and asks for no retry', async () => {
    scripted.reply = () => ({ headersDelayMs: 3000 });
    const gateway = createGateway({ engine: createNodeEngine({ localModelPath: dir, models: [{ engine: 'remote', id: 'patient', upstream: { baseURL: scripted.url } }] }) });
    const started = performance.now();
    const response = await gateway.fetch(
      new Request('http://app.local/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'patient', max_tokens: 5, messages: user('Hi.') }) }),
      { respondWithin: 2500 },
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(response.status).toBe(504);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/sent no response headers within 0\.\d s\. This runtime .* stream: true/);
  });

  it('does not name a fallback that a key limited to some models cannot use', async () => {
    const gateway = createGateway({ engine: createNodeEngine({ localModelPath: dir, models: [{ engine: 'remote', id: 'team', upstream: { baseURL: closedURL }, fallback: 'tiny-chat' }] }), apiKeys: [{ key: 'k-team', models: ['team'] }, 'k-all'] });
    const list = async (key: string) =>
      ((await (await gateway.fetch(new Request('http://app.local/v1/models', { headers: { authorization: `Bearer ${key}` } }))).json()) as { data: { id: string; fallback?: string }[] }).data;
    expect(await list('k-team')).toEqual([expect.not.objectContaining({ fallback: expect.anything() })]);
    expect((await list('k-all')).find((m) => m.id === 'team')!.fallback).toBe('tiny-chat');
  });
});

describe('remote models: unreachable upstreams, fallbacks, clusters', () => {
  it('moves a request past a URL that answers 503 (a proxy with its server down) and marks that URL down', async () => {
    scripted.reply = () => ({ status: 503, body: '<html><title>503 Service Temporarily Unavailable</title></html>' });
    const { response } = await openai(front).chat.completions.create({ model: 'proxied-pair', max_tokens: 4, messages: user('Hi.') }).withResponse();
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('proxied-pair');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    const listed = (await openai(front).models.list()).data as (OpenAI.Model & { remote?: { upstreams: { url: string; state: string; last_error?: string }[] } })[];
    expect(listed.find((m) => m.id === 'proxied-pair')!.remote!.upstreams[0]).toMatchObject({ url: scripted.url, state: 'down', last_error: 'answered 503 Service Unavailable' });
  });

  it('serves a model whose only URL answers 503 by its fallback', async () => {
    scripted.reply = () => ({ status: 503, body: { error: { message: 'no replicas ready' } } });
    const { response } = await openai(front).chat.completions.create({ model: 'proxied-or-local', max_tokens: 4, messages: user('Hi.') }).withResponse();
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('tiny-chat');
    expect(response.headers.get('x-inpage-llm-fallback-reason')).toBe('upstream_unreachable');
  });

  it('answers 502 naming the URL when the only upstream cannot be reached and there is no fallback', async () => {
    const oa = await caught(openai(front).chat.completions.create({ model: 'down-alone', max_tokens: 5, messages: user('Hi.') }));
    expect(oa.status).toBe(502);
    expect(oa.error).toMatchObject({ message: expect.stringContaining(`Could not reach the upstream ${closedURL}`) });
    expect(oa.message).toContain('ECONNREFUSED');
    const an = await caught(anthropic(front).messages.create({ model: 'down-alone', max_tokens: 5, messages: user('Hi.') }));
    expect(an.status).toBe(502);
    expect(an.error).toMatchObject({ type: 'error', error: { message: expect.stringContaining(closedURL) } });
  });

  it('serves an unreachable model by its fallback, and says so in the headers', async () => {
    const ask = { max_tokens: 6, temperature: 0, messages: user('Tell me about the forest.') };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    const { data, response } = await openai(front).chat.completions.create({ ...ask, model: 'down' }).withResponse();
    expect(data.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('tiny-chat');
    expect(response.headers.get('x-inpage-llm-fallback-from')).toBe('down');
    expect(response.headers.get('x-inpage-llm-fallback-reason')).toBe('upstream_unreachable');
    expect(response.headers.get('x-inpage-llm-upstream')).toBeNull();
  });

  it('moves a cluster’s request past a closed port to the next URL', async () => {
    const ask = { max_tokens: 6, temperature: 0, messages: user('Tell me about the stars.') };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    const { data, response } = await openai(front).chat.completions.create({ ...ask, model: 'cluster' }).withResponse();
    expect(data.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('cluster');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
    expect(response.headers.get('x-inpage-llm-fallback-from')).toBeNull();
  });

  it('serves a local model whose files are missing by its remote fallback', async () => {
    const ask = { max_tokens: 6, temperature: 0, messages: user('Tell me about the moon.') };
    const direct = await openai(upstream).chat.completions.create({ ...ask, model: 'tiny-chat' });
    const { data, response } = await openai(front).chat.completions.create({ ...ask, model: 'broken' }).withResponse();
    expect(data.choices[0]!.message.content).toBe(direct.choices[0]!.message.content);
    expect(response.headers.get('x-inpage-llm-served-by')).toBe('up-openai');
    expect(response.headers.get('x-inpage-llm-fallback-from')).toBe('broken');
    expect(response.headers.get('x-inpage-llm-fallback-reason')).toBe('model_unavailable');
    expect(response.headers.get('x-inpage-llm-upstream')).toBe(upstream.url);
  });
});

describe('remote models: credentials and the models list', () => {
  it('sends the configured key upstream, never the caller’s, in both flavours', async () => {
    scripted.reply = () => ({ chunks: ['ok'] });
    const before = scripted.requests.length;
    await openai(front).chat.completions.create({ model: 'scripted', max_tokens: 5, messages: user('Hi.') });
    await anthropic(front).messages.create({ model: 'scripted', max_tokens: 5, messages: user('Hi.') });
    const posts = scripted.requests.slice(before).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    for (const post of posts) {
      expect(post.headers.authorization).toBe(`Bearer ${SCRIPTED_KEY}`);
      expect(post.headers['x-api-key']).toBeUndefined();
      expect(post.body!.model).toBe('scripted-model');
    }
    // Probes included: nothing the scripted server was ever sent carries a caller's key.
    for (const request of scripted.requests) expect(JSON.stringify(request.headers)).not.toContain(CALLER_KEY);
  });

  it('lists remote models with their state and fallback, never their key', async () => {
    await openai(front).chat.completions.create({ model: 'up-openai', max_tokens: 2, messages: user('Hi.') });
    await caught(openai(front).chat.completions.create({ model: 'down-alone', max_tokens: 2, messages: user('Hi.') }));

    type Listed = OpenAI.Model & { remote?: { speaks: string[]; available: boolean; upstreams: { url: string; state: string; in_flight: number; last_error?: string }[] }; fallback?: string };
    const listed = (await openai(front).models.list()).data as Listed[];
    const byId = new Map(listed.map((m) => [m.id, m]));
    expect([...byId.keys()]).toEqual(expect.arrayContaining(['up-openai', 'up-anthropic', 'up-embed', 'scripted', 'slow-headers', 'down', 'down-alone', 'cluster', 'broken', 'tiny-chat']));
    expect(byId.get('up-openai')!.remote).toEqual({ speaks: ['openai'], available: true, upstreams: [{ url: upstream.url, state: 'up', in_flight: 0, checked_at: expect.any(String) }] });
    expect(byId.get('up-anthropic')!.remote).toMatchObject({ speaks: ['anthropic'], available: true });
    expect(byId.get('down-alone')!.remote).toEqual({
      speaks: ['openai'],
      available: false,
      upstreams: [{ url: closedURL, state: 'down', in_flight: 0, last_error: expect.stringContaining('ECONNREFUSED'), checked_at: expect.any(String) }],
    });
    expect(byId.get('cluster')!.remote).toMatchObject({ available: true, upstreams: [{ url: closedURL, state: 'down' }, { url: upstream.url, state: 'up' }] });
    expect(byId.get('down')!.fallback).toBe('tiny-chat');
    expect(byId.get('broken')!.fallback).toBe('up-openai');
    expect(byId.get('broken')!.remote).toBeUndefined();
    expect(byId.get('tiny-chat')!.remote).toBeUndefined();
    expect(byId.get('up-openai')!.fallback).toBeUndefined();

    // Both flavours' listings, and one model's own page: the key is in none of them.
    const pages = await Promise.all([
      fetch(`${front.url}/models`).then((r) => r.text()),
      fetch(`${front.url}/models`, { headers: { 'anthropic-version': '2023-06-01' } }).then((r) => r.text()),
      fetch(`${front.url}/models/scripted`).then((r) => r.text()),
    ]);
    for (const page of pages) {
      expect(page).toContain(scripted.url);
      expect(page).not.toContain(SCRIPTED_KEY);
    }
    expect(JSON.parse(pages[2]!)).toMatchObject({ id: 'scripted', remote: { speaks: ['openai'], available: true, upstreams: [{ url: scripted.url }] } });
  });
});

describe('remote models: what a llama.cpp server needs (the scripted upstream takes caps and stops as it does)', () => {
  it('/responses sends its cap as max_tokens, which such a server reads, and the answer is cut there', async () => {
    scripted.reply = () => ({ chunks: Array.from({ length: 30 }, (_, i) => ` w${i}`) });
    const response = await openai(front).responses.create({ model: 'scripted', input: 'Go on.', max_output_tokens: 20 });
    expect(scripted.posts().at(-1)!.body).toMatchObject({ max_tokens: 20 });
    expect(scripted.posts().at(-1)!.body).not.toHaveProperty('max_completion_tokens');
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { output_tokens: 20 } });
    expect(response.output_text.trim().split(' ')).toHaveLength(20);
  });

  it('Anthropic stop_sequences over an OpenAI server end with stop_sequence and the string that matched, whole and streamed', async () => {
    scripted.reply = () => ({ chunks: ['one', ' two', ' three', ' four', ' five'] });
    const ask = { model: 'scripted', max_tokens: 20, messages: user('Count.'), stop_sequences: ['nine', ' thr'] };
    const message = await anthropic(front).messages.create(ask);
    expect(message).toMatchObject({ content: [{ type: 'text', text: 'one two' }], stop_reason: 'stop_sequence', stop_sequence: ' thr' });
    // The server cannot say which string matched, so the gateway matches them itself: it streams, without them.
    const sent = scripted.posts().at(-1)!;
    expect(sent.body).toMatchObject({ stream: true, max_tokens: 20 });
    expect(sent.body).not.toHaveProperty('stop');
    const streamed = await anthropic(front).messages.stream(ask).finalMessage();
    expect(streamed).toMatchObject({ content: [{ type: 'text', text: 'one two' }], stop_reason: 'stop_sequence', stop_sequence: ' thr' });
    // With no string matched, an answer's own end is end_turn.
    const ended = await anthropic(front).messages.create({ ...ask, stop_sequences: ['nine'] });
    expect(ended).toMatchObject({ content: [{ type: 'text', text: 'one two three four five' }], stop_reason: 'end_turn', stop_sequence: null });
    // Callers whose API does not name the string still send it to the server, which stops there.
    await openai(front).responses.create({ model: 'scripted', input: 'Count.', stop: [' thr'] } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(scripted.posts().at(-1)!.body).toMatchObject({ stop: [' thr'] });
  });

  it('a translated Anthropic stream the server cuts off ends with an error that names the server', async () => {
    scripted.reply = () => ({ chunks: ['one', ' two', ' three'], chunkDelayMs: 50, cutAfter: 2 });
    const answer = await fetch(`${front.url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'scripted', max_tokens: 20, stream: true, messages: user('Go.') }),
    });
    const events = (await answer.text()).split('\n\n').filter(Boolean);
    const last = events.at(-1)!;
    expect(last.startsWith('event: error\n')).toBe(true);
    const error = JSON.parse(last.split('data: ')[1]!) as { type: string; error: { type: string; message: string } };
    expect(error).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining(`The upstream ${scripted.url} broke off the stream`) } });
    const failure = await caught(anthropic(front).messages.stream({ model: 'scripted', max_tokens: 20, messages: user('Go.') }).finalMessage());
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect(failure.message).toContain(`The upstream ${scripted.url} broke off the stream`);
  });
});

describe('remote models: the listing says what the server or the entry says, and makes nothing up', () => {
  type Listed = Record<string, unknown> & { id: string };
  const listing = async (headers: Record<string, string> = {}) => new Map(((await (await fetch(`${front.url}/models?limit=1000`, { headers })).json()) as { data: Listed[] }).data.map((m) => [m.id, m]));

  it('shows what the server lists of the model, what its entry sets, and nothing where neither says', async () => {
    const openaiList = await listing();
    // From the server's own GET /models (as vLLM lists a model).
    expect(openaiList.get('scripted')).toMatchObject({ created: 1_700_000_000, owned_by: 'scripted-org', context_window: 8192 });
    expect(openaiList.get('scripted')).not.toHaveProperty('max_output_tokens');
    // The entry's own figures come first.
    expect(openaiList.get('scripted-sized')).toMatchObject({ created: 1_700_000_000, owned_by: 'scripted-org', context_window: 4096, max_output_tokens: 512 });
    // Nothing to read: no created, no context window; owned by the server it runs on.
    const down = openaiList.get('down-alone')!;
    expect(down.owned_by).toBe(new URL(closedURL).host);
    expect(down).not.toHaveProperty('created');
    expect(down).not.toHaveProperty('context_window');
    expect(down).not.toHaveProperty('max_output_tokens');

    const anthropicList = await listing({ 'anthropic-version': '2023-06-01' });
    expect(anthropicList.get('scripted')).toMatchObject({ created_at: '2023-11-14T22:13:20Z', max_input_tokens: 8192, max_tokens: null, display_name: 'scripted' });
    expect(anthropicList.get('scripted-sized')).toMatchObject({ max_input_tokens: 4096, max_tokens: 512 });
    expect(anthropicList.get('down-alone')).toMatchObject({ max_input_tokens: null, max_tokens: null });
    expect(anthropicList.get('down-alone')).not.toHaveProperty('created_at');
    // Models on this device are listed as before.
    expect(openaiList.get('tiny-chat')).toMatchObject({ owned_by: 'local', created: expect.any(Number), context_window: expect.any(Number) });
  });
});

/** A URL on 127.0.0.1 where nothing listens: a port the system handed out, then closed. */
async function closedPortURL(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

/** The error a call rejects with; fails the test if it resolves. */
async function caught<T>(promise: PromiseLike<T>): Promise<Error & { status: number; error: unknown; headers: Headers; code?: unknown; type?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as never;
  }
  throw new Error('Expected the call to fail, but it succeeded.');
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`Not within ${ms} ms.`)), ms).unref())]);
}

/**
 * Arrivals that followed the upstream's writes: buffered, every chunk would arrive after the last
 * was written. Margins are wide (a slow machine may merge two chunks into one read).
 */
function expectSpreadOut(arrivals: readonly { at: number }[], sentAt: readonly number[]): void {
  expect(sentAt).toHaveLength(arrivals.length);
  const span = sentAt.at(-1)! - sentAt[0]!;
  expect(span).toBeGreaterThan(4 * 300 * 0.9);
  expect(arrivals[0]!.at - sentAt[0]!).toBeLessThan(span * 0.5);
  expect(arrivals[0]!.at).toBeLessThan(sentAt.at(-1)!);
  expect(arrivals.at(-1)!.at - arrivals[0]!.at).toBeGreaterThan(span * 0.5);
}

const textOf = (message: Anthropic.Message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
/** The whole prompt and the output: what came from a prefix cache counts apart in Anthropic's `input_tokens`. */
const tokens = (usage: Anthropic.Usage) => ({ input_tokens: usage.input_tokens + (usage.cache_read_input_tokens ?? 0), output_tokens: usage.output_tokens });
function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}
