/**
 * Checks of one API answer as a browser received it (status, headers, body text), for the fuzz and
 * soak runs: each returns the problems it finds instead of throwing, so a run counts every bad
 * answer and prints the first few with their requests. The wire rules are the real APIs', as
 * docs/guides/api.md has them.
 */
import { endpointOf, expectedFlavour, stopsOf, type RequestSpec } from '../test/property/requests.ts';

/** What the page saw: an answer, a network error, or nothing within the time limit (a hang). */
export type Outcome =
  | { readonly kind: 'answered'; readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: string; readonly ms: number }
  | { readonly kind: 'network-error'; readonly message: string; readonly ms: number }
  | { readonly kind: 'hang'; readonly ms: number };

/** What the runtime under test serves. */
export interface Served {
  /** The base path (any origin: the runtime is started with a path base). */
  readonly basePath: string;
  readonly origin: string;
  readonly chatModel: string;
  /** Native vector length of each embedding model that can answer. */
  readonly embedDimensions: Readonly<Record<string, number>>;
  readonly modelIds: readonly string[];
  /** The chat model's output limit, which is also the default max tokens. */
  readonly maxOutputTokens: number;
}

/** Statuses the API may answer a lone request with when no fault is injected (no queue, no outage). */
export const EXPECTED_STATUSES = new Set([200, 204, 400, 401, 404, 405, 413]);

const STANDARD_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];

/** The method as `fetch` sends it: the six standard names are upper-cased, any other token is kept. */
export function normalizeMethod(method: string): string {
  return STANDARD_METHODS.includes(method.toUpperCase()) ? method.toUpperCase() : method;
}

/** The path after the base, or null when the URL is outside it. */
export function pathUnderBase(url: URL, basePath: string): string | null {
  if (url.pathname === basePath) return '';
  return url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const keysOf = (v: Obj) => Object.keys(v).sort().join(',');
const isNatural = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Every problem with the answer to `spec`; an empty list means the answer is right. */
export function checkAnswer(spec: RequestSpec, outcome: Outcome, served: Served): string[] {
  const url = new URL(spec.url);
  const method = normalizeMethod(spec.method);
  const rel = pathUnderBase(url, served.basePath);
  if (outcome.kind === 'hang') return [`no answer within ${outcome.ms} ms (hang)`];
  if (rel === null) {
    // Outside the base the request passes through: the server's answer, or a network error for a host that does not exist.
    if (outcome.kind === 'network-error') return url.origin === served.origin ? [`same-origin request outside the API failed: ${outcome.message}`] : [];
    return outcome.headers['x-request-id'] ? ['a request outside the base URL was answered by the API'] : [];
  }
  if (outcome.kind === 'network-error') return [`network error instead of an answer: ${outcome.message}`];

  const problems: string[] = [];
  const fail = (message: string) => problems.push(message);
  const { status, headers, body } = outcome;
  const requestId = headers['x-request-id'];
  if (!requestId || !/^req_[0-9A-Za-z]+$/.test(requestId)) fail(`x-request-id ${requestId}`);
  if (headers['request-id'] !== requestId) fail(`request-id ${headers['request-id']} differs from x-request-id ${requestId}`);
  if (!EXPECTED_STATUSES.has(status)) fail(`status ${status} is not one the API answers a well-behaved lone request with`);

  const requestHeaders = new Headers(spec.headers);
  const flavour = expectedFlavour(rel, requestHeaders);
  // A HEAD answer has its body dropped by the browser.
  const bodyless = method === 'HEAD';

  if (status >= 400) {
    if (!/^application\/json/.test(headers['content-type'] ?? '')) fail(`error content-type ${headers['content-type']}`);
    if (status < 500 && status !== 429 && headers['x-should-retry'] !== 'false') fail(`x-should-retry ${headers['x-should-retry']} on a ${status}`);
    if (status === 405 && !/^(GET|POST|DELETE)(, (GET|POST|DELETE))*$/.test(headers['allow'] ?? '')) fail(`allow ${headers['allow']} on a 405`);
    if (!bodyless) problems.push(...checkErrorBody(body, flavour, requestId));
    return problems;
  }
  if (status === 204) {
    if (method !== 'OPTIONS') fail(`204 for ${method}`);
    return problems;
  }
  if (status !== 200) return problems;

  const endpoint = endpointOf(rel, method);
  if (endpoint === null) return [...problems, `200 for ${method} ${url.pathname}`];
  const request = spec.body.kind === 'json' && isObj(spec.body.value) ? spec.body.value : spec.body.kind === 'padded' && isObj(spec.body.value) ? spec.body.value : {};
  const type = headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) {
    if (endpoint !== 'chat' && endpoint !== 'messages' && endpoint !== 'responses') fail(`a stream from ${endpoint}`);
    if (request.stream !== true) fail('a stream that was not asked for');
    if (endpoint === 'responses') problems.push(...checkResponsesStream(body));
    else problems.push(...(endpoint === 'messages' ? checkAnthropicStream(body, request, requestId!, served) : checkOpenAIStream(body, request, served)));
    return problems;
  }
  if (!/^application\/json/.test(type)) return [...problems, `success content-type ${type}`];
  const parsed = parseJson(body);
  if (!parsed.ok) return [...problems, `success body is not JSON: ${body.slice(0, 200)}`];
  const value = parsed.value;
  if (endpoint === 'chat') problems.push(...checkChatCompletion(value, request, served));
  else if (endpoint === 'messages') problems.push(...checkMessage(value, request, served));
  else if (endpoint === 'embeddings') problems.push(...checkEmbeddings(value, request, served));
  else if (endpoint === 'models') problems.push(...checkModelList(value, flavour, served));
  else if (endpoint === 'responses') problems.push(...checkResponseObject(value));
  else if (endpoint === 'count_tokens') {
    if (!isObj(value) || keysOf(value) !== 'input_tokens' || !Number.isInteger(value.input_tokens) || (value.input_tokens as number) < 1) problems.push(`count_tokens body ${body.slice(0, 200)}`);
  } else if (endpoint === 'input_tokens') {
    if (!isObj(value) || keysOf(value) !== 'input_tokens,object' || value.object !== 'response.input_tokens' || !Number.isInteger(value.input_tokens) || (value.input_tokens as number) < 1) problems.push(`input_tokens body ${body.slice(0, 200)}`);
  } else problems.push(...checkModel(value, flavour, served));
  return problems;
}

/** A Responses API `response` object as `openai` types it: what the clients read of it. */
function checkResponseObject(value: unknown): string[] {
  if (!isObj(value)) return ['response is not an object'];
  const problems: string[] = [];
  if (value.object !== 'response' || typeof value.id !== 'string' || !value.id.startsWith('resp_')) problems.push(`response object/id ${String(value.object)} ${String(value.id)}`);
  if (value.status !== 'completed' && value.status !== 'incomplete') problems.push(`response status ${String(value.status)}`);
  if (!Array.isArray(value.output) || value.output.length === 0) problems.push('response output is not a non-empty list');
  const usage = value.usage;
  if (!isObj(usage) || ![usage.input_tokens, usage.output_tokens, usage.total_tokens].every(Number.isInteger) || (usage.total_tokens as number) !== (usage.input_tokens as number) + (usage.output_tokens as number)) {
    problems.push(`response usage ${JSON.stringify(usage)}`);
  }
  return problems;
}

/** A Responses event stream: named events numbered from 0, ending with one terminal event and a complete response. */
function checkResponsesStream(body: string): string[] {
  const blocks = body.split('\n\n').filter((block) => block.length > 0);
  const problems: string[] = [];
  let last: Record<string, unknown> | undefined;
  blocks.forEach((block, i) => {
    const [eventLine, dataLine, ...extra] = block.split('\n');
    const data = parseJson(dataLine?.slice(6) ?? '');
    if (!eventLine?.startsWith('event: ') || !dataLine?.startsWith('data: ') || extra.length > 0 || !data.ok || !isObj(data.value)) {
      problems.push(`responses event ${i} malformed: ${block.slice(0, 120)}`);
      return;
    }
    if (data.value.type !== eventLine.slice(7)) problems.push(`responses event ${i} named ${eventLine.slice(7)} has type ${String(data.value.type)}`);
    if (data.value.sequence_number !== i) problems.push(`responses event ${i} has sequence_number ${String(data.value.sequence_number)}`);
    last = data.value;
  });
  const terminal = last?.type;
  if (terminal === 'response.completed' || terminal === 'response.incomplete') problems.push(...checkResponseObject(last!.response));
  else if (terminal !== 'error') problems.push(`responses stream ends with ${String(terminal)}`);
  return problems;
}

/** OpenAI `{error:{message,type,param,code}}`; Anthropic `{type:"error",error:{type,message},request_id}`. */
export function checkErrorBody(body: string, flavour: 'openai' | 'anthropic', requestId: string | undefined): string[] {
  const parsed = parseJson(body);
  if (!parsed.ok || !isObj(parsed.value)) return [`error body is not a JSON object: ${body.slice(0, 200)}`];
  const top = parsed.value;
  const problems: string[] = [];
  if (flavour === 'openai') {
    if (keysOf(top) !== 'error' || !isObj(top.error)) return [`not an OpenAI error body: ${body.slice(0, 200)}`];
    const error = top.error;
    if (keysOf(error) !== 'code,message,param,type') problems.push(`OpenAI error keys ${keysOf(error)}`);
    if (typeof error.message !== 'string' || typeof error.type !== 'string') problems.push('OpenAI error message/type not strings');
    if (error.param !== null && typeof error.param !== 'string') problems.push(`OpenAI error param ${JSON.stringify(error.param)}`);
    if (error.code !== null && typeof error.code !== 'string') problems.push(`OpenAI error code ${JSON.stringify(error.code)}`);
  } else {
    if (keysOf(top) !== 'error,request_id,type' || top.type !== 'error' || !isObj(top.error)) return [`not an Anthropic error body: ${body.slice(0, 200)}`];
    if (top.request_id !== requestId) problems.push(`Anthropic request_id ${top.request_id} is not the header's ${requestId}`);
    const error = top.error;
    if (keysOf(error) !== 'message,type') problems.push(`Anthropic error keys ${keysOf(error)}`);
    if (typeof error.message !== 'string' || typeof error.type !== 'string') problems.push('Anthropic error message/type not strings');
  }
  return problems;
}

function requestedMax(request: Obj, anthropic: boolean, served: Served): number {
  const v = anthropic ? request.max_tokens : (request.max_completion_tokens ?? request.max_tokens);
  return typeof v === 'number' ? v : served.maxOutputTokens;
}

function checkChatCompletion(value: unknown, request: Obj, served: Served): string[] {
  if (!isObj(value) || keysOf(value) !== 'choices,created,id,model,object,usage') return [`chat completion keys: ${JSON.stringify(value).slice(0, 200)}`];
  const problems: string[] = [];
  if (value.object !== 'chat.completion' || value.model !== served.chatModel || !/^chatcmpl-/.test(String(value.id))) problems.push('chat completion object/model/id');
  const choice = (value.choices as unknown[])[0];
  if ((value.choices as unknown[]).length !== 1 || !isObj(choice) || !isObj(choice.message)) return [...problems, 'chat completion choices'];
  if (typeof choice.message.content !== 'string') problems.push('chat completion content is not a string');
  if (choice.finish_reason !== 'stop' && choice.finish_reason !== 'length') problems.push(`finish_reason ${choice.finish_reason}`);
  for (const stop of stopsOf(request.stop)) if (String(choice.message.content).includes(stop)) problems.push(`content contains the stop sequence ${JSON.stringify(stop)}`);
  problems.push(...checkUsage(value.usage, 'prompt_tokens', 'completion_tokens', requestedMax(request, false, served)));
  return problems;
}

function checkUsage(usage: unknown, input: string, output: string, max: number): string[] {
  if (!isObj(usage)) return ['usage missing'];
  const problems: string[] = [];
  if (!isNatural(usage[input]) || (usage[input] as number) === 0) problems.push(`${input} ${usage[input]}`);
  if (!isNatural(usage[output]) || (usage[output] as number) > max) problems.push(`${output} ${usage[output]} with max ${max}`);
  if ('total_tokens' in usage && usage.total_tokens !== (usage[input] as number) + (usage[output] as number)) problems.push('total_tokens is not the sum');
  return problems;
}

function checkMessage(value: unknown, request: Obj, served: Served): string[] {
  if (!isObj(value) || value.type !== 'message' || value.role !== 'assistant' || !/^msg_/.test(String(value.id))) return [`not a message: ${JSON.stringify(value).slice(0, 200)}`];
  const problems: string[] = [];
  if (!['end_turn', 'max_tokens', 'stop_sequence'].includes(value.stop_reason as string)) problems.push(`stop_reason ${value.stop_reason}`);
  const block = (value.content as unknown[])[0];
  if ((value.content as unknown[]).length !== 1 || !isObj(block) || block.type !== 'text' || typeof block.text !== 'string') return [...problems, 'message content'];
  for (const stop of stopsOf(request.stop_sequences)) if ((block.text as string).includes(stop)) problems.push(`text contains the stop sequence ${JSON.stringify(stop)}`);
  problems.push(...checkUsage(value.usage, 'input_tokens', 'output_tokens', requestedMax(request, true, served)));
  return problems;
}

function checkEmbeddings(value: unknown, request: Obj, served: Served): string[] {
  if (!isObj(value) || keysOf(value) !== 'data,model,object,usage' || value.object !== 'list') return [`not an embedding list: ${JSON.stringify(value).slice(0, 200)}`];
  const native = served.embedDimensions[value.model as string];
  if (native === undefined || value.model !== request.model) return [`embeddings from model ${value.model}`];
  const inputs = typeof request.input === 'string' ? 1 : Array.isArray(request.input) ? request.input.length : -1;
  const data = value.data as unknown[];
  if (data.length !== inputs) return [`${data.length} vectors for ${inputs} inputs`];
  const length = typeof request.dimensions === 'number' ? request.dimensions : native;
  const problems: string[] = [];
  data.forEach((item, i) => {
    if (!isObj(item) || item.object !== 'embedding' || item.index !== i) return problems.push(`embedding ${i} shape`);
    if (request.encoding_format === 'base64') {
      if (typeof item.embedding !== 'string' || atob(item.embedding).length !== 4 * length) problems.push(`embedding ${i}: base64 of the wrong length`);
    } else if (!Array.isArray(item.embedding) || item.embedding.length !== length || !item.embedding.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      problems.push(`embedding ${i}: not ${length} finite numbers`);
    }
  });
  const usage = value.usage;
  if (!isObj(usage) || !isNatural(usage.prompt_tokens) || usage.total_tokens !== usage.prompt_tokens) problems.push(`embedding usage ${JSON.stringify(usage)}`);
  return problems;
}

function checkModel(value: unknown, flavour: 'openai' | 'anthropic', served: Served): string[] {
  if (!isObj(value) || !served.modelIds.includes(value.id as string)) return [`unknown model ${JSON.stringify(value).slice(0, 200)}`];
  if (flavour === 'openai') return value.object === 'model' && Number.isInteger(value.created) ? [] : ['OpenAI model shape'];
  return value.type === 'model' && typeof value.display_name === 'string' && Number.isFinite(Date.parse(value.created_at as string)) ? [] : ['Anthropic model shape'];
}

function checkModelList(value: unknown, flavour: 'openai' | 'anthropic', served: Served): string[] {
  if (!isObj(value) || !Array.isArray(value.data)) return ['model list shape'];
  const problems = value.data.flatMap((m) => checkModel(m, flavour, served));
  if (flavour === 'openai' && (keysOf(value) !== 'data,object' || value.object !== 'list')) problems.push('OpenAI model list keys');
  if (flavour === 'anthropic') {
    if (keysOf(value) !== 'data,first_id,has_more,last_id' || typeof value.has_more !== 'boolean') problems.push('Anthropic model list keys');
    const ids = value.data.map((m) => (isObj(m) ? m.id : undefined));
    if (value.first_id !== (ids[0] ?? null) || value.last_id !== (ids.at(-1) ?? null)) problems.push('Anthropic first_id/last_id');
  }
  return problems;
}

/** Splits an SSE body into events (their lines); it must end with a blank line and use \n only. */
function sseEvents(wire: string): string[][] | string {
  if (!wire.endsWith('\n\n')) return `SSE body does not end with a blank line: ...${JSON.stringify(wire.slice(-80))}`;
  if (wire.includes('\r')) return 'SSE body contains \\r';
  return wire
    .slice(0, -2)
    .split('\n\n')
    .map((block) => block.split('\n'));
}

/** `data:` chunks ending with `[DONE]`, or with an in-band `{error, usage}` instead. */
export function checkOpenAIStream(wire: string, request: Obj, served: Served): string[] {
  const events = sseEvents(wire);
  if (typeof events === 'string') return [events];
  if (events.some((lines) => lines.length !== 1 || !lines[0]!.startsWith('data: '))) return ['OpenAI SSE event that is not one data: line'];
  const data = events.map((lines) => lines[0]!.slice(6));
  const last = data.at(-1)!;
  const parsed = (last === '[DONE]' ? data.slice(0, -1) : data).map(parseJson);
  if (parsed.some((p) => !p.ok || !isObj(p.value))) return ['OpenAI SSE data that is not a JSON object'];
  const chunks = parsed.map((p) => (p as { value: Obj }).value);
  const problems: string[] = [];
  if (last !== '[DONE]') {
    const error = chunks.pop()!;
    if (keysOf(error) !== 'error,usage' || !isObj(error.error) || keysOf(error.error) !== 'code,message,param,type') return ['OpenAI stream ends with neither [DONE] nor an error event'];
  }
  let finished = false;
  let content = '';
  for (const chunk of chunks) {
    if (chunk.object !== 'chat.completion.chunk' || chunk.id !== chunks[0]!.id) problems.push('chunk object/id');
    const choices = chunk.choices as Obj[];
    if (choices.length === 0) {
      if (!finished || chunk !== chunks.at(-1)) problems.push('usage chunk not last');
      problems.push(...checkUsage(chunk.usage, 'prompt_tokens', 'completion_tokens', requestedMax(request, false, served)));
      continue;
    }
    if (finished) problems.push('a choice chunk after the finish chunk');
    const delta = choices[0]!.delta as Obj;
    if (typeof delta.content === 'string') content += delta.content;
    if (choices[0]!.finish_reason !== null) finished = true;
  }
  if (last === '[DONE]' && !finished) problems.push('[DONE] without a finish_reason');
  for (const stop of stopsOf(request.stop)) if (content.includes(stop)) problems.push(`streamed content contains the stop sequence ${JSON.stringify(stop)}`);
  return problems;
}

/** Named events from message_start to message_stop, or to an in-band `error` event. */
export function checkAnthropicStream(wire: string, request: Obj, requestId: string, served: Served): string[] {
  const blocks = sseEvents(wire);
  if (typeof blocks === 'string') return [blocks];
  const events: Obj[] = [];
  for (const lines of blocks) {
    if (lines.length !== 2 || !lines[0]!.startsWith('event: ') || !lines[1]!.startsWith('data: ')) return ['Anthropic SSE event that is not an event: and a data: line'];
    const data = parseJson(lines[1]!.slice(6));
    if (!data.ok || !isObj(data.value) || data.value.type !== lines[0]!.slice(7)) return ['Anthropic SSE data that does not match its event name'];
    events.push(data.value);
  }
  const problems: string[] = [];
  const last = events.at(-1)!;
  if (events[0]!.type !== 'message_start') problems.push('first event is not message_start');
  if (last.type === 'error') {
    if (last.request_id !== requestId || !isObj(last.error) || keysOf(last.error) !== 'message,type') problems.push('malformed error event');
  } else if (last.type === 'message_stop') {
    const order = events.map((e) => e.type).filter((t) => t !== 'ping').join(' ');
    if (!/^message_start content_block_start( content_block_delta)* content_block_stop message_delta message_stop$/.test(order)) problems.push(`event order ${order.slice(0, 200)}`);
  } else {
    problems.push(`stream ends with ${last.type}`);
  }
  let text = '';
  for (const e of events) {
    if (e.type === 'content_block_delta') text += (e.delta as Obj).text as string;
    if (e.type === 'message_delta' && ((e.usage as Obj).output_tokens as number) > requestedMax(request, true, served)) problems.push('more output tokens than max_tokens');
  }
  for (const stop of stopsOf(request.stop_sequences)) if (text.includes(stop)) problems.push(`streamed text contains the stop sequence ${JSON.stringify(stop)}`);
  return problems;
}
