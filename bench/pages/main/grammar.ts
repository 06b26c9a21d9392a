/**
 * What constrained decoding costs: the same tiny-chat completion with and without a JSON schema,
 * on the direct engine (no transport, so only the grammar differs). The first request with a new
 * schema pays its compilation; later ones reuse the cached grammar. Time to first token and decode
 * rate tell the two costs apart: compilation and the first mask before the first token, the mask
 * of every step after it.
 * @module
 */
import type { ChatRequest, Engine } from '../../../src/core/engine.ts';
import { withToolsAsText } from '../../../src/core/tool-syntax.ts';
import { byProfile } from '../lib/channel.ts';
import type { Runtime } from './runtime.ts';
import { streamRounds, type StreamPaths, type StreamRun } from './stream-runs.ts';
import { chatRequest, signal } from './workload.ts';

/** A form whose answers run to about 60 tokens: long enough for a decode rate. */
const schema = (salt: string) => ({
  type: 'object',
  properties: { [`notes${salt}`]: { type: 'array', items: { type: 'string', maxLength: 12 }, minItems: 4, maxItems: 4 }, score: { type: 'integer', minimum: 0, maximum: 100 } },
  required: [`notes${salt}`, 'score'],
  additionalProperties: false,
});

async function run(engine: Engine, request: ChatRequest): Promise<StreamRun> {
  const t0 = performance.now();
  let first = 0;
  let last = 0;
  let tokens = 0;
  for await (const event of engine.chat(request, { signal })) {
    if (event.type !== 'token') continue;
    tokens++;
    last = performance.now();
    if (!first) first = last;
  }
  return { tokens, totalMs: performance.now() - t0, firstTokenMs: first - t0, lastTokenMs: last - t0 };
}

export async function grammar({ direct }: Runtime) {
  const maxTokens = 200;
  const rounds = byProfile({ quick: 2, short: 3, full: 12 });
  let fresh = 0;
  const constrained = (salt: string): ChatRequest => ({ ...chatRequest(maxTokens), output: { kind: 'json_schema', schema: schema(salt), strict: true } });
  const calling: ChatRequest = { ...chatRequest(maxTokens), tools: [{ name: 'record', parameters: schema('') }], toolChoice: 'required', parallelToolCalls: false };
  // Once before timing: loads the grammar engine's wasm and builds tiny-chat's vocabulary tables
  // (a one-off per loaded model), and compiles the schema the cached paths reuse.
  await run(direct, constrained(''));
  await run(direct, calling);
  const paths: StreamPaths = [
    ['grammar: none', () => run(direct, chatRequest(maxTokens))],
    ['grammar: json_schema, cached', () => run(direct, constrained(''))],
    // A schema never sent before: its compilation is on the path to the first token.
    ['grammar: json_schema, new schema', () => run(direct, constrained(String(++fresh)))],
    // The same form as a required tool: the call format around it, and a longer prompt (the tool's
    // definition), whose cost without a grammar the next path shows: the same prompt, free text.
    ['grammar: tool call, cached', () => run(direct, calling)],
    ['grammar: none, tool prompt', () => run(direct, { ...chatRequest(maxTokens), messages: withToolsAsText(chatRequest(maxTokens).messages, calling.tools!) })],
  ];
  return { maxTokens, paths: await streamRounds(paths, rounds, 'grammar') };
}
