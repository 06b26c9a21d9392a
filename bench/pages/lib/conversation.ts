/**
 * The prefix-cache benchmark's workload, the same in Node (bench/driver/conversation-node.ts) and
 * in the browser (bench/pages/conversation.ts): a chat app's conversation, whose every request is
 * the whole history plus one new message, and an agent's loop, whose every request also carries
 * the tools' schemas and the calls and results so far. Each request streams (as a chat UI asks), and
 * its reply goes back into the history as the client would send it, so what the engine read last
 * time is the beginning of what it is sent next. Timed from the request to its first token (or
 * tool call), through whatever `fetch` is given (the product's gateway). Plain module: no DOM, no
 * Node; the texts of exact token lengths come from the driver.
 * @module
 */
import { createSSEParser } from '../../../src/core/sse.ts';

export interface ConversationTexts {
  /** The conversation's system prompt. */
  readonly system: string;
  /** Each turn's new user message, all of one length in tokens. */
  readonly turns: readonly string[];
  /** The agent's task. */
  readonly task: string;
  /** Each step's tool result, all of one length in tokens. */
  readonly results: readonly string[];
}

export interface TurnFigures {
  /** From 1. */
  readonly turn: number;
  /** From the request to its first token (or the first piece of a tool call). */
  readonly firstTokenMs: number;
  readonly totalMs: number;
  readonly promptTokens: number;
  /** Of `promptTokens`, those the engine read from its prefix cache (`prompt_tokens_details.cached_tokens`). */
  readonly cachedTokens: number;
}

type Fetch = (input: string, init: RequestInit) => Promise<Response>;
type Message = Record<string, unknown>;

/** A streamed chat completion's first-token time, text, calls and usage. */
async function ask(fetch: Fetch, base: string, body: Record<string, unknown>, now: () => number) {
  const started = now();
  const response = await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true }, temperature: 0 }) });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const parser = createSSEParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let first: number | undefined;
  let text = '';
  const calls: { id: string; name: string; arguments: string }[] = [];
  let usage: { prompt_tokens: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const event of parser.feed(value)) {
      if (event.data === '[DONE]') continue;
      const chunk = JSON.parse(event.data) as { error?: unknown; usage?: typeof usage; choices?: { delta?: { content?: string; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] } }[] };
      if (chunk.error) throw new Error(`the stream failed: ${JSON.stringify(chunk.error)}`);
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices?.[0]?.delta;
      if (delta?.content) {
        first ??= now();
        text += delta.content;
      }
      for (const call of delta?.tool_calls ?? []) {
        first ??= now();
        const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name += call.function.name;
        if (call.function?.arguments) slot.arguments += call.function.arguments;
      }
    }
  }
  const ended = now();
  if (!usage) throw new Error('the stream carried no usage');
  return { firstTokenMs: (first ?? ended) - started, totalMs: ended - started, text, calls, promptTokens: usage.prompt_tokens, cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0 };
}

export interface Workload {
  readonly fetch: Fetch;
  /** The API's base URL, e.g. `https://llm.local/v1`. */
  readonly base: string;
  readonly model: string;
  /** Tokens per reply (the answer is asked for exactly this many: the real-shaped model never stops early). */
  readonly replyTokens: number;
  readonly now: () => number;
  /** Told each turn's figures as it ends (a run takes minutes to hours: the log shows progress). */
  readonly onTurn?: (figures: TurnFigures) => void | Promise<void>;
}

/** A conversation of `texts.turns.length` turns: system prompt, then user and assistant messages. */
export async function runConversation(w: Workload, texts: ConversationTexts): Promise<TurnFigures[]> {
  const messages: Message[] = [{ role: 'system', content: texts.system }];
  const out: TurnFigures[] = [];
  for (const [i, turn] of texts.turns.entries()) {
    messages.push({ role: 'user', content: turn });
    const answer = await ask(w.fetch, w.base, { model: w.model, messages, max_tokens: w.replyTokens }, w.now);
    messages.push({ role: 'assistant', content: answer.text });
    out.push({ turn: i + 1, firstTokenMs: answer.firstTokenMs, totalMs: answer.totalMs, promptTokens: answer.promptTokens, cachedTokens: answer.cachedTokens });
    await w.onTurn?.(out.at(-1)!);
  }
  return out;
}

/** Tools whose arguments are all enums: a call's length is bounded whatever the weights choose. */
export const AGENT_TOOLS = [
  { type: 'function', function: { name: 'search_flights', description: 'Find flights between two cities on a day.', parameters: { type: 'object', properties: { from: { type: 'string', enum: ['Paris', 'Oslo', 'Lima', 'Tokyo'] }, to: { type: 'string', enum: ['Paris', 'Oslo', 'Lima', 'Tokyo'] }, day: { type: 'integer', enum: [1, 2, 3, 4, 5, 6, 7] } }, required: ['from', 'to', 'day'], additionalProperties: false } } },
  { type: 'function', function: { name: 'book_hotel', description: 'Book a hotel room in a city for some nights.', parameters: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Oslo', 'Lima', 'Tokyo'] }, nights: { type: 'integer', enum: [1, 2, 3] } }, required: ['city', 'nights'], additionalProperties: false } } },
  { type: 'function', function: { name: 'get_weather', description: 'The weather in a city.', parameters: { type: 'object', properties: { city: { type: 'string', enum: ['Paris', 'Oslo', 'Lima', 'Tokyo'] } }, required: ['city'], additionalProperties: false } } },
] as const;

/**
 * An agent's loop of `texts.results.length` steps: every request carries the tools, the task and
 * every call and result so far; each step's calls are answered with that step's result text.
 */
export async function runAgentLoop(w: Workload, texts: ConversationTexts): Promise<TurnFigures[]> {
  const messages: Message[] = [{ role: 'system', content: texts.system }, { role: 'user', content: texts.task }];
  const out: TurnFigures[] = [];
  for (const [i, result] of texts.results.entries()) {
    const answer = await ask(w.fetch, w.base, { model: w.model, messages, tools: AGENT_TOOLS, tool_choice: 'required', parallel_tool_calls: false, max_tokens: 64 }, w.now);
    out.push({ turn: i + 1, firstTokenMs: answer.firstTokenMs, totalMs: answer.totalMs, promptTokens: answer.promptTokens, cachedTokens: answer.cachedTokens });
    await w.onTurn?.(out.at(-1)!);
    if (answer.calls.length === 0) throw new Error(`step ${i + 1} made no tool call (tool_choice required)`);
    messages.push({ role: 'assistant', content: null, tool_calls: answer.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    for (const call of answer.calls) messages.push({ role: 'tool', tool_call_id: call.id, content: result });
  }
  return out;
}
