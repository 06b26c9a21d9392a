/**
 * What a token costs each renderer, apart from the engine and the transport: the CPU time per
 * one-token text event of chat completions', messages' and Responses' streams and whole answers,
 * over a test generation (test/support/generations.ts) of 2,000 such events, 100 answers a run, the
 * median of 11 runs. A measure, not a test: `npx node --expose-gc scripts/render-cost.ts`, on a
 * machine at rest. See docs/decisions/one-writer-per-answer.md.
 * @module
 */
import type { GenerationEvent } from '../src/core/generation.ts';
import { toMessage, toMessageEvents } from '../src/protocol/anthropic/render.ts';
import { toChatCompletion, toChatCompletionChunks } from '../src/protocol/openai/chat/render.ts';
import { toResponse, toResponseEvents } from '../src/protocol/openai/responses/render.ts';
import { generationOf } from '../test/support/generations.ts';

const TOKENS = 2_000;
const ANSWERS = 100;
const RUNS = 11;

const events: GenerationEvent[] = Array.from({ length: TOKENS }, (_, i) => ({ type: 'text', text: ` word${i % 10}` }));
events.push({ type: 'finish', reason: 'stop', stopSequence: null, usage: { promptTokens: 12, completionTokens: TOKENS, cachedTokens: 0 } });
const generation = () => generationOf(events, { promptTokens: 12 }).generation;

const chat = { id: 'chatcmpl-0123456789abcdefghijklmn', created: 1_700_000_000, model: 'tiny-chat' };
const message = { id: 'msg_0123456789abcdefghijklmn', model: 'tiny-chat', requestId: 'req_0123456789abcdefghijklmn' };
const response = { id: 'resp_0123456789abcdefghijklmn', createdAt: 1_700_000_000, model: 'tiny-chat', previousResponseId: null, store: false, echo: {} };

async function drain(stream: AsyncIterable<{ data: string }>): Promise<void> {
  for await (const _ of stream) void _;
}

const renderers: Record<string, () => Promise<unknown>> = {
  'chat completions, streamed': () => drain(toChatCompletionChunks(generation(), chat, true)),
  'chat completions, whole': () => toChatCompletion(generation(), chat),
  'messages, streamed': () => drain(toMessageEvents(generation(), message)),
  'messages, whole': () => toMessage(generation(), message),
  'responses, streamed': () => drain(toResponseEvents(generation(), response, async () => {})),
  'responses, whole': () => toResponse(generation(), response),
};

const gc = (globalThis as { gc?: () => void }).gc;
for (const [name, render] of Object.entries(renderers)) {
  const runs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    gc?.();
    const before = process.cpuUsage();
    for (let answer = 0; answer < ANSWERS; answer++) await render();
    const { user, system } = process.cpuUsage(before);
    runs.push(((user + system) * 1000) / (TOKENS * ANSWERS));
  }
  runs.sort((a, b) => a - b);
  console.log(`${name.padEnd(28)} ${runs[RUNS >> 1]!.toFixed(0).padStart(5)} ns a token (fastest run ${runs[0]!.toFixed(0)})`);
}
