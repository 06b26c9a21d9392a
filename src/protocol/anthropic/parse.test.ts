import { describe, expect, it } from 'vitest';
import { admitFor } from '../../core/admit.ts';
import type { ModelInfo } from '../../core/engine.ts';
import { GatewayError } from '../../core/errors.ts';
import { parseMessages } from './parse.ts';
import type { AnthropicVersion } from './version.ts';

/**
 * The body parsed and admitted for `model`: what the chat path gives that model, or the 400 it
 * throws; its thinking shown as the Messages route shows it.
 */
function parseFor(body: Record<string, unknown>, model: ModelInfo, version: AnthropicVersion) {
  const { parsed, chat } = admitFor(parseMessages(body, version), model);
  return { chat, stream: parsed.stream, showThinking: parsed.showThinking && model.upstream === undefined };
}

const MODEL: ModelInfo = { id: 'chat-m', kind: 'chat', engine: 'test', contextWindow: 512, maxOutputTokens: 256 };
const USER = [{ role: 'user', content: 'hi' }];

function parse(body: Record<string, unknown>, version: AnthropicVersion = '2026-10-21') {
  return parseFor({ model: 'chat-m', max_tokens: 100, messages: USER, ...body }, MODEL, version);
}

function failureOf(body: Record<string, unknown>, version: AnthropicVersion = '2026-10-21'): GatewayError {
  try {
    parse(body, version);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    return error as GatewayError;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected under ${version}`);
}

describe('parseMessages: accepted requests', () => {
  it('parses a minimal request', () => {
    expect(parse({ stop_sequences: ['END', ''] })).toEqual({
      chat: { model: 'chat-m', messages: [{ role: 'user', content: 'hi' }], maxTokens: 100, maxTokensSet: true, temperature: undefined, topP: undefined, topK: undefined, stop: ['END'] },
      stream: false,
      showThinking: false,
    });
  });

  it('puts a string system prompt first', () => {
    expect(parse({ system: 'be brief' }).chat.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('accepts system as text blocks and content as text blocks', () => {
    const { chat } = parse({
      system: [{ type: 'text', text: 'one', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'two' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'one\ntwo' },
      { role: 'user', content: 'a\nb' },
    ]);
  });

  it('merges consecutive same-role turns', () => {
    const { chat } = parse({
      system: 'top',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'c' },
        { role: 'assistant', content: 'd' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'top' },
      { role: 'user', content: 'a\n\nb' },
      { role: 'assistant', content: 'c\n\nd' },
    ]);
  });

  it('refuses a system role among the messages, as the real API does (the system prompt is the top-level field)', () => {
    const error = (() => {
      try {
        parse({ system: 'top', messages: [{ role: 'system', content: 'inline' }, ...USER] });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toMatchObject({ code: 'invalid_request', param: 'messages.0.role', message: expect.stringMatching(/Unexpected role "system".*top-level `system` parameter/) });
  });

  it('keeps a trailing assistant turn as a prefill', () => {
    expect(parse({ messages: [...USER, { role: 'assistant', content: 'Sure,' }] }).chat.messages.at(-1)).toEqual({ role: 'assistant', content: 'Sure,' });
  });

  it('reads stream', () => {
    expect(parse({ stream: true }).stream).toBe(true);
    expect(parse({ stream: null }).stream).toBe(false);
  });

  it.each(['2023-06-01', '2023-01-01'] as const)('accepts sampling parameters under %s', (version) => {
    expect(parse({ temperature: 0.5, top_p: 0.9, top_k: 40 }, version).chat).toMatchObject({ temperature: 0.5, topP: 0.9, topK: 40 });
  });

  it('accepts metadata, disabled thinking, empty tools and other extra fields', () => {
    expect(() => parse({ metadata: { user_id: 'u' }, thinking: { type: 'disabled' }, tools: [], service_tier: 'auto' })).not.toThrow();
  });

  it('does not modify the body', () => {
    const body = { model: 'chat-m', max_tokens: 5, system: [{ type: 'text', text: 's' }], messages: [...USER, { role: 'user', content: 'x' }] };
    const copy = structuredClone(body);
    parseFor(body, MODEL, '2026-10-21');
    expect(body).toEqual(copy);
  });
});

describe('parseMessages: structured output (output_config.format)', () => {
  const JSON_MODEL: ModelInfo = { ...MODEL, structuredOutput: true };
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const parseWith = (body: Record<string, unknown>, model = JSON_MODEL) => parseFor({ model: 'chat-m', max_tokens: 100, messages: USER, ...body }, model, '2026-10-21');

  it('constrains the answer to the schema, strictly, as OpenAI json_schema does', () => {
    expect(parseWith({ output_config: { format: { type: 'json_schema', schema }, effort: 'low' } }).chat.output).toEqual({ kind: 'json_schema', schema, strict: true });
    expect(parseWith({ output_config: { effort: 'high' } }).chat.output).toBeUndefined();
  });

  it.each([
    [{ output_config: 'json' }, 'output_config'],
    [{ output_config: { format: { type: 'json_object' } } }, 'output_config.format.type'],
    [{ output_config: { format: { type: 'json_schema' } } }, 'output_config.format.schema'],
    [{ output_config: { format: { type: 'json_schema', schema: { type: 'object', not: {} } } } }, undefined],
    [{ output_config: { format: { type: 'json_schema', schema } }, messages: [...USER, { role: 'assistant', content: '{' }] }, 'messages'],
  ])('refuses %j naming %s', (body, param) => {
    let error: unknown;
    try {
      parseWith(body as Record<string, unknown>);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    if (param !== undefined) expect((error as GatewayError).param).toBe(param);
  });

  it('refuses it on a model without structured output', () => {
    expect(() => parseWith({ output_config: { format: { type: 'json_schema', schema } } }, MODEL)).toThrow(/structured output is not supported by model 'chat-m'/);
  });
});

describe('parseMessages: each bad field is a 400 naming it', () => {
  it.each([
    ['max_tokens missing', { max_tokens: undefined }, 'max_tokens'],
    ['max_tokens null', { max_tokens: null }, 'max_tokens'],
    ['max_tokens a string', { max_tokens: '5' }, 'max_tokens'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'],
    ['max_tokens negative', { max_tokens: -3 }, 'max_tokens'],
    ['max_tokens fractional', { max_tokens: 2.5 }, 'max_tokens'],
    ['max_tokens above the model cap', { max_tokens: 257 }, 'max_tokens'],
    ['messages missing', { messages: undefined }, 'messages'],
    ['messages a string', { messages: 'hi' }, 'messages'],
    ['messages empty', { messages: [] }, 'messages'],
    ['a system turn among the messages', { messages: [{ role: 'system', content: 'x' }] }, 'messages.0.role'],
    ['a message that is not an object', { messages: [7] }, 'messages.0'],
    ['an unknown role', { messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role'],
    ['the role constructor', { messages: [{ role: 'constructor', content: 'x' }] }, 'messages.0.role'],
    ['content missing', { messages: [{ role: 'user' }] }, 'messages.0.content'],
    ['content a number', { messages: [{ role: 'user', content: 1 }] }, 'messages.0.content'],
    ['an image block', { messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] }, 'messages.0.content.0.type'],
    ['a tool_result block that answers no call', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't' }] }] }, 'messages'],
    ['a tool_use block from the user', { messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }] }, 'messages.0.content.0.type'],
    ['a tool_use block without input', { messages: [...USER, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f' }] }] }, 'messages.1.content.0.input'],
    ['a block that is a string', { messages: [{ role: 'user', content: ['x'] }] }, 'messages.0.content.0'],
    ['a text block without text', { messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages.0.content.0.text'],
    ['a bad second message', { messages: [...USER, { role: 'assistant', content: [{ type: 'text', text: 1 }] }] }, 'messages.1.content.0.text'],
    ['system a number', { system: 5 }, 'system'],
    ['system with an image block', { system: [{ type: 'image' }] }, 'system.0.type'],
    ['stop_sequences a string', { stop_sequences: 'END' }, 'stop_sequences'],
    ['stop_sequences with a number', { stop_sequences: ['a', 1] }, 'stop_sequences'],
    ['stream a string', { stream: 'true' }, 'stream'],
    ['tools, on a model without tool calling', { tools: [{ name: 't', input_schema: { type: 'object' } }] }, 'tools'],
    ['enabled thinking', { thinking: { type: 'enabled', budget_tokens: 1024 } }, 'thinking'],
  ])('%s', (_, body, param) => {
    expect(failureOf(body).param).toBe(param);
  });

  it('says "max_tokens: Field required" when max_tokens is missing', () => {
    expect(failureOf({ max_tokens: undefined }).message).toBe('max_tokens: Field required');
  });

  it.each(['temperature', 'top_p', 'top_k'])('rejects %s under 2026-10-21, even at a default value', (key) => {
    const error = failureOf({ [key]: 1 }, '2026-10-21');
    expect(error.param).toBe(key);
    expect(error.message).toContain('2026-10-21');
  });

  it.each([
    ['temperature', 1.5],
    ['temperature', -0.1],
    ['top_p', 2],
    ['top_k', -1],
    ['top_k', 1.5],
    ['temperature', 'warm'],
  ])('rejects %s = %j under 2023-06-01', (key, value) => {
    expect(failureOf({ [key]: value }, '2023-06-01').param).toBe(key);
  });
});

describe('parseMessages: thinking', () => {
  const THINKER: ModelInfo = { ...MODEL, contextWindow: 8192, maxOutputTokens: 4096, reasoning: { open: '<think>', close: '</think>', switch: 'enable_thinking' } };
  const parseThinker = (thinking: unknown, maxTokens = 2048) => parseFor({ model: 'chat-m', max_tokens: maxTokens, messages: USER, thinking }, THINKER, '2026-10-21');

  it('shows a thinking model\'s thinking when enabled (unless omitted), hides it otherwise, and turns it off when disabled', () => {
    expect(parseThinker({ type: 'enabled', budget_tokens: 1024 })).toMatchObject({ showThinking: true });
    expect(parseThinker({ type: 'adaptive' })).toMatchObject({ showThinking: true });
    expect(parseThinker({ type: 'adaptive', display: 'omitted' })).toMatchObject({ showThinking: false });
    expect(parseThinker(undefined)).toMatchObject({ showThinking: false });
    expect(parseThinker(undefined).chat).not.toHaveProperty('thinking');
    expect(parseThinker({ type: 'disabled' })).toMatchObject({ showThinking: false, chat: { thinking: false } });
  });

  it('carries enabled thinking\'s budget_tokens as the thinking budget, and no budget otherwise', () => {
    expect(parseThinker({ type: 'enabled', budget_tokens: 1500 }).chat.thinkingBudget).toBe(1500);
    for (const thinking of [{ type: 'adaptive' }, { type: 'disabled' }, undefined]) expect(parseThinker(thinking).chat).not.toHaveProperty('thinkingBudget');
  });

  it('refuses a budget_tokens not below max_tokens, in the real API\'s words', () => {
    for (const [budget, maxTokens] of [[1024, 1024], [2000, 1500]] as const) {
      expect(() => parseThinker({ type: 'enabled', budget_tokens: budget }, maxTokens)).toThrow(
        expect.objectContaining({ code: 'invalid_request', param: 'max_tokens', message: '`max_tokens` must be greater than `thinking.budget_tokens`' }),
      );
    }
    expect(parseThinker({ type: 'enabled', budget_tokens: 1024 }, 1025).chat.thinkingBudget).toBe(1024);
  });

  it('passes a remote model\'s budget on, leaving its rules to its server', () => {
    const remote: ModelInfo = { ...MODEL, upstream: { baseURL: 'http://up.test/v1', speaks: ['anthropic'] } };
    const parseRemote = (thinking: unknown) => parseFor({ model: 'chat-m', max_tokens: 100, messages: USER, thinking }, remote, '2026-10-21').chat;
    expect(parseRemote({ type: 'enabled', budget_tokens: 2000 }).thinkingBudget).toBe(2000);
    expect(parseRemote({ type: 'enabled', budget_tokens: 'lots' })).not.toHaveProperty('thinkingBudget');
  });

  it.each([
    [{ type: 'enabled' }, 'thinking.budget_tokens'],
    [{ type: 'enabled', budget_tokens: 512 }, 'thinking.budget_tokens'],
    [{ type: 'sometimes' }, 'thinking.type'],
    [{ type: 'adaptive', display: 'loud' }, 'thinking.display'],
    ['on', 'thinking'],
  ])('refuses %j naming %s', (thinking, param) => {
    expect(() => parseThinker(thinking)).toThrow(expect.objectContaining({ code: 'invalid_request', param }));
  });
});
