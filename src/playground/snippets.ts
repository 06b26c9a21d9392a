/**
 * Code that repeats the last call: plain fetch (exactly the recorded request), the openai client
 * and the Anthropic client (the same conversation in that SDK's terms), streamed or not as the
 * call was. What a developer copies into their own app once `startInference()` runs in it.
 * @module
 */
import type { RecordedRequest, CallKind } from './api.ts';
import { ANTHROPIC_VERSION } from './chat-flavours.ts';
import {
  anthropicMessages,
  anthropicToolChoice,
  anthropicTools,
  openAIMessages,
  openAIToolChoice,
  openAITools,
  respondTool,
  RESPOND_TOOL,
  toolChoiceFromAnthropic,
  toolChoiceFromOpenAI,
  toolsFrom,
  turnsFromAnthropic,
  turnsFromOpenAI,
  type ToolDef,
} from './chat-wire.ts';
import { responsesClientLines } from './responses-snippet.ts';
import { responsesToChat } from './responses-wire.ts';

export interface Snippet {
  readonly id: 'fetch' | 'openai' | 'anthropic';
  readonly label: string;
  readonly code: string;
}

type Json = Record<string, unknown>;

const PREAMBLE = `// In a page that has started the local API: await startInference() (from 'inpage-llm').`;

export function snippetsFor(kind: CallKind, request: RecordedRequest): Snippet[] {
  return [
    { id: 'fetch', label: 'fetch', code: fetchSnippet(request) },
    { id: 'openai', label: 'openai', code: openaiSnippet(kind, request) },
    { id: 'anthropic', label: '@anthropic-ai/sdk', code: anthropicSnippet(kind, request) },
  ];
}

/** JSON as a JS literal, indented to sit at `depth` levels. */
function literal(value: unknown, depth = 0): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${'  '.repeat(depth)}`);
}

function fetchSnippet(request: RecordedRequest): string {
  const body = request.body as Json | undefined;
  const init = [`  method: '${request.method}',`];
  if (Object.keys(request.headers).length) init.push(`  headers: ${literal(request.headers, 1)},`);
  if (body !== undefined) init.push(`  body: JSON.stringify(${literal(body, 1)}),`);
  const lines = [PREAMBLE, `const response = await fetch('${request.url}', {`, ...init, '});'];
  if (body?.stream === true) {
    lines.push(
      'if (!response.ok) throw new Error(await response.text());',
      '// Server-sent events: one event per blank-line-terminated block.',
      'const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();',
      "let buffer = '';",
      'for (;;) {',
      '  const { done, value } = await reader.read();',
      '  if (done) break;',
      '  buffer += value;',
      "  for (let end; (end = buffer.indexOf('\\n\\n')) !== -1; buffer = buffer.slice(end + 2)) {",
      '    console.log(buffer.slice(0, end));',
      '  }',
      '}',
    );
  } else {
    lines.push('console.log(response.status, await response.json());');
  }
  return lines.join('\n');
}

function apiBase(url: string, suffix: RegExp): string {
  return url.replace(suffix, '');
}

const ENDPOINTS = /\/(chat\/completions|messages|responses|embeddings|models|conversations(?:\/[^/]+\/items)?)$/;

function openaiSnippet(kind: CallKind, request: RecordedRequest): string {
  const baseURL = apiBase(request.url, ENDPOINTS);
  const head = [
    "import OpenAI from 'openai';",
    PREAMBLE,
    `const client = new OpenAI({ baseURL: '${baseURL}', apiKey: 'unused', dangerouslyAllowBrowser: true });`,
  ];
  const body = (request.body ?? {}) as Json;
  const streamed = body.stream === true;
  switch (kind) {
    case 'models':
      return [...head, 'const models = await client.models.list();', 'console.log(models.data);'].join('\n');
    case 'responses':
      return [...head, ...responsesClientLines(body, literal)].join('\n');
    case 'conversations': {
      // A conversation the Responses flavour keeps: made with the earlier turns, or given more of them.
      const items = /\/conversations\/([^/]+)\/items$/.exec(request.url);
      const create = items ? `client.conversations.items.create('${decodeURIComponent(items[1]!)}', ${literal(body)})` : `client.conversations.create(${literal(body)})`;
      return [...head, `const result = await ${create};`, 'console.log(result);'].join('\n');
    }
    case 'embeddings':
      return [
        ...head,
        `const result = await client.embeddings.create(${literal(body)});`,
        '// The SDK decodes base64 vectors itself: embedding is always an array of numbers here.',
        'console.log(result.data.map((d) => d.embedding));',
      ].join('\n');
    case 'chat':
    case 'messages': {
      const { stream: _stream, stream_options: _options, ...params } = kind === 'chat' ? body : anthropicToOpenAI(body);
      const note = kind === 'messages' ? ['// The same conversation as the last /messages call, in the OpenAI chat flavour.'] : [];
      if (!streamed) {
        if (params.response_format) note.push('// The reply is JSON that matches the schema: JSON.parse the message content.');
        return [
          ...head,
          ...note,
          `const completion = await client.chat.completions.create(${literal(params)});`,
          'console.log(completion.choices[0].message, completion.usage);',
        ].join('\n');
      }
      if (params.response_format) note.push('// The reply is JSON that matches the schema: JSON.parse the joined content.');
      const log = params.tools
        ? "for await (const chunk of stream) console.log(chunk.choices[0]?.delta?.content ?? '', chunk.choices[0]?.delta?.tool_calls ?? '', chunk.usage ?? '');"
        : "for await (const chunk of stream) console.log(chunk.choices[0]?.delta?.content ?? '', chunk.usage ?? '');";
      return [
        ...head,
        ...note,
        `const stream = await client.chat.completions.create(${literal({ ...params, stream: true, stream_options: { include_usage: true } })});`,
        log,
      ].join('\n');
    }
  }
}

function anthropicSnippet(kind: CallKind, request: RecordedRequest): string {
  // The Anthropic SDK appends /v1 itself.
  const baseURL = apiBase(request.url, new RegExp(`/v1${ENDPOINTS.source}`));
  const head = [
    "import Anthropic from '@anthropic-ai/sdk';",
    PREAMBLE,
    `const client = new Anthropic({`,
    `  baseURL: '${baseURL}',`,
    `  apiKey: 'unused',`,
    `  dangerouslyAllowBrowser: true,`,
    `  // ${ANTHROPIC_VERSION} accepts temperature (newer versions refuse sampling parameters).`,
    `  defaultHeaders: { 'anthropic-version': '${ANTHROPIC_VERSION}' },`,
    `});`,
  ];
  const body = (request.body ?? {}) as Json;
  const streamed = body.stream === true;
  switch (kind) {
    case 'models':
      return [...head, 'const models = await client.models.list();', 'console.log(models.data);'].join('\n');
    case 'embeddings':
      return '// The Anthropic API has no embeddings endpoint: use fetch or the openai client (see the other tabs).';
    case 'conversations':
      return '// The Anthropic API keeps no conversations: use fetch or the openai client (see the other tabs).';
    case 'chat':
    case 'messages':
    case 'responses': {
      const { stream: _stream, ...params } = kind === 'messages' ? body : openAIToAnthropic(kind === 'chat' ? body : responsesToChat(body));
      const note = kind === 'messages' ? [] : [`// The same conversation as the last ${kind === 'chat' ? '/chat/completions' : '/responses'} call, in the Anthropic messages flavour.`];
      if (!streamed) return [...head, ...note, `const message = await client.messages.create(${literal(params)});`, 'console.log(message);'].join('\n');
      return [
        ...head,
        ...note,
        `const stream = client.messages.stream(${literal(params)});`,
        "stream.on('text', (text) => console.log(text));",
        ...(params.tools ? ["stream.on('inputJson', (partial) => console.log(partial));"] : []),
        'console.log(await stream.finalMessage());',
      ].join('\n');
    }
  }
}

export function openAIToAnthropic(body: Json): Json {
  const { system, turns } = turnsFromOpenAI(Array.isArray(body.messages) ? body.messages : []);
  const stop = body.stop === undefined ? [] : Array.isArray(body.stop) ? body.stop : [body.stop];
  return {
    model: body.model,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? 256,
    ...(system.length ? { system: system.join('\n\n') } : {}),
    messages: anthropicMessages(turns),
    // Anthropic's temperature range is 0..1, OpenAI's 0..2.
    ...(typeof body.temperature === 'number' ? { temperature: Math.min(1, body.temperature) } : {}),
    ...(stop.length ? { stop_sequences: stop } : {}),
    ...anthropicToolParams(body),
  };
}

/** Anthropic has no response_format: a schema becomes one forced tool, as the chat panel sends it. */
function anthropicToolParams(body: Json): Json {
  const format = body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : format?.type === 'json_object' ? { type: 'object' } : undefined;
  if (schema !== undefined) return { tools: [respondTool(schema)], tool_choice: { type: 'tool', name: RESPOND_TOOL } };
  const tools = toolList(body.tools);
  if (!tools) return {};
  return { tools: anthropicTools(tools), tool_choice: anthropicToolChoice(toolChoiceFromOpenAI(body.tool_choice) ?? 'auto', body.parallel_tool_calls !== false) };
}

export function anthropicToOpenAI(body: Json): Json {
  const system = typeof body.system === 'string' && body.system ? [{ role: 'system', content: body.system }] : [];
  const tools = toolList(body.tools);
  const { choice, parallel } = toolChoiceFromAnthropic(body.tool_choice);
  return {
    model: body.model,
    messages: [...system, ...openAIMessages(turnsFromAnthropic(Array.isArray(body.messages) ? body.messages : []))],
    max_tokens: body.max_tokens,
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(Array.isArray(body.stop_sequences) && body.stop_sequences.length ? { stop: body.stop_sequences } : {}),
    ...(tools ? { tools: openAITools(tools), tool_choice: openAIToolChoice(choice ?? 'auto'), ...(parallel ? {} : { parallel_tool_calls: false }) } : {}),
  };
}

/** The request's tools in neutral terms; none when absent or not tool definitions at all. */
function toolList(value: unknown): ToolDef[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  try {
    return toolsFrom(value);
  } catch {
    return undefined;
  }
}
