/**
 * The tool-calls matcher: the Hermes call format byte for byte (as writeToolCall writes a call),
 * each call's arguments by its tool's schema, the choices (calls, a reply, either), parallel calls,
 * free text that may not begin as a call. Random tool sets and their valid arguments (property
 * test, against the same writer); then random walks over Qwen's real vocabulary through the
 * constraints a request gets: never stuck, and every finished walk read back by the tool-call
 * parser into calls whose arguments ajv validates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inDefinitionOrder, readSchema } from '../../../core/json-schema/schema-node.ts';
import { ToolCallParser, writeToolCall } from '../../../core/tool-syntax.ts';
import { instanceArbitrary, jsonSchemaArbitrary, validatorFor, type JsonSchema } from '../../../../test/property/json-schemas.ts';
import { acceptsText } from '../byte-matcher.ts';
import { createSchemaConstraints } from '../schema-constraint.ts';
import { nthSet, popcount, qwenVocabulary } from '../token-masks/test-matchers.ts';
import { tokenBytes } from '../vocabulary.ts';
import { toolCallsMatcher, type ToolCallsShape } from './tool-calls-matcher.ts';

const WEATHER = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'], additionalProperties: false };
const FLAG = { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'], additionalProperties: false };
const shape = (over: Partial<ToolCallsShape> = {}): ToolCallsShape => ({
  tools: [
    { name: 'get_weather', parameters: readSchema(WEATHER) },
    { name: 'set_flag', parameters: readSchema(FLAG) },
  ],
  mode: 'calls',
  parallel: true,
  ...over,
});
const takes = (s: ToolCallsShape, text: string) => acceptsText(toolCallsMatcher(s), text);

describe('the tool-calls matcher', () => {
  it('takes calls exactly as the template writes them, each by its tool', () => {
    const weather = writeToolCall('get_weather', { city: 'Paris', days: 3 });
    expect(weather).toBe('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>');
    expect(takes(shape(), weather)).toBe(true);
    expect(takes(shape(), writeToolCall('set_flag', { on: true }))).toBe(true);
    // Compact arguments, an unknown tool, arguments another tool's, or past the schema: refused.
    expect(takes(shape(), '<tool_call>\n{"name": "get_weather", "arguments": {"city":"Paris"}}\n</tool_call>')).toBe(false);
    expect(takes(shape(), writeToolCall('get_wether', { city: 'Paris' }))).toBe(false);
    expect(takes(shape(), writeToolCall('set_flag', { city: 'Paris' }))).toBe(false);
    expect(takes(shape(), writeToolCall('get_weather', { city: 'Paris', days: 8 }))).toBe(false);
    expect(takes(shape(), writeToolCall('get_weather', { days: 2 }))).toBe(false);
    // A call cut short is not a whole output.
    expect(takes(shape(), weather.slice(0, -1))).toBe(false);
  });

  it('takes several calls where parallel calls are allowed, one where not, and no text in calls mode', () => {
    const two = `${writeToolCall('get_weather', { city: 'Oslo' })}\n${writeToolCall('set_flag', { on: false })}`;
    expect(takes(shape(), two)).toBe(true);
    expect(takes(shape({ parallel: false }), two)).toBe(false);
    expect(takes(shape({ parallel: false }), writeToolCall('set_flag', { on: false }))).toBe(true);
    expect(takes(shape(), 'Sure.')).toBe(false);
    expect(takes(shape(), '')).toBe(false);
  });

  it('takes a text reply that does not begin as a call where the model may choose, and none where it may not', () => {
    const either = shape({ mode: 'either' });
    expect(takes(either, writeToolCall('set_flag', { on: true }))).toBe(true);
    for (const text of ['', 'Sure, Paris it is.\nAnything else?', '<tool_', '<tool_call>', '<tool_callx', 'é ✓ 𝄞']) expect(takes(either, text), text).toBe(true);
    // The opening begins a call, which must then be one.
    expect(takes(either, '<tool_call>\nhello')).toBe(false);
    // Not valid UTF-8, a control character: never.
    expect(acceptsText(toolCallsMatcher(either), 'a\tb')).toBe(false);
    const matcher = toolCallsMatcher(either);
    let state = matcher.start;
    for (const byte of [0x61, 0xe0]) state = matcher.step(state, byte)!;
    expect(matcher.step(state, 0x80)).toBeUndefined();
    expect(matcher.canEnd(state)).toBe(false);
    const reply = shape({ mode: 'reply', tools: [] });
    expect(takes(reply, 'Just text.')).toBe(true);
    expect(takes(reply, writeToolCall('set_flag', { on: true }))).toBe(false);
  });

  it("takes a reply by the request's schema, compact, where one is asked for", () => {
    const reply = readSchema({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false });
    const either = shape({ mode: 'either', reply });
    expect(takes(either, '{"answer":"Paris"}')).toBe(true);
    expect(takes(either, 'Paris')).toBe(false);
    expect(takes(either, writeToolCall('get_weather', { city: 'Paris' }))).toBe(true);
  });

  it('takes the valid arguments of random tools, as the template writes them (property)', () => {
    const tools = fc.array(jsonSchemaArbitrary, { minLength: 1, maxLength: 3 }).chain((schemas) =>
      fc.tuple(fc.constant(schemas), fc.nat(schemas.length - 1)).chain(([all, pick]) => fc.tuple(fc.constant(all), fc.constant(pick), instanceArbitrary(all[pick]!))),
    );
    fc.assert(
      fc.property(tools, ([schemas, pick, instance]) => {
        const nodes = schemas.map((schema) => readSchema(schema));
        const s: ToolCallsShape = { tools: nodes.map((parameters, i) => ({ name: `tool_${i}`, parameters })), mode: 'calls', parallel: false };
        const text = writeToolCall(`tool_${pick}`, inDefinitionOrder(nodes[pick]!, instance));
        return acceptsText(toolCallsMatcher(s), text);
      }),
      { numRuns: Number(process.env.SCHEMA_MATCHER_RUNS ?? 300), seed: 4911 },
    );
  });
});

describe('tool calls on the Qwen vocabulary, through the constraints a request gets', () => {
  const vocabulary = qwenVocabulary();
  const constraints = createSchemaConstraints(vocabulary);
  const bytesOf = vocabulary.tokens.map((token) => tokenBytes(token, vocabulary.type));
  const stops = new Set(vocabulary.stopTokenIds);

  /** A seeded walk taking forced runs and random allowed tokens: its text, or why it failed. */
  function walk(spec: Parameters<typeof constraints.start>[0], seed: number, steps: number): { text?: string; stuck?: string; forced: number } {
    const constraint = constraints.start(spec);
    if (!constraint) return { stuck: 'not taken by the schema matcher', forced: 0 };
    let random = seed;
    const next = () => ((random = (Math.imul(random, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const out: number[] = [];
    let forced = 0;
    for (let step = 0; step < steps; step++) {
      for (const id of constraint.forced!()) {
        if (!constraint.accept(id)) return { stuck: `forced token ${id} refused`, forced };
        out.push(...bytesOf[id]!);
        forced++;
      }
      const mask = constraint.mask()!;
      let count = 0;
      for (const word of mask) count += popcount(word);
      if (count === 0) return { stuck: `no token allowed after ${JSON.stringify(new TextDecoder().decode(Uint8Array.from(out)))}`, forced };
      const stop = [...stops].find((id) => (mask[id >> 5]! & (1 << (id & 31))) !== 0);
      const token = stop !== undefined && next() < 0.6 ? stop : nthSet(mask, Math.floor(next() * count));
      if (!constraint.accept(token)) return { stuck: `token ${token} allowed but refused`, forced };
      if (constraint.terminated) return { text: new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(out)), forced };
      out.push(...bytesOf[token]!);
    }
    return { forced };
  }

  it('random walks under random tool sets: never stuck, every finished one calls a tool with valid arguments', () => {
    const sets = fc.sample(fc.array(jsonSchemaArbitrary, { minLength: 1, maxLength: 3 }), { numRuns: 24, seed: 4913 });
    let calls = 0;
    let forced = 0;
    for (const [i, schemas] of sets.entries()) {
      const tools = schemas.map((parameters, k) => ({ name: `tool_${k}`, parameters: parameters as Record<string, unknown> }));
      for (const mode of ['calls', 'either'] as const) {
        const result = walk({ kind: 'tools', tools, mode, parallel: i % 2 === 0 }, i * 13 + (mode === 'calls' ? 1 : 2), 300);
        expect(result.stuck, JSON.stringify(schemas)).toBeUndefined();
        forced += result.forced;
        if (result.text === undefined) continue;
        const parser = new ToolCallParser();
        const pieces = [...parser.push(result.text), ...parser.end()];
        const named = pieces.filter((piece) => piece.type === 'call');
        if (mode === 'calls') expect(named.length, result.text).toBeGreaterThan(0);
        for (const call of named) {
          const index = Number(call.name.slice('tool_'.length));
          const text = pieces.filter((piece) => piece.type === 'arguments' && piece.index === call.index).map((piece) => (piece as { text: string }).text).join('');
          const { valid, errors } = validatorFor(schemas[index] as JsonSchema)(JSON.parse(text));
          expect(valid, `${result.text}\n${errors}`).toBe(true);
          calls++;
        }
      }
    }
    expect(calls).toBeGreaterThan(10);
    expect(forced).toBeGreaterThan(100);
  }, 180_000);

  it("free text's masks are made once, whatever the tools around it", () => {
    const hello = vocabulary.tokens.indexOf('Hello');
    const texts = [WEATHER, FLAG].map((parameters, i) => {
      const constraint = constraints.start({ kind: 'tools', tools: [{ name: `tool_${i}`, parameters }], mode: 'either', parallel: true })!;
      expect(constraint.accept(hello)).toBe(true);
      return constraint.mask()!;
    });
    expect(texts[0]).toBe(texts[1]);
    // At the start the call is one of the choices: its own mask, per tool set.
    const starts = [WEATHER, FLAG].map((parameters, i) => constraints.start({ kind: 'tools', tools: [{ name: `tool_${i}`, parameters }], mode: 'either', parallel: true })!.mask()!);
    expect(starts[0]).not.toBe(starts[1]);
  });

  it('a required call starts with its opening forced, and a single tool with its name too', () => {
    const constraint = constraints.start({ kind: 'tools', tools: [{ name: 'get_weather', parameters: WEATHER }], mode: 'calls', parallel: false })!;
    const text = new TextDecoder().decode(Uint8Array.from(constraint.forced!().flatMap((id) => bytesOf[id]!)));
    expect(text.startsWith('<tool_call>\n{"name": "get_weather", "arguments": {"')).toBe(true);
  });
});
