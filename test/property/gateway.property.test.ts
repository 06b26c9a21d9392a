/**
 * Property-based robustness test: thousands of arbitrary and malformed requests thrown at the
 * gateway (scripted engine with fault injection; API keys absent and configured). Whatever comes
 * in, the gateway must answer promptly, with both request-id headers, an error body in exactly the
 * caller's flavour, and well-formed JSON or SSE on success, as docs/guides/api.md has them. The same holds
 * for `/responses` (a response object, or an event stream ending in response.completed,
 * response.incomplete or one error event) and `/messages/count_tokens`.
 *
 * Deterministic: every property has a fixed seed (override all with FC_SEED=<n>). On failure
 * fast-check prints the seed, the path and the shrunk counterexample.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine.ts';
import { createGateway, type Gateway } from '../../src/gateway/index.ts';
import { FAULTS, withFaults } from '../support/fault-engine.ts';
import { expectWellFormedEvents, parseResponsesSSE } from '../support/responses-events.ts';
import { ScriptedEngine } from '../support/scripted-engine.ts';
import { CONVERSATION, CONVERSATION_ITEM, endpointOf, expectedFlavour, PREVIOUS_ITEM, PREVIOUS_RESPONSE, requestArbitraries, stopsOf, toRequest, type BodySpec, type RequestSpec } from './requests.ts';

// ---------------------------------------------------------------------------------------------
// The gateways under test

const ANSWER_TOKENS = 6;
const MAX_BODY = 4096;
const KEYED_ORIGIN = 'https://llm.test';
const GOOD_KEYS = ['sk-good', 'sk-chat'] as const;
const MODEL_IDS = ['scripted-chat', 'scripted-embed', 'scripted-embed-fixed'];
const NATIVE_DIMENSIONS: Record<string, number> = { 'scripted-embed': 16, 'scripted-embed-fixed': 8 };
const DEFAULT_MAX_TOKENS = 256;

type GatewayName = 'open' | 'keyed';

/** Engine chat generations not yet closed. Requests run one at a time, so after each is read: 0. */
let openGenerations = 0;
/** The Anthropic version header of the request being checked (set by respond()). */
let currentVersion: string | null = null;

function tracked(engine: Engine): Engine {
  return {
    listModels: () => engine.listModels(),
    embed: (request, options) => engine.embed(request, options),
    async *chat(request, options) {
      openGenerations++;
      try {
        yield* engine.chat(request, options);
      } finally {
        openGenerations--;
      }
    },
  };
}

const GATEWAYS: Record<GatewayName, Gateway> = {
  // No keys, a path base: any origin, anyone.
  open: createGateway({ engine: tracked(withFaults(new ScriptedEngine({ answerTokens: ANSWER_TOKENS }))), baseUrl: '/v1', maxBodyBytes: MAX_BODY }),
  // Keys (one limited to the chat model) and an absolute base: one origin only.
  keyed: createGateway({
    engine: tracked(withFaults(new ScriptedEngine({ answerTokens: ANSWER_TOKENS }))),
    baseUrl: `${KEYED_ORIGIN}/v1`,
    apiKeys: ['sk-good', { key: 'sk-chat', models: ['scripted-chat'] }],
    maxBodyBytes: MAX_BODY,
  }),
};

const seedFor = (fallback: number) => (process.env.FC_SEED ? Number(process.env.FC_SEED) : fallback);

// ---------------------------------------------------------------------------------------------
// Requests (test/property/requests.ts), aimed at the scripted models and the fault markers

const { text, stopText, coherentRequest, chaosRequest, responsesRequest, countTokensRequest, responsesChaosRequest, conversationsRequest } = requestArbitraries({
  gateways: ['open', 'keyed'] satisfies GatewayName[],
  origin: KEYED_ORIGIN,
  otherOrigins: ['http://llm.test', 'https://other.test:8443'],
  chatModel: 'scripted-chat',
  wrongChatModels: ['scripted-embed', 'scripted-embed-fixed', 'nope', '', 'SCRIPTED-CHAT'],
  embedModels: ['scripted-embed', 'scripted-embed-fixed'],
  wrongEmbedModels: ['scripted-chat', 'nope', ''],
  modelIds: MODEL_IDS,
  specialTexts: [...Object.values(FAULTS), `please ${FAULTS.midstream}`],
  oversizeBody: { kind: 'json', value: { model: 'scripted-chat', messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY) }] } },
});

// ---------------------------------------------------------------------------------------------
// Oracles (independent of the gateway's own routing code)

/** The path after the base, or null when the request is outside the gateway's base. */
function relativePath(spec: RequestSpec, url: URL): string | null {
  if (spec.gateway === 'keyed' && url.origin !== KEYED_ORIGIN) return null;
  if (url.pathname === '/v1') return '';
  return url.pathname.startsWith('/v1/') ? url.pathname.slice(3) : null;
}

function faultInjected(spec: RequestSpec): boolean {
  if (spec.body.kind !== 'json') return false;
  const raw = JSON.stringify(spec.body.value) ?? '';
  return Object.values(FAULTS).some((marker) => raw.includes(marker));
}

/** The key the request presents to a flavour, exactly as a client would mean it. */
function presentedKey(headers: Headers, flavour: 'openai' | 'anthropic'): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '')?.[1]?.trim();
  return flavour === 'anthropic' ? headers.get('x-api-key')?.trim() || bearer : bearer;
}

const record = (value: unknown): Record<string, unknown> => {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value), `expected an object, got ${JSON.stringify(value)}`).toBe(true);
  return value as Record<string, unknown>;
};
const keys = (value: unknown) => Object.keys(record(value)).sort();
const isNatural = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
/** The body as the gateway read it: JSON values, and JSON text (odd bodies that no generator writes as values). */
function body(spec: RequestSpec): Record<string, unknown> {
  if (spec.body.kind === 'json') return record(spec.body.value);
  if (spec.body.kind === 'text' || spec.body.kind === 'padded') {
    try {
      const value: unknown = spec.body.kind === 'text' ? JSON.parse(spec.body.text) : spec.body.value;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not JSON: the request was refused before any oracle reads it.
    }
  }
  return {};
}

function requestedMaxTokens(b: Record<string, unknown>, anthropic: boolean): number {
  if (anthropic) return b.max_tokens as number;
  const v = b.max_completion_tokens ?? b.max_tokens;
  return typeof v === 'number' ? v : DEFAULT_MAX_TOKENS;
}

// ---------------------------------------------------------------------------------------------
// Checks

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms (hang)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const tally = new Map<string, number>();

async function check(generated: RequestSpec): Promise<void> {
  openGenerations = 0;
  await respond(withStoredIds(generated));
  // However the request ended, the engine was stopped once its response had been read.
  expect(openGenerations, 'engine generations left running').toBe(0);
}

/** The newest response each gateway stored, and an item of it: what the placeholders become. */
const stored: Partial<Record<GatewayName, { response: string; item: string }>> = {};

/** The newest conversation each gateway holds, and an item of it once one was seen. */
const conversations: Partial<Record<GatewayName, { id: string; item?: string }>> = {};

/** The request with the placeholders for a stored response and item replaced, where there is one. */
function withStoredIds(spec: RequestSpec): RequestSpec {
  const ids = stored[spec.gateway as GatewayName];
  const held = conversations[spec.gateway as GatewayName];
  if (!ids && !held) return spec;
  const swap = (text: string) => {
    let swapped = ids ? text.replaceAll(PREVIOUS_RESPONSE, ids.response).replaceAll(PREVIOUS_ITEM, ids.item) : text;
    if (held) swapped = swapped.replaceAll(CONVERSATION_ITEM, held.item ?? CONVERSATION_ITEM).replaceAll(CONVERSATION, held.id);
    return swapped;
  };
  const url = swap(spec.url);
  if (spec.body.kind !== 'json') return { ...spec, url };
  const json = JSON.stringify(spec.body.value);
  return { ...spec, url, body: { kind: 'json', value: json === undefined ? undefined : JSON.parse(swap(json)) } };
}

function remember(spec: RequestSpec, response: Record<string, unknown>): void {
  const request = body(spec);
  if (request.store === false) return;
  const output = response.output as { id: string }[];
  stored[spec.gateway as GatewayName] = { response: response.id as string, item: output[0]!.id };
  if (typeof request.previous_response_id === 'string') tally.set('responses chained', (tally.get('responses chained') ?? 0) + 1);
}

async function respond(spec: RequestSpec): Promise<void> {
  const request = toRequest(spec);
  const url = new URL(request.url);
  const headers = request.headers;
  const response = await within(GATEWAYS[spec.gateway as GatewayName].fetch(request), 5000, 'gateway.fetch');
  const { status } = response;
  tally.set(String(status), (tally.get(String(status)) ?? 0) + 1);

  expect(Number.isInteger(status) && status >= 200 && status <= 599, `status ${status}`).toBe(true);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toMatch(/^req_[0-9A-Za-z]+$/);
  expect(response.headers.get('request-id')).toBe(requestId);

  currentVersion = headers.get('anthropic-version') ?? headers.get('vendor-version');
  const rel = relativePath(spec, url);
  const flavour = expectedFlavour(rel, headers);
  const endpoint = endpointOf(rel, request.method);
  const lookup = storedLookupOf(rel, request.method);
  const conversationRoute = conversationRouteOf(rel, request.method);
  const tallied = endpoint === 'responses' || endpoint === 'count_tokens' || endpoint === 'input_tokens' ? endpoint : (lookup ?? (conversationRoute && `conversation ${conversationRoute}`));
  if (tallied) tally.set(`${tallied} ${status}`, (tally.get(`${tallied} ${status}`) ?? 0) + 1);

  // Server errors only where a fault was injected on purpose.
  if (status >= 500) expect(faultInjected(spec), `unexpected ${status} for a request without an injected fault`).toBe(true);

  if (status >= 400) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const retry = response.headers.get('x-should-retry');
    expect(retry === 'true' || retry === 'false', `x-should-retry ${retry}`).toBe(true);
    if (status < 500 && status !== 408 && status !== 409 && status !== 429) expect(retry).toBe('false');
    if (status === 429) expect(response.headers.get('retry-after')).not.toBeNull();
    if (status === 405) expect(response.headers.get('allow')).toMatch(/^(GET|POST|POST, GET, DELETE)$/);
    const text = await within(response.text(), 5000, 'error body');
    const parsed: unknown = JSON.parse(text);
    if (flavour === 'openai') {
      expect(keys(parsed)).toEqual(['error']);
      const error = record((parsed as { error: unknown }).error);
      expect(keys(error)).toEqual(['code', 'message', 'param', 'type']);
      expect(typeof error.message).toBe('string');
      expect(typeof error.type).toBe('string');
      expect(error.param === null || typeof error.param === 'string').toBe(true);
      expect(error.code === null || typeof error.code === 'string').toBe(true);
      if (endpoint === 'responses') expect(error.message, 'a missing value described as present').not.toContain('undefined');
    } else {
      expect(keys(parsed)).toEqual(['error', 'request_id', 'type']);
      const top = record(parsed);
      expect(top.type).toBe('error');
      expect(top.request_id).toBe(requestId);
      const error = record(top.error);
      expect(keys(error)).toEqual(['message', 'type']);
      expect(typeof error.message).toBe('string');
      expect(typeof error.type).toBe('string');
    }
    return;
  }

  if (status === 204) {
    expect(request.method).toBe('OPTIONS');
    expect(rel).not.toBeNull();
    return;
  }
  expect(status).toBe(200);
  expect(endpoint ?? lookup ?? conversationRoute, `200 for ${request.method} ${url.pathname}`).not.toBeNull();

  // With keys configured, success needs a configured key in a header the flavour reads.
  let scopedToChat = false;
  if (spec.gateway === 'keyed') {
    const key = presentedKey(headers, flavour);
    expect(GOOD_KEYS as readonly (string | undefined)[]).toContain(key);
    scopedToChat = key === 'sk-chat';
  }
  if (lookup) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return checkStoredLookup(lookup, record(JSON.parse(await within(response.text(), 5000, 'JSON body'))), spec, rel!);
  }
  if (conversationRoute) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    return checkConversationAnswer(conversationRoute, record(JSON.parse(await within(response.text(), 5000, 'JSON body'))), spec, rel!);
  }

  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    expect(endpoint === 'chat' || endpoint === 'messages' || endpoint === 'responses').toBe(true);
    expect(body(spec).stream).toBe(true);
    const wire = await within(response.text(), 5000, 'SSE body');
    if (endpoint === 'responses') return checkResponsesStream(wire, spec);
    expectValidChatRequest(body(spec), endpoint === 'messages');
    if (endpoint === 'chat') checkOpenAIStream(wire, body(spec));
    else checkAnthropicStream(wire, body(spec), requestId!);
    return;
  }
  expect(type).toMatch(/^application\/json/);
  const parsed: unknown = JSON.parse(await within(response.text(), 5000, 'JSON body'));
  switch (endpoint) {
    case 'chat':
      return checkChatCompletion(parsed, body(spec));
    case 'embeddings':
      return checkEmbeddings(parsed, body(spec));
    case 'messages':
      return checkMessage(parsed, body(spec));
    case 'responses':
      checkResponse(parsed, body(spec));
      tally.set('responses json', (tally.get('responses json') ?? 0) + 1);
      return remember(spec, record(parsed));
    case 'count_tokens':
      return checkTokenCount(parsed, body(spec));
    case 'input_tokens':
      expectValidResponsesRequest(body(spec));
      expect(keys(parsed)).toEqual(['input_tokens', 'object']);
      expect(record(parsed).object).toBe('response.input_tokens');
      expect(Number.isInteger(record(parsed).input_tokens) && (record(parsed).input_tokens as number) > 0).toBe(true);
      return;
    case 'models':
      return checkModelList(parsed, flavour, scopedToChat);
    case 'model':
      return checkModel(parsed, flavour, scopedToChat);
  }
}

const OPENAI_ROLES = ['system', 'developer', 'user', 'assistant'];
const ANTHROPIC_ROLES = ['system', 'user', 'assistant'];

/** A success implies the request was valid: a few necessary conditions, checked independently. */
function expectValidChatRequest(request: Record<string, unknown>, anthropic: boolean): void {
  expect(request.model).toBe('scripted-chat');
  const messages = request.messages as Record<string, unknown>[];
  expect(Array.isArray(messages) && messages.length > 0).toBe(true);
  for (const message of messages) expect(anthropic ? ANTHROPIC_ROLES : OPENAI_ROLES).toContain(message.role);
  const max = requestedMaxTokens(request, anthropic);
  expect(Number.isInteger(max) && max >= 1 && max <= DEFAULT_MAX_TOKENS, `max tokens ${max}`).toBe(true);
  for (const key of ['temperature', 'top_p', 'top_k']) {
    if (anthropic && request[key] !== undefined) expect(['2023-06-01', '2023-01-01']).toContain(currentVersion);
  }
}

function checkChatCompletion(parsed: unknown, request: Record<string, unknown>): void {
  expectValidChatRequest(request, false);
  expect(keys(parsed)).toEqual(['choices', 'created', 'id', 'model', 'object', 'usage']);
  const completion = record(parsed);
  expect(completion.object).toBe('chat.completion');
  expect(completion.id).toMatch(/^chatcmpl-/);
  expect(completion.model).toBe('scripted-chat');
  expect(Number.isInteger(completion.created)).toBe(true);
  const choices = completion.choices as unknown[];
  expect(choices).toHaveLength(1);
  const choice = record(choices[0]);
  expect(keys(choice)).toEqual(['finish_reason', 'index', 'logprobs', 'message']);
  expect(choice.index).toBe(0);
  expect(['stop', 'length']).toContain(choice.finish_reason);
  const message = record(choice.message);
  expect(message.role).toBe('assistant');
  expect(typeof message.content).toBe('string');
  for (const stop of stopsOf(request.stop)) expect(message.content as string).not.toContain(stop);
  const usage = record(completion.usage);
  expect(keys(usage)).toEqual(['completion_tokens', 'prompt_tokens', 'prompt_tokens_details', 'total_tokens']);
  expect(isNatural(usage.prompt_tokens) && isNatural(usage.completion_tokens)).toBe(true);
  const cached = record(usage.prompt_tokens_details).cached_tokens;
  expect(isNatural(cached) && (cached as number) <= (usage.prompt_tokens as number)).toBe(true);
  expect(usage.total_tokens).toBe((usage.prompt_tokens as number) + (usage.completion_tokens as number));
  expect(usage.completion_tokens as number).toBeLessThanOrEqual(requestedMaxTokens(request, false));
}

function checkEmbeddings(parsed: unknown, request: Record<string, unknown>): void {
  expect(keys(parsed)).toEqual(['data', 'model', 'object', 'usage']);
  const list = record(parsed);
  expect(list.object).toBe('list');
  expect(['scripted-embed', 'scripted-embed-fixed']).toContain(request.model);
  expect(request.input !== '' && !(Array.isArray(request.input) && request.input.length === 0)).toBe(true);
  const inputs = typeof request.input === 'string' ? 1 : (request.input as unknown[]).length;
  const data = list.data as unknown[];
  expect(data).toHaveLength(inputs);
  const length = typeof request.dimensions === 'number' ? request.dimensions : NATIVE_DIMENSIONS[list.model as string];
  data.forEach((item, i) => {
    expect(keys(item)).toEqual(['embedding', 'index', 'object']);
    const entry = record(item);
    expect(entry.object).toBe('embedding');
    expect(entry.index).toBe(i);
    if (request.encoding_format === 'base64') {
      expect(typeof entry.embedding).toBe('string');
      expect(atob(entry.embedding as string).length).toBe(4 * length!);
    } else {
      expect(Array.isArray(entry.embedding)).toBe(true);
      const vector = entry.embedding as unknown[];
      expect(vector).toHaveLength(length!);
      expect(vector.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true);
    }
  });
  const usage = record(list.usage);
  expect(usage.total_tokens).toBe(usage.prompt_tokens);
}

function checkMessage(parsed: unknown, request: Record<string, unknown>): void {
  expectValidChatRequest(request, true);
  expect(keys(parsed)).toEqual(['container', 'content', 'id', 'model', 'role', 'stop_details', 'stop_reason', 'stop_sequence', 'type', 'usage']);
  const message = record(parsed);
  expect(message.type).toBe('message');
  expect(message.role).toBe('assistant');
  expect(message.id).toMatch(/^msg_/);
  expect(['end_turn', 'max_tokens', 'stop_sequence']).toContain(message.stop_reason);
  const stops = stopsOf(request.stop_sequences);
  if (message.stop_reason === 'stop_sequence') expect(stops).toContain(message.stop_sequence);
  else expect(message.stop_sequence).toBeNull();
  const content = message.content as unknown[];
  expect(content).toHaveLength(1);
  const block = record(content[0]);
  expect(block.type).toBe('text');
  expect(typeof block.text).toBe('string');
  for (const stop of stops) expect(block.text as string).not.toContain(stop);
  const usage = record(message.usage);
  expect(isNatural(usage.input_tokens) && isNatural(usage.output_tokens)).toBe(true);
  expect(usage.output_tokens as number).toBeLessThanOrEqual(requestedMaxTokens(request, true));
}

function checkModel(parsed: unknown, flavour: 'openai' | 'anthropic', scopedToChat: boolean): void {
  const model = record(parsed);
  expect(MODEL_IDS).toContain(model.id);
  if (scopedToChat) expect(model.id).toBe('scripted-chat');
  if (flavour === 'openai') {
    expect(model.object).toBe('model');
    expect(Number.isInteger(model.created)).toBe(true);
    expect(typeof model.owned_by).toBe('string');
  } else {
    expect(model.type).toBe('model');
    expect(typeof model.display_name).toBe('string');
    expect(Number.isFinite(Date.parse(model.created_at as string))).toBe(true);
  }
}

function checkModelList(parsed: unknown, flavour: 'openai' | 'anthropic', scopedToChat: boolean): void {
  if (flavour === 'openai') {
    expect(keys(parsed)).toEqual(['data', 'object']);
    expect(record(parsed).object).toBe('list');
  } else {
    expect(keys(parsed)).toEqual(['data', 'first_id', 'has_more', 'last_id']);
  }
  const page = record(parsed);
  const data = page.data as unknown[];
  expect(Array.isArray(data)).toBe(true);
  for (const model of data) checkModel(model, flavour, scopedToChat);
  if (flavour === 'anthropic') {
    expect(typeof page.has_more).toBe('boolean');
    expect(page.first_id).toBe(data.length ? record(data[0]).id : null);
    expect(page.last_id).toBe(data.length ? record(data.at(-1)).id : null);
  }
}

/** The Responses parameters this server takes (the real API's, less what needs hosted tools or reasoning). */
const RESPONSES_PARAMETERS = new Set([
  'model', 'input', 'instructions', 'max_output_tokens', 'temperature', 'top_p', 'stop', 'seed', 'metadata', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'stream',
  'store', 'previous_response_id', 'include', 'truncation', 'reasoning', 'top_logprobs', 'user', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention',
  'prompt_cache_options', 'service_tier', 'stream_options', 'background', 'conversation', 'prompt', 'context_management', 'max_tool_calls',
]);

/** A success implies the request was valid: necessary conditions, checked independently. */
function expectValidResponsesRequest(request: Record<string, unknown>): void {
  expect(request.model).toBe('scripted-chat');
  for (const key of Object.keys(request)) expect(RESPONSES_PARAMETERS, `parameter ${key}`).toContain(key);
  const max = request.max_output_tokens;
  if (max !== undefined && max !== null) expect(Number.isInteger(max) && (max as number) >= 16 && (max as number) <= DEFAULT_MAX_TOKENS, `max_output_tokens ${String(max)}`).toBe(true);
  expect([undefined, null, false]).toContain(request.background);
  expect(request.include === undefined || request.include === null || (Array.isArray(request.include) && request.include.length === 0)).toBe(true);
  expect([undefined, null, 'disabled']).toContain(request.truncation);
  expect(request.tools === undefined || request.tools === null || (Array.isArray(request.tools) && request.tools.length === 0), 'the scripted model has no tools').toBe(true);
  const input = request.input;
  expect(typeof input === 'string' || (Array.isArray(input) && input.length > 0) || typeof request.previous_response_id === 'string' || request.conversation !== undefined).toBe(true);
  // One history or the other, never both (the real API's 400).
  expect(request.previous_response_id === undefined || request.previous_response_id === null || request.conversation === undefined || request.conversation === null).toBe(true);
}

const RESPONSE_KEYS = [
  'background', 'completed_at', 'created_at', 'error', 'id', 'incomplete_details', 'instructions', 'max_output_tokens', 'metadata', 'model', 'object', 'output', 'parallel_tool_calls',
  'previous_response_id', 'prompt_cache_key', 'reasoning', 'safety_identifier', 'service_tier', 'status', 'store', 'temperature', 'text', 'tool_choice', 'tools', 'top_p', 'truncation', 'usage', 'user',
];

/** A response object as `POST /responses` returns it (and `response.completed` carries it). */
function checkResponse(parsed: unknown, request: Record<string, unknown>): void {
  expectValidResponsesRequest(request);
  const inConversation = request.conversation !== undefined && request.conversation !== null;
  expect(keys(parsed)).toEqual(inConversation ? [...RESPONSE_KEYS, 'conversation'].sort() : RESPONSE_KEYS);
  const response = record(parsed);
  if (inConversation) {
    expect(response.conversation).toEqual({ id: typeof request.conversation === 'string' ? request.conversation : (request.conversation as { id: string }).id });
    tally.set('responses conversation', (tally.get('responses conversation') ?? 0) + 1);
  }
  expect(response.object).toBe('response');
  expect(response.id).toMatch(/^resp_[0-9A-Za-z]+$/);
  expect(response.model).toBe('scripted-chat');
  expect(Number.isInteger(response.created_at) && Number.isInteger(response.completed_at)).toBe(true);
  expect(response.error).toBeNull();
  expect(['completed', 'incomplete']).toContain(response.status);
  expect(response.incomplete_details).toEqual(response.status === 'incomplete' ? { reason: 'max_output_tokens' } : null);
  expect(response.store).toBe(request.store ?? true);
  expect(response.previous_response_id).toBe(request.previous_response_id ?? null);
  expect(response.instructions).toBe(request.instructions ?? null);
  expect(response.max_output_tokens).toBe(request.max_output_tokens ?? null);
  expect(response.metadata).toEqual(request.metadata ?? {});
  const output = response.output as unknown[];
  expect(Array.isArray(output) && output.length === 1, 'one message: the scripted model calls no tools').toBe(true);
  const item = record(output[0]);
  expect(keys(item)).toEqual(['content', 'id', 'role', 'status', 'type']);
  expect(item).toMatchObject({ type: 'message', role: 'assistant', status: response.status });
  expect(item.id).toMatch(/^msg_/);
  const content = item.content as unknown[];
  expect(content).toHaveLength(1);
  expect(keys(content[0])).toEqual(['annotations', 'logprobs', 'text', 'type']);
  const part = record(content[0]);
  expect(part.type).toBe('output_text');
  expect(typeof part.text).toBe('string');
  for (const stop of stopsOf(request.stop)) expect(part.text as string).not.toContain(stop);
  const usage = record(response.usage);
  expect(keys(usage)).toEqual(['input_tokens', 'input_tokens_details', 'output_tokens', 'output_tokens_details', 'total_tokens']);
  expect((usage.input_tokens as number) > 0 && isNatural(usage.output_tokens)).toBe(true);
  expect(usage.total_tokens).toBe((usage.input_tokens as number) + (usage.output_tokens as number));
  expect(usage.output_tokens as number).toBeLessThanOrEqual(typeof request.max_output_tokens === 'number' ? request.max_output_tokens : DEFAULT_MAX_TOKENS);
}

/** The event stream: well formed (test/support/responses-events.ts); its final response as the JSON one; an error event only where a fault was injected. */
function checkResponsesStream(wire: string, spec: RequestSpec): void {
  const final = expectWellFormedEvents(parseResponsesSSE(wire));
  if (!final) {
    expect(faultInjected(spec), 'an error event without an injected fault').toBe(true);
    tally.set('responses stream error', (tally.get('responses stream error') ?? 0) + 1);
    return;
  }
  checkResponse(final, body(spec));
  tally.set('responses stream', (tally.get('responses stream') ?? 0) + 1);
  remember(spec, final);
}

function checkTokenCount(parsed: unknown, request: Record<string, unknown>): void {
  expect(request.model).toBe('scripted-chat');
  expect(Array.isArray(request.messages) && request.messages.length > 0).toBe(true);
  expect(keys(parsed)).toEqual(['input_tokens']);
  const count = record(parsed).input_tokens;
  expect(Number.isInteger(count) && (count as number) > 0, `input_tokens ${String(count)}`).toBe(true);
}

type ConversationRoute = 'create' | 'retrieve' | 'update' | 'delete' | 'items' | 'add_items' | 'item' | 'delete_item';

/** A route of the Conversations API, by the API reference, or null for none. */
function conversationRouteOf(rel: string | null, method: string): ConversationRoute | null {
  if (rel === null) return null;
  if (method === 'POST' && /^\/conversations\/?$/.test(rel)) return 'create';
  const match = /^\/conversations\/([^/]+)(?:\/(items)(?:\/([^/]+))?)?$/.exec(rel);
  if (!match) return null;
  const [, , items, item] = match;
  const byMethod: Readonly<Record<string, ConversationRoute>> = !items ? { GET: 'retrieve', POST: 'update', DELETE: 'delete' } : !item ? { GET: 'items', POST: 'add_items' } : { GET: 'item', DELETE: 'delete_item' };
  return Object.hasOwn(byMethod, method) ? byMethod[method]! : null;
}

const CONVERSATION_KEYS = ['created_at', 'id', 'metadata', 'object'];
const ITEM_TYPES = ['message', 'function_call', 'function_call_output'];

/** A Conversations API answer in the shapes openai 7 types; the conversation and an item remembered for the placeholders. */
function checkConversationAnswer(route: ConversationRoute, parsed: Record<string, unknown>, spec: RequestSpec, rel: string): void {
  const gateway = spec.gateway as GatewayName;
  const id = decodeURIComponent(rel.split('/')[2] ?? '');
  const item = (value: unknown) => {
    const entry = record(value);
    expect(ITEM_TYPES).toContain(entry.type);
    expect(entry.id).toMatch(/^(msg|fc|fco)_/);
    return entry;
  };
  const list = () => {
    expect(keys(parsed)).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object']);
    expect(parsed.object).toBe('list');
    const data = (parsed.data as unknown[]).map(item);
    expect(parsed.first_id).toBe(data[0]?.id ?? null);
    expect(parsed.last_id).toBe(data.at(-1)?.id ?? null);
    expect(typeof parsed.has_more).toBe('boolean');
    const held = conversations[gateway];
    if (held && data.length > 0) held.item = data[0]!.id as string;
    return data;
  };
  switch (route) {
    case 'create':
    case 'retrieve':
    case 'update':
    case 'delete_item':
      expect(keys(parsed)).toEqual(CONVERSATION_KEYS);
      expect(parsed.object).toBe('conversation');
      expect(parsed.id).toMatch(/^conv_/);
      if (route !== 'create') expect(parsed.id).toBe(id);
      if (route === 'create') conversations[gateway] = { id: parsed.id as string };
      break;
    case 'delete':
      expect(parsed).toEqual({ id, object: 'conversation.deleted', deleted: true });
      if (conversations[gateway]?.id === id) delete conversations[gateway];
      break;
    case 'items':
      list();
      break;
    case 'add_items':
      expect(list().length).toBe((body(spec).items as unknown[]).length);
      break;
    case 'item':
      expect(item(parsed).id).toBe(decodeURIComponent(rel.split('/')[4]!));
      break;
  }
  tally.set(`conversation ${route} 200`, (tally.get(`conversation ${route} 200`) ?? 0) + 1);
}

type StoredLookup = 'retrieve' | 'input_items' | 'delete';

/** A stored response's own URLs: `GET /responses/{id}`, `GET /responses/{id}/input_items`, `DELETE /responses/{id}`. */
function storedLookupOf(rel: string | null, method: string): StoredLookup | null {
  const match = rel === null ? null : /^\/responses\/([^/]+)(\/input_items)?$/.exec(rel);
  if (!match) return null;
  if (method === 'GET') return match[2] ? 'input_items' : 'retrieve';
  return method === 'DELETE' && !match[2] ? 'delete' : null;
}

/** Only a stored response's URLs answer 200: the placeholder replaced by the id of one the gateway holds. */
function checkStoredLookup(lookup: StoredLookup, parsed: Record<string, unknown>, spec: RequestSpec, rel: string): void {
  const id = decodeURIComponent(rel.split('/')[2]!);
  const gateway = spec.gateway as GatewayName;
  expect(id).toMatch(/^resp_/);
  if (lookup === 'retrieve') {
    expect(keys(parsed)).toEqual(RESPONSE_KEYS);
    expect(parsed.id).toBe(id);
  } else if (lookup === 'input_items') {
    expect(keys(parsed)).toEqual(['data', 'first_id', 'has_more', 'last_id', 'object']);
    expect(parsed.object).toBe('list');
    const data = parsed.data as Record<string, unknown>[];
    expect(Array.isArray(data)).toBe(true);
    for (const item of data) expect(['message', 'function_call', 'function_call_output']).toContain(item.type);
    expect(parsed.first_id).toBe(data[0]?.id ?? null);
    expect(parsed.last_id).toBe(data.at(-1)?.id ?? null);
  } else {
    expect(parsed).toEqual({ id, object: 'response', deleted: true });
    if (stored[gateway]?.response === id) delete stored[gateway];
  }
}

/** Splits an SSE body on blank lines; the body must end with one. */
function sseBlocks(wire: string): string[][] {
  expect(wire.endsWith('\n\n'), 'SSE body ends with a blank line').toBe(true);
  expect(wire.includes('\r')).toBe(false);
  return wire
    .slice(0, -2)
    .split('\n\n')
    .map((block) => block.split('\n'));
}

function checkOpenAIStream(wire: string, request: Record<string, unknown>): void {
  const blocks = sseBlocks(wire);
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  for (const lines of blocks) {
    expect(lines, 'one data: line per event').toHaveLength(1);
    expect(lines[0]!.startsWith('data: ')).toBe(true);
  }
  const data = blocks.map((lines) => lines[0]!.slice(6));
  const last = data.at(-1)!;
  const chunks = (last === '[DONE]' ? data.slice(0, -1) : data).map((d) => record(JSON.parse(d)));
  if (last !== '[DONE]') {
    // Ended by an in-band error instead.
    const error = chunks.pop()!;
    expect(keys(error)).toEqual(['error', 'usage']);
    expect(keys(error.error)).toEqual(['code', 'message', 'param', 'type']);
    // The usage so far: the prompt, and no more tokens than were asked for.
    const usage = record(error.usage);
    expect(usage.prompt_tokens as number).toBeGreaterThan(0);
    expect(usage.completion_tokens as number).toBeLessThanOrEqual(requestedMaxTokens(request, false));
    expect(usage.total_tokens).toBe((usage.prompt_tokens as number) + (usage.completion_tokens as number));
  }
  expect(chunks.length).toBeGreaterThanOrEqual(1);
  const first = chunks[0]!;
  expect((first.choices as { delta: unknown }[])[0]!.delta).toEqual({ role: 'assistant', content: '' });
  const includeUsage = typeof request.stream_options === 'object' && request.stream_options !== null && (request.stream_options as Record<string, unknown>).include_usage === true;
  let finished = false;
  let content = '';
  chunks.forEach((chunk, i) => {
    expect(chunk.object).toBe('chat.completion.chunk');
    expect(chunk.id).toBe(first.id);
    expect(chunk.created).toBe(first.created);
    expect('usage' in chunk).toBe(includeUsage);
    const choices = chunk.choices as Record<string, unknown>[];
    if (choices.length === 0) {
      // The usage chunk: last, and only when asked for.
      expect(includeUsage && finished && i === chunks.length - 1).toBe(true);
      const usage = record(chunk.usage);
      expect(usage.total_tokens).toBe((usage.prompt_tokens as number) + (usage.completion_tokens as number));
      return;
    }
    if (includeUsage) expect(chunk.usage).toBeNull();
    expect(choices).toHaveLength(1);
    expect(finished, 'no choice chunk after the finish chunk').toBe(false);
    const delta = record(choices[0]!.delta);
    if (typeof delta.content === 'string') content += delta.content;
    if (choices[0]!.finish_reason !== null) {
      expect(['stop', 'length']).toContain(choices[0]!.finish_reason);
      finished = true;
    }
  });
  if (last === '[DONE]') expect(finished).toBe(true);
  for (const stop of stopsOf(request.stop)) expect(content).not.toContain(stop);
}

function checkAnthropicStream(wire: string, request: Record<string, unknown>, requestId: string): void {
  const blocks = sseBlocks(wire);
  const events = blocks.map((lines) => {
    expect(lines, 'event: and data: lines').toHaveLength(2);
    expect(lines[0]!.startsWith('event: ')).toBe(true);
    expect(lines[1]!.startsWith('data: ')).toBe(true);
    const name = lines[0]!.slice(7);
    const data = record(JSON.parse(lines[1]!.slice(6)));
    expect(data.type).toBe(name);
    return data;
  });
  expect(events[0]!.type).toBe('message_start');
  expect(record(events[0]!.message).content).toEqual([]);
  const last = events.at(-1)!;
  expect(['message_stop', 'error']).toContain(last.type);
  if (last.type === 'error') {
    expect(keys(last)).toEqual(['error', 'request_id', 'type', 'usage']);
    expect(last.request_id).toBe(requestId);
    expect(keys(last.error)).toEqual(['message', 'type']);
    // The usage so far; input_tokens as message_start reported it.
    const usage = record(last.usage);
    expect(usage.input_tokens).toBe(record(record(events[0]!.message).usage).input_tokens);
    expect(usage.output_tokens as number).toBeLessThanOrEqual(requestedMaxTokens(request, true));
  }
  expect(events.filter((e) => e.type === 'message_start')).toHaveLength(1);
  expect(events.slice(0, -1).some((e) => e.type === 'message_stop' || e.type === 'error')).toBe(false);
  let text = '';
  for (const e of events) {
    if (e.type === 'content_block_delta') text += record(e.delta).text as string;
    if (e.type === 'message_delta') expect(record(e.usage).output_tokens as number).toBeLessThanOrEqual(requestedMaxTokens(request, true));
  }
  if (last.type === 'message_stop') {
    const order = events.map((e) => e.type).filter((t) => t !== 'ping').join(' ');
    expect(order).toMatch(/^message_start content_block_start( content_block_delta)* content_block_stop message_delta message_stop$/);
  }
  for (const stop of stopsOf(request.stop_sequences)) expect(text).not.toContain(stop);
}

// ---------------------------------------------------------------------------------------------

// ---- streams abandoned by the client

const streamingRequest: fc.Arbitrary<RequestSpec> = fc.oneof(
  fc.record({
    gateway: fc.constant<GatewayName>('open'),
    method: fc.constant('POST'),
    url: fc.constant(`${KEYED_ORIGIN}/v1/chat/completions`),
    headers: fc.constant({ 'content-type': 'application/json' }),
    body: fc
      .record({ messages: fc.array(fc.record({ role: fc.constantFrom('user', 'system'), content: text }), { minLength: 1, maxLength: 2 }), max_tokens: fc.integer({ min: 1, max: 12 }), stop: fc.array(stopText, { maxLength: 2 }), usage: fc.boolean() })
      .map(({ usage, ...rest }): BodySpec => ({ kind: 'json', value: { model: 'scripted-chat', stream: true, stream_options: { include_usage: usage }, ...rest } })),
  }),
  fc.record({
    gateway: fc.constant<GatewayName>('open'),
    method: fc.constant('POST'),
    url: fc.constant(`${KEYED_ORIGIN}/v1/messages`),
    headers: fc.constant({ 'content-type': 'application/json', 'anthropic-version': '2026-10-21' }),
    body: fc
      .record({ messages: fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }), { minLength: 1, maxLength: 2 }), max_tokens: fc.integer({ min: 1, max: 12 }), stop_sequences: fc.array(stopText, { maxLength: 2 }) })
      .map((rest): BodySpec => ({ kind: 'json', value: { model: 'scripted-chat', stream: true, ...rest } })),
  }),
);

const responsesStreamingRequest: fc.Arbitrary<RequestSpec> = fc.record({
  gateway: fc.constant<GatewayName>('open'),
  method: fc.constant('POST'),
  url: fc.constant(`${KEYED_ORIGIN}/v1/responses`),
  headers: fc.constant({ 'content-type': 'application/json' }),
  body: fc
    .record({ input: fc.oneof(text, fc.array(fc.record({ role: fc.constantFrom('user', 'developer'), content: text }), { minLength: 1, maxLength: 2 })), max_output_tokens: fc.integer({ min: 16, max: 24 }), store: fc.boolean() })
    .map((rest): BodySpec => ({ kind: 'json', value: { model: 'scripted-chat', stream: true, ...rest } })),
});

/** Reads `chunks` pieces of a stream, then cancels it, as a client that breaks out of its loop. */
async function abandon(spec: RequestSpec, chunks: number): Promise<void> {
  openGenerations = 0;
  const response = await within(GATEWAYS[spec.gateway as GatewayName].fetch(toRequest(spec)), 5000, 'gateway.fetch');
  if (response.status !== 200) {
    // Faults and over-long prompts fail before the stream starts; nothing may be left running.
    await response.text();
    expect(openGenerations).toBe(0);
    return;
  }
  const reader = response.body!.getReader();
  for (let i = 0; i < chunks; i++) if ((await within(reader.read(), 5000, 'stream read')).done) break;
  await within(reader.cancel(), 5000, 'stream cancel');
  for (let i = 0; i < 50 && openGenerations > 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(openGenerations, `engine generations left running after cancelling at chunk ${chunks}`).toBe(0);
}

describe('gateway under arbitrary requests', () => {
  it('answers requests aimed at real endpoints (plausible, mutated, malformed) correctly', async () => {
    await fc.assert(fc.asyncProperty(coherentRequest, check), { seed: seedFor(0x1f8df619), numRuns: 3000 });
  }, 120_000);

  it('answers anything at all (any method, path, header and body) without hanging or a 5xx', async () => {
    await fc.assert(fc.asyncProperty(chaosRequest, check), { seed: seedFor(0x5eed2026), numRuns: 2000 });
  }, 120_000);

  it('stops the engine whenever a client abandons a stream, at any point', async () => {
    await fc.assert(fc.asyncProperty(streamingRequest, fc.nat(8), abandon), { seed: seedFor(0xab4d0), numRuns: 500 });
  }, 120_000);

  it('answers /responses bodies (valid, chained, malformed, unknown items and parameters) as a response, a well-formed event stream or an error', async () => {
    await fc.assert(fc.asyncProperty(responsesRequest, check), { seed: seedFor(0x7e5b0d1e), numRuns: 1500 });
  }, 120_000);

  it('answers /messages/count_tokens bodies with a count or an Anthropic error', async () => {
    await fc.assert(fc.asyncProperty(countTokensRequest, check), { seed: seedFor(0xc0dec0de), numRuns: 500 });
  }, 120_000);

  it('answers anything under /responses (any method, stored ids, sub-paths, bodies) without hanging or a 5xx', async () => {
    await fc.assert(fc.asyncProperty(responsesChaosRequest, check), { seed: seedFor(0x5eedbeef), numRuns: 800 });
  }, 120_000);

  it('answers anything under /conversations and at /responses/input_tokens (ids, sub-paths, queries, bodies) as the API does', async () => {
    await fc.assert(fc.asyncProperty(conversationsRequest, check), { seed: seedFor(0xc0471), numRuns: 800 });
  }, 120_000);

  it('stops the engine whenever a client abandons a /responses stream, at any point', async () => {
    await fc.assert(fc.asyncProperty(responsesStreamingRequest, fc.nat(14), abandon), { seed: seedFor(0xab4d1), numRuns: 300 });
  }, 120_000);

  it('produced a useful mix of outcomes', () => {
    // Guards the generators themselves: a property that only ever sees 400s proves little.
    if (process.env.FC_TALLY) console.log(Object.fromEntries([...tally].sort()));
    const count = (status: string) => tally.get(status) ?? 0;
    expect(count('200')).toBeGreaterThan(800);
    for (const status of ['400', '401', '404', '405', '413', '429', '500', '503']) expect(count(status), `responses with ${status}`).toBeGreaterThan(0);
    // /responses: JSON and streamed successes, chains through stored responses, each kind of failure.
    expect(count('responses json')).toBeGreaterThan(100);
    expect(count('responses stream')).toBeGreaterThan(50);
    expect(count('responses chained')).toBeGreaterThan(20);
    for (const outcome of ['responses stream error', 'responses 400', 'responses 404', 'responses 413', 'responses 429', 'responses 503', 'count_tokens 200', 'count_tokens 400', 'retrieve 200', 'input_items 200', 'delete 200']) {
      expect(count(outcome), outcome).toBeGreaterThan(0);
    }
    // Conversations: each route answered, responses in a conversation, exact counts.
    for (const outcome of ['input_tokens 200', 'input_tokens 400', 'responses conversation', ...['create', 'retrieve', 'update', 'delete', 'items', 'add_items', 'item', 'delete_item'].map((route) => `conversation ${route} 200`), 'conversation retrieve 404']) {
      expect(count(outcome), outcome).toBeGreaterThan(0);
    }
  });
});
