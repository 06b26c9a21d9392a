/**
 * The structured-output benchmark's workload (`npm run bench -- --structured`), the same in Node
 * (bench/driver/structured-node.ts) and in the browser (bench/pages/structured.ts): one prompt,
 * the request shapes below, each timed from the `engine.chat` call to its first token and from the
 * first token to the last, greedy, with the same token cap for all.
 *
 * Every constrained shape runs twice a round: `first`, its schema or tool set salted (a property
 * name no request has used, so nothing compiled or masked for it is kept), and `reused`, the
 * unsalted one again. The free-text baselines run twice a round too. Each request is built as
 * admission builds it for a local model (`enforcedOutput`: the schema in its grammar form). A
 * request the engine refuses is a sample with its error, not a crash.
 * @module
 */
import type { ChatMessage, ChatRequest, Engine, ToolSpec } from '../../../src/core/engine.ts';
import { toGrammarSchema } from '../../../src/core/json-schema-support.ts';
import { withToolsAsText } from '../../../src/core/tool-syntax.ts';

/** The request shapes, in table order. */
export const SHAPES = [
  'free',
  'free, one tool in the prompt',
  'free, two tools in the prompt',
  'json_schema: two plain strings',
  'json_schema: string maxLength 400',
  'json_schema: string maxLength 20',
  'json_schema: nested arrays',
  'json_schema: enums',
  'tool: required',
  'tool: named',
  'tool_choice auto, two tools',
] as const;
export type Shape = (typeof SHAPES)[number];

/** `first`: a schema or tool set never sent before; `reused`: the same one again; `free`: no constraint. */
export type Use = 'first' | 'reused' | 'free';

/** The free-text shape whose prompt a shape's prompt matches (tool definitions make it longer). */
export function baselineOf(shape: Shape): Shape {
  if (shape.startsWith('tool: ')) return 'free, one tool in the prompt';
  if (shape.startsWith('tool_choice auto')) return 'free, two tools in the prompt';
  if (shape.startsWith('free')) return shape;
  return 'free';
}

export interface StructuredSample {
  readonly shape: Shape;
  readonly use: Use;
  /** The round (0-based), or -1 for the requests before the rounds (the first after the load). */
  readonly round: number;
  /** From the `engine.chat` call to the first token (ms). */
  readonly firstTokenMs?: number;
  /** The tokens after the first over the time from the first to the last (ms per token). */
  readonly msPerToken?: number;
  readonly tokens?: number;
  readonly promptTokens?: number;
  readonly reason?: 'stop' | 'length';
  /** The output's first characters (what the grammar let through). */
  readonly text?: string;
  /** Why the request failed, where it did. */
  readonly error?: string;
}

export interface StructuredSetup {
  readonly maxTokens: number;
  readonly rounds: number;
}

const PROMPT = 'Read the order below and fill in the record for it. Order: two boxes of green tea, one kettle, delivered to the north office by Friday; the customer asked for a receipt.';

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

/** The schemas, each with one property name salted (`salt` '' is the reused one). */
const SCHEMAS = {
  plain: (salt: string) => object({ [`title${salt}`]: { type: 'string' }, summary: { type: 'string' } }),
  long: (salt: string) => object({ [`text${salt}`]: { type: 'string', maxLength: 400 } }),
  short: (salt: string) => object({ [`text${salt}`]: { type: 'string', maxLength: 20 } }),
  // At least two objects of at least three integers: else a greedy model may answer `[]` at once.
  nested: (salt: string) => object({ [`items${salt}`]: { type: 'array', minItems: 2, items: object({ name: { type: 'string', maxLength: 8 }, counts: { type: 'array', minItems: 3, items: { type: 'integer' } } }) } }),
  enums: (salt: string) =>
    object({
      [`colour${salt}`]: { enum: ['red', 'green', 'blue', 'yellow'] },
      size: { enum: ['small', 'medium', 'large'] },
      status: { enum: ['open', 'pending', 'shipped', 'delivered', 'cancelled'] },
      priority: { enum: ['low', 'normal', 'high', 'urgent'] },
      channel: { enum: ['web', 'phone', 'shop'] },
    }),
};

const recordTool = (salt: string): ToolSpec => ({
  name: 'record_order',
  description: 'Records an order.',
  parameters: object({ [`item${salt}`]: { type: 'string' }, quantity: { type: 'integer' }, office: { enum: ['north', 'south'] } }),
});
const lookupTool = (salt: string): ToolSpec => ({ name: 'lookup_customer', description: 'Finds a customer by name.', parameters: object({ [`name${salt}`]: { type: 'string' } }) });

const MESSAGES: readonly ChatMessage[] = [{ role: 'user', content: PROMPT }];

/** The request of `shape`, its schema or tools salted with `salt`. */
export function structuredRequest(model: string, shape: Shape, salt: string, maxTokens: number): ChatRequest {
  const base: ChatRequest = { model, messages: MESSAGES, maxTokens, temperature: 0, stop: [] };
  const json = (schema: Record<string, unknown>): ChatRequest => ({
    ...base,
    output: { kind: 'json_schema', schema, strict: true },
    // As admission gives it to a local engine (core/admit.ts): the schema in its grammar form.
    enforcedOutput: { kind: 'json_schema', schema: toGrammarSchema(schema) as Record<string, unknown>, strict: true },
  });
  switch (shape) {
    case 'free':
      return base;
    // The tool rows' prompts as free text: the prefill they add, without a grammar.
    case 'free, one tool in the prompt':
      return { ...base, messages: withToolsAsText(MESSAGES, [recordTool(salt)]) };
    case 'free, two tools in the prompt':
      return { ...base, messages: withToolsAsText(MESSAGES, [lookupTool(salt), recordTool(salt)]) };
    case 'json_schema: two plain strings':
      return json(SCHEMAS.plain(salt));
    case 'json_schema: string maxLength 400':
      return json(SCHEMAS.long(salt));
    case 'json_schema: string maxLength 20':
      return json(SCHEMAS.short(salt));
    case 'json_schema: nested arrays':
      return json(SCHEMAS.nested(salt));
    case 'json_schema: enums':
      return json(SCHEMAS.enums(salt));
    case 'tool: required':
      return { ...base, tools: [recordTool(salt)], toolChoice: 'required', parallelToolCalls: false };
    case 'tool: named':
      return { ...base, tools: [recordTool(salt)], toolChoice: { name: 'record_order' }, parallelToolCalls: false };
    case 'tool_choice auto, two tools':
      return { ...base, tools: [lookupTool(salt), recordTool(salt)], toolChoice: 'auto', parallelToolCalls: false };
  }
}

/** One request, timed: `now` is the clock (performance.now in both places). */
export async function timedChat(engine: Engine, request: ChatRequest, now: () => number): Promise<Omit<StructuredSample, 'shape' | 'use' | 'round'>> {
  const signal = new AbortController().signal;
  const t0 = now();
  let first = 0;
  let last = 0;
  let tokens = 0;
  let promptTokens: number | undefined;
  let reason: 'stop' | 'length' | undefined;
  let text = '';
  try {
    for await (const event of engine.chat(request, { signal })) {
      if (event.type === 'start') promptTokens = event.promptTokens;
      else if (event.type === 'end') reason = event.reason;
      else if (event.type === 'token') {
        last = now();
        if (tokens === 0) first = last;
        tokens++;
        if (text.length < 160) text += event.text;
      }
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error), tokens, ...(promptTokens !== undefined ? { promptTokens } : {}) };
  }
  if (tokens === 0) return { error: 'no token came', ...(promptTokens !== undefined ? { promptTokens } : {}) };
  return {
    firstTokenMs: first - t0,
    ...(tokens > 1 ? { msPerToken: (last - first) / (tokens - 1) } : {}),
    tokens,
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(reason ? { reason } : {}),
    text: text.slice(0, 160),
  };
}

/**
 * The whole workload on a loaded engine: each shape once unsalted (the first requests after the
 * load, which pay the one-offs: the token masks' tables, the grammar engine and its vocabulary),
 * then `rounds` rounds, each running every shape first-use then reused, in an order rotated by one
 * a round. `log` gets a line per request (outside the timed part).
 */
export async function runStructured(engine: Engine, model: string, setup: StructuredSetup, now: () => number, log: (line: string) => Promise<void> | void): Promise<StructuredSample[]> {
  const samples: StructuredSample[] = [];
  const one = async (shape: Shape, use: Use, round: number, salt: string) => {
    const sample: StructuredSample = { shape, use, round, ...(await timedChat(engine, structuredRequest(model, shape, salt, setup.maxTokens), now)) };
    samples.push(sample);
    const figures = sample.error ? `error: ${sample.error}` : `first token ${sample.firstTokenMs!.toFixed(0)} ms, ${sample.msPerToken?.toFixed(1) ?? '—'} ms/token over ${sample.tokens} (${sample.promptTokens} prompt tokens)`;
    await log(`${round < 0 ? 'after load' : `round ${round + 1}`}, ${shape}, ${use}: ${figures}`);
  };
  // The first run of the model (its sessions' own first-run costs), untimed.
  for await (const _ of engine.chat({ ...structuredRequest(model, 'free', '', 1) }, { signal: new AbortController().signal }));
  for (const shape of SHAPES) await one(shape, shape.startsWith('free') ? 'free' : 'reused', -1, '');
  let fresh = 0;
  for (let round = 0; round < setup.rounds; round++) {
    for (let i = 0; i < SHAPES.length; i++) {
      const shape = SHAPES[(i + round) % SHAPES.length]!;
      if (shape.startsWith('free')) {
        // The baselines' prompts never change: salting them would only lengthen a prompt.
        await one(shape, 'free', round, '');
        await one(shape, 'free', round, '');
      } else {
        await one(shape, 'first', round, `_${++fresh}`);
        await one(shape, 'reused', round, '');
      }
    }
  }
  return samples;
}
