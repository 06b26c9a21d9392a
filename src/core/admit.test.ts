import { describe, expect, it } from 'vitest';
import { admit, admitFor, faultFor, inCallerTerms, reading, refusalOf, type Ask } from './admit.ts';
import type { ModelInfo, NeutralRequest } from './engine.ts';
import { GatewayError } from './errors.ts';
import { invalid } from './fields.ts';

const LOCAL: ModelInfo = { id: 'small', kind: 'chat', engine: 'test', contextWindow: 512, maxOutputTokens: 256 };
const REMOTE: ModelInfo = { id: 'far', kind: 'chat', engine: 'remote', contextWindow: 0, upstream: { baseURL: 'http://up.test/v1' } };
const THINKER: ModelInfo = { ...LOCAL, id: 'thinker', reasoning: { open: '<think>', close: '</think>', budgets: { low: 32 } } };
const REQUEST: NeutralRequest = { model: 'asked', messages: [{ role: 'user', content: 'hi' }], stop: [] };
const refusal = (param: string, message: string) => ({ param, message });

describe('admit', () => {
  it("fills in the model's id, its cap where the caller set none, and says whether the caller set one", () => {
    expect(admit(REQUEST, { asks: [] }, LOCAL)).toEqual({ ...REQUEST, model: 'small', maxTokens: 256 });
    expect(admit({ ...REQUEST, maxTokens: 10 }, { asks: [] }, LOCAL)).toEqual({ ...REQUEST, model: 'small', maxTokens: 10, maxTokensSet: true });
    expect(admit(REQUEST, { asks: [] }, { ...LOCAL, maxOutputTokens: undefined }).maxTokens).toBe(512);
  });

  it("gives an effort the model's own thinking budget, only where the model thinks, and keeps a budget the caller named", () => {
    expect(admit({ ...REQUEST, reasoningEffort: 'low' }, { asks: [] }, THINKER).thinkingBudget).toBe(32);
    expect(admit({ ...REQUEST, reasoningEffort: 'medium' }, { asks: [] }, THINKER).thinkingBudget).toBe(4096);
    expect(admit({ ...REQUEST, reasoningEffort: 'low' }, { asks: [] }, LOCAL)).not.toHaveProperty('thinkingBudget');
    expect(admit({ ...REQUEST, thinkingBudget: 2000 }, { asks: [] }, THINKER).thinkingBudget).toBe(2000);
  });

  it("keeps the schema as sent in output, and gives a local model the grammar's form of it apart", () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 3 } } };
    const output = { kind: 'json_schema', schema, strict: true, name: 'n' } as const;
    const local = admit({ ...REQUEST, output }, { asks: [] }, LOCAL);
    expect(local.output).toBe(output);
    expect(local.enforcedOutput).toEqual({ kind: 'json_schema', schema: { type: 'object', properties: { n: { enum: [1, 2, 3] } } }, strict: true });
    expect(admit({ ...REQUEST, output }, { asks: [] }, REMOTE)).not.toHaveProperty('enforcedOutput');
    expect(admit({ ...REQUEST, output: { kind: 'json_object' } }, { asks: [] }, LOCAL).enforcedOutput).toEqual({ kind: 'json_object' });
  });

  it('throws the first ask the model does not meet, in the words given, with its id and cap', () => {
    const asks: Ask[] = [
      { need: 'room', tokens: 300, refusal: refusal('max_tokens', 'max_tokens: 300 > {limit}, which is the most for {model}') },
      { need: 'toolCalling', refusal: refusal('tools', "Tool calling is not supported by model '{model}'.") },
    ];
    expect(() => admit(REQUEST, { asks }, LOCAL)).toThrow(expect.objectContaining({ code: 'invalid_request', param: 'max_tokens', message: 'max_tokens: 300 > 256, which is the most for small' }));
    // A remote model's server holds the cap to its own limit; tool calling is asked of every model.
    expect(() => admit(REQUEST, { asks }, REMOTE)).toThrow(expect.objectContaining({ param: 'tools', message: "Tool calling is not supported by model 'far'." }));
    expect(admit(REQUEST, { asks }, { ...REMOTE, toolCalling: true }).model).toBe('far');
  });
});

describe('refusalOf', () => {
  it("asks a local model only what is marked local, a grammar's schema, room and token biases", () => {
    const asks: Ask[] = [
      { need: 'nothing', local: true, refusal: refusal('messages[0].content[0].type', 'this model reads text only') },
      { need: 'grammar', schema: { type: 'object', not: {} }, param: 'tools[0].function.parameters' },
      { need: 'logitBias', refusal: refusal('logit_bias', 'no biases') },
      { need: 'reasoning', local: true, refusal: refusal('thinking', 'does not think') },
    ];
    expect(refusalOf(asks, REMOTE)).toBeUndefined();
    expect(refusalOf(asks.slice(1), LOCAL)).toMatchObject({ param: 'tools[0].function.parameters', message: expect.stringContaining("Invalid schema for tools[0].function.parameters at #/not: 'not' cannot be enforced") });
    expect(refusalOf(asks.slice(2), { ...LOCAL, logitBias: true })).toMatchObject({ param: 'thinking' });
    expect(refusalOf(asks.slice(3), THINKER)).toBeUndefined();
  });

  it("names a schema's refusal as chat completions' own where no param is given", () => {
    expect(refusalOf([{ need: 'grammar', schema: { type: 'object', not: {} } }], LOCAL)).toMatchObject({ param: 'response_format.json_schema.schema', message: expect.stringMatching(/^Invalid schema for response_format at #\/not/) });
    expect(refusalOf([{ need: 'grammar', schema: { type: 'object', not: {} }, param: 'text.format.schema', where: 'text.format' }], LOCAL)).toMatchObject({ param: 'text.format.schema', message: expect.stringMatching(/^Invalid schema for text.format at #\/not/) });
  });

  it('refuses what no model does, and a model that is not known everything it is asked', () => {
    expect(refusalOf([{ need: 'nothing', refusal: refusal('n', "'n' > 1 is not supported by model '{model}'.") }], REMOTE)).toMatchObject({ param: 'n', message: "'n' > 1 is not supported by model 'far'." });
    expect(refusalOf([{ need: 'reasoning', refusal: refusal('reasoning.effort', "model 'x' does not reason") }], undefined)).toMatchObject({ param: 'reasoning.effort' });
  });
});

describe('reading', () => {
  it("gives a parse's result with its asks, or stops at its fault, reported after a refusal of what came before it", () => {
    const ask: Ask = { need: 'toolCalling', refusal: refusal('tools', "Tool calling is not supported by model '{model}'.") };
    const read = reading((asks) => {
      asks.push(ask);
      return { chat: REQUEST };
    });
    expect(read).toEqual({ chat: REQUEST, names: { asks: [ask] } });
    const unread = reading((asks) => {
      asks.push(ask);
      throw invalid('temperature', "Invalid 'temperature': 5 is above the maximum of 2.");
    }, { messages: 'input' });
    expect(unread).toMatchObject({ names: { asks: [ask], params: { messages: 'input' } }, fault: { param: 'temperature' } });
    if (!('fault' in unread)) throw new Error('expected a fault');
    expect(faultFor(unread, LOCAL)).toMatchObject({ param: 'tools' });
    expect(faultFor(unread, { ...LOCAL, toolCalling: true })).toBe(unread.fault);
    expect(() => admitFor(unread, LOCAL)).toThrow(expect.objectContaining({ param: 'tools' }));
  });

  it('lets an error that is not a request fault through', () => {
    expect(() => reading(() => { throw new TypeError('a bug'); })).toThrow(TypeError);
  });
});

describe('inCallerTerms', () => {
  const names = { asks: [], params: { messages: 'input', response_format: 'text.format' } };

  it("names an engine's field as the caller does, by its exact name, keeping the words, code and retry advice", () => {
    const error = inCallerTerms(new GatewayError('context_length_exceeded', 'Too long: the messages have 600 tokens.', { param: 'messages', retryAfter: 2 }), names);
    expect(error).toMatchObject({ code: 'context_length_exceeded', param: 'input', message: 'Too long: the messages have 600 tokens.', retryAfter: 2 });
    const other = new GatewayError('invalid_request', 'x', { param: 'messages[1].tool_calls[0].function.arguments' });
    expect(inCallerTerms(other, names)).toBe(other);
  });

  it("leaves a remote server's own answer, an error without a field, and inherited names as they are", () => {
    const upstream = new GatewayError('upstream_error', 'The upstream answered 400.', { param: 'messages', upstream: { status: 400 } });
    expect(inCallerTerms(upstream, names)).toBe(upstream);
    const plain = new GatewayError('queue_full', 'Too many requests.');
    expect(inCallerTerms(plain, names)).toBe(plain);
    const odd = new GatewayError('invalid_request', 'x', { param: 'constructor' });
    expect(inCallerTerms(odd, names)).toBe(odd);
    expect(inCallerTerms(upstream, { asks: [] })).toBe(upstream);
  });
});
