import { describe, expect, it } from 'vitest';
import { admitFor } from '../../../core/admit.ts';
import type { ModelInfo } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { parseChatCompletion } from './parse.ts';

const MODEL: ModelInfo = { id: 'chat-m', kind: 'chat', engine: 'test', contextWindow: 512, maxOutputTokens: 256 };
const USER = [{ role: 'user', content: 'hi' }];

/** The body parsed and admitted for `model`: what the chat path gives that model, or the 400 it throws. */
function parseFor(body: Record<string, unknown>, model: ModelInfo) {
  const { parsed, chat } = admitFor(parseChatCompletion(body), model);
  return { chat, stream: parsed.stream, includeUsage: parsed.includeUsage };
}

function parse(body: Record<string, unknown>) {
  return parseFor({ model: 'chat-m', messages: USER, ...body }, MODEL);
}

function paramOf(body: Record<string, unknown>): string | undefined {
  try {
    parse(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).status).toBe(400);
    return (error as GatewayError).param;
  }
  throw new Error(`expected ${JSON.stringify(body)} to be rejected`);
}

describe('parseChatCompletion: accepted requests', () => {
  it('parses a minimal request with the model cap as default max tokens', () => {
    expect(parse({})).toEqual({
      chat: {
        model: 'chat-m',
        messages: [{ role: 'user', content: 'hi' }],
        maxTokens: 256,
        temperature: undefined,
        topP: undefined,
        seed: undefined,
        presencePenalty: undefined,
        frequencyPenalty: undefined,
        stop: [],
      },
      stream: false,
      includeUsage: false,
    });
  });

  it('falls back to the context window when the model has no output cap', () => {
    const chat = parseFor({ model: 'x', messages: USER }, { ...MODEL, maxOutputTokens: undefined }).chat;
    expect(chat.maxTokens).toBe(512);
  });

  it('maps developer to system, joins text parts, and lets assistant content be null', () => {
    const { chat } = parse({
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'be brief' }] },
        { role: 'system', content: 'and kind' },
        { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], name: 'bob' },
        { role: 'assistant', content: null },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'system', content: 'and kind' },
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'no' },
    ]);
  });

  it('reads the sampling fields', () => {
    const { chat } = parse({ temperature: 0.7, top_p: 0.9, seed: 42, presence_penalty: -1, frequency_penalty: 2, max_tokens: 10 });
    expect(chat).toMatchObject({ temperature: 0.7, topP: 0.9, seed: 42, presencePenalty: -1, frequencyPenalty: 2, maxTokens: 10 });
  });

  it('prefers max_completion_tokens over max_tokens', () => {
    expect(parse({ max_completion_tokens: 5, max_tokens: 200 }).chat.maxTokens).toBe(5);
    expect(parse({ max_completion_tokens: null, max_tokens: 7 }).chat.maxTokens).toBe(7);
  });

  it('accepts stop as a string or up to four strings, dropping empty ones', () => {
    expect(parse({ stop: '###' }).chat.stop).toEqual(['###']);
    expect(parse({ stop: '' }).chat.stop).toEqual([]);
    expect(parse({ stop: ['a', '', 'b', 'c'] }).chat.stop).toEqual(['a', 'b', 'c']);
  });

  it('treats null like an absent field', () => {
    const parsed = parse({ stream: null, stream_options: null, temperature: null, max_tokens: null, stop: null, n: null, seed: null });
    expect(parsed.stream).toBe(false);
    expect(parsed.chat).toMatchObject({ maxTokens: 256, stop: [], temperature: undefined, seed: undefined });
  });

  it('includes usage only for streams that ask for it', () => {
    expect(parse({ stream: true }).includeUsage).toBe(false);
    expect(parse({ stream: true, stream_options: { include_usage: true } })).toMatchObject({ stream: true, includeUsage: true });
    expect(parse({ stream: false, stream_options: { include_usage: true } }).includeUsage).toBe(false);
  });

  it('accepts n: 1, empty tools, response_format text and unknown extra fields', () => {
    expect(() => parse({ n: 1, tools: [], response_format: { type: 'text' }, logprobs: false, user: 'u', metadata: { a: 'b' }, store: false })).not.toThrow();
  });

  it('does not modify the body', () => {
    const body = { model: 'chat-m', messages: [{ role: 'developer', content: [{ type: 'text', text: 'x' }] }, ...USER], stop: ['a', ''] };
    const copy = structuredClone(body);
    parseFor(body, MODEL);
    expect(body).toEqual(copy);
  });
});

describe('parseChatCompletion: logit_bias', () => {
  const BIASED: ModelInfo = { ...MODEL, logitBias: true };
  const bias = (logit_bias: unknown) => parseFor({ model: 'chat-m', messages: USER, logit_bias }, BIASED).chat.logitBias;
  const refusal = (logit_bias: unknown, model = BIASED) => {
    const error = (() => {
      try {
        parseFor({ model: 'chat-m', messages: USER, logit_bias }, model);
      } catch (e) {
        return e;
      }
      throw new Error(`expected logit_bias ${JSON.stringify(logit_bias)} to be rejected`);
    })();
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: 'logit_bias' });
    return (error as GatewayError).message;
  };

  it('maps token ids to biases, the ends of the range and fractions included', () => {
    expect(bias({ '50256': -100, '15': 100, '7': 0.5, '0': -2.25 })).toEqual(new Map([[50256, -100], [15, 100], [7, 0.5], [0, -2.25]]));
  });

  it('treats an empty object and null as absent', () => {
    expect(bias({})).toBeUndefined();
    expect(bias(null)).toBeUndefined();
    expect('logitBias' in parse({ logit_bias: {} }).chat).toBe(false);
  });

  it.each([
    ['a word', { hello: 1 }],
    ['a negative id', { '-1': 1 }],
    ['a fractional id', { '1.5': 1 }],
    ['an exponent', { '1e3': 1 }],
    ['an empty key', { '': 1 }],
    ['a padded key', { ' 5': 1 }],
  ])('refuses a key that is not a token id: %s', (_, value) => {
    expect(refusal(value)).toMatch(/^Invalid key in 'logit_bias'/);
  });

  it.each([
    ['above 100', { '5': 100.5 }],
    ['below -100', { '5': -101 }],
    ['a string', { '5': '10' }],
    ['null', { '5': null }],
    ['a boolean', { '5': true }],
  ])('refuses a bias %s', (_, value) => {
    expect(refusal(value)).toMatch(/'logit_bias' token 5/);
  });

  it.each([['a string', 'x'], ['an array', [[5, 1]]], ['a number', 5], ['a boolean', true]])('refuses a logit_bias that is %s', (_, value) => {
    expect(refusal(value)).toMatch(/^Invalid type for 'logit_bias': expected an object/);
  });

  it('refuses a non-empty logit_bias on a model whose engine cannot apply it, and takes an empty one', () => {
    expect(refusal({ '5': 1 }, MODEL)).toBe("logit_bias is not supported by model 'chat-m': its engine cannot bias token choice.");
    expect(parse({ logit_bias: {} }).chat.logitBias).toBeUndefined();
  });
});

describe('parseChatCompletion: each bad field is a 400 naming it', () => {
  it.each([
    ['messages missing', { messages: undefined }, 'messages'],
    ['messages null', { messages: null }, 'messages'],
    ['messages a string', { messages: 'hi' }, 'messages'],
    ['messages empty', { messages: [] }, 'messages'],
    ['a message that is not an object', { messages: [1] }, 'messages[0]'],
    ['a message that is an array', { messages: [[]] }, 'messages[0]'],
    ['a message without role', { messages: [{ content: 'x' }] }, 'messages[0].role'],
    ['a numeric role', { messages: [{ role: 1, content: 'x' }] }, 'messages[0].role'],
    ['an unknown role', { messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    ['a tool result that answers no call', { messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] }, 'messages[0]'],
    ['a tool result without its call id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['tool calls without arguments', { messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] }] }, 'messages[0].tool_calls[0].function.arguments'],
    ['tools, on a model without tool calling', { tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
    ['the function role', { messages: [{ role: 'function', content: 'x', name: 'f' }] }, 'messages[0].role'],
    ['the role constructor', { messages: [{ role: 'constructor', content: 'x' }] }, 'messages[0].role'],
    ['the role __proto__', { messages: [{ role: '__proto__', content: 'x' }] }, 'messages[0].role'],
    ['the role toString', { messages: [{ role: 'toString', content: 'x' }] }, 'messages[0].role'],
    ['user content missing', { messages: [{ role: 'user' }] }, 'messages[0].content'],
    ['system content null', { messages: [{ role: 'system', content: null }] }, 'messages[0].content'],
    ['content a number', { messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    ['content an object', { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] }, 'messages[0].content'],
    ['a content part that is a string', { messages: [{ role: 'user', content: ['x'] }] }, 'messages[0].content[0]'],
    ['an image part', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] }] }, 'messages[0].content[0].type'],
    ['a refusal part from the user', { messages: [{ role: 'user', content: [{ type: 'refusal', refusal: 'x' }] }] }, 'messages[0].content[0].type'],
    ['a text part without text', { messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text'],
    ['a text part with numeric text', { messages: [{ role: 'user', content: [{ type: 'text', text: 1 }] }] }, 'messages[0].content[0].text'],
    ['a bad second message', { messages: [...USER, { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'audio' }] }] }, 'messages[1].content[1].type'],
    ['stream a string', { stream: 'yes' }, 'stream'],
    ['stream a number', { stream: 1 }, 'stream'],
    ['stream_options a string', { stream_options: 'usage' }, 'stream_options'],
    ['stream_options an array', { stream_options: [] }, 'stream_options'],
    ['stream_options.include_usage a string', { stream: true, stream_options: { include_usage: 'yes' } }, 'stream_options.include_usage'],
    ['n 2', { n: 2 }, 'n'],
    ['n 0', { n: 0 }, 'n'],
    ['n fractional', { n: 1.5 }, 'n'],
    ['non-empty tools', { tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
    ['response_format json_object', { response_format: { type: 'json_object' } }, 'response_format'],
    ['response_format json_schema', { response_format: { type: 'json_schema', json_schema: { name: 's' } } }, 'response_format'],
    ['logprobs true', { logprobs: true }, 'logprobs'],
    ['max_tokens a string', { max_tokens: '5' }, 'max_tokens'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'],
    ['max_tokens negative', { max_tokens: -1 }, 'max_tokens'],
    ['max_tokens fractional', { max_tokens: 1.5 }, 'max_tokens'],
    ['max_tokens above the model cap', { max_tokens: 257 }, 'max_tokens'],
    ['max_tokens huge', { max_tokens: 1e300 }, 'max_tokens'],
    ['max_completion_tokens above the cap', { max_completion_tokens: 999, max_tokens: 5 }, 'max_completion_tokens'],
    ['max_completion_tokens a boolean', { max_completion_tokens: true }, 'max_completion_tokens'],
    ['temperature above 2', { temperature: 2.5 }, 'temperature'],
    ['temperature negative', { temperature: -0.1 }, 'temperature'],
    ['temperature a string', { temperature: 'hot' }, 'temperature'],
    ['top_p above 1', { top_p: 1.5 }, 'top_p'],
    ['seed fractional', { seed: 1.5 }, 'seed'],
    ['presence_penalty above 2', { presence_penalty: 3 }, 'presence_penalty'],
    ['frequency_penalty below -2', { frequency_penalty: -3 }, 'frequency_penalty'],
    ['stop a number', { stop: 5 }, 'stop'],
    ['stop with a non-string', { stop: ['a', 1] }, 'stop'],
    ['stop with five strings', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['stop an object', { stop: { a: 1 } }, 'stop'],
  ])('%s', (_, body, param) => {
    expect(paramOf(body)).toBe(param);
  });

  it('says what it expected and what it got', () => {
    try {
      parse({ max_tokens: '5' });
    } catch (error) {
      expect((error as Error).message).toBe("Invalid type for 'max_tokens': expected an integer, but got '5'.");
      return;
    }
    throw new Error('expected a rejection');
  });
});

describe('parseChatCompletion: thinking switches', () => {
  it('turns thinking off with chat_template_kwargs.enable_thinking or reasoning_effort none/minimal, leaves it to the model otherwise', () => {
    expect(parse({ chat_template_kwargs: { enable_thinking: false } }).chat.thinking).toBe(false);
    expect(parse({ chat_template_kwargs: { enable_thinking: true }, reasoning_effort: 'none' }).chat.thinking).toBe(true);
    expect(parse({ reasoning_effort: 'minimal' }).chat.thinking).toBe(false);
    expect(parse({ reasoning_effort: 'high' }).chat).not.toHaveProperty('thinking');
    expect(parse({}).chat).not.toHaveProperty('thinking');
  });

  it("makes reasoning_effort low, medium and high a thinking model's budget: its own, else 1024, 4096 and none", () => {
    const thinker = (budgets?: object) => ({ ...MODEL, reasoning: { open: '<think>', close: '</think>', switch: 'enable_thinking' as const, ...(budgets ? { budgets } : {}) } });
    const budgetOf = (body: Record<string, unknown>, model: ModelInfo = thinker()) => parseFor({ model: 'chat-m', messages: USER, ...body }, model).chat.thinkingBudget;
    expect([budgetOf({ reasoning_effort: 'low' }), budgetOf({ reasoning_effort: 'medium' }), budgetOf({ reasoning_effort: 'high' })]).toEqual([1024, 4096, undefined]);
    const own = thinker({ low: 32, medium: 64, high: 128 });
    expect(['low', 'medium', 'high'].map((effort) => budgetOf({ reasoning_effort: effort }, own))).toEqual([32, 64, 128]);
    expect(budgetOf({ reasoning_effort: 'medium' }, thinker({ low: 32 }))).toBe(4096);
    // No budget where the model does not think, or is told not to, or the effort names none.
    for (const body of [{ reasoning_effort: 'xhigh' }, { reasoning_effort: 'max' }, { reasoning_effort: 'none' }, { reasoning_effort: 'low', chat_template_kwargs: { enable_thinking: false } }, {}]) expect(budgetOf(body, own)).toBeUndefined();
    expect(budgetOf({ reasoning_effort: 'low', chat_template_kwargs: { enable_thinking: true } }, own)).toBe(32);
    expect(budgetOf({ reasoning_effort: 'low' }, MODEL)).toBeUndefined();
    // The effort itself, for a remote server.
    expect(parse({ reasoning_effort: 'low' }).chat.reasoningEffort).toBe('low');
    expect(parse({ reasoning_effort: 'minimal' }).chat).not.toHaveProperty('reasoningEffort');
  });

  it.each([
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort'],
    [{ reasoning_effort: 3 }, 'reasoning_effort'],
    [{ chat_template_kwargs: 'off' }, 'chat_template_kwargs'],
    [{ chat_template_kwargs: { add_vision_id: true } }, 'chat_template_kwargs.add_vision_id'],
    [{ chat_template_kwargs: { enable_thinking: 'no' } }, 'chat_template_kwargs.enable_thinking'],
  ])('refuses %j naming %s', (body, param) => {
    expect(paramOf(body)).toBe(param);
  });
});

describe('parseChatCompletion: prediction (predicted outputs)', () => {
  const TOOL = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } };
  it('takes the content as a string or text parts, and none for null', () => {
    expect(parse({ prediction: { type: 'content', content: 'a b c' } }).chat.prediction).toBe('a b c');
    expect(parse({ prediction: { type: 'content', content: [{ type: 'text', text: 'a ' }, { type: 'text', text: 'b' }] } }).chat.prediction).toBe('a b');
    expect(parse({ prediction: null }).chat.prediction).toBeUndefined();
    expect(parse({ prediction: { type: 'content', content: '' } }).chat.prediction).toBe('');
  });
  it('refuses a malformed prediction, naming the field', () => {
    expect(paramOf({ prediction: 'a b' })).toBe('prediction');
    expect(paramOf({ prediction: { type: 'text', content: 'a' } })).toBe('prediction.type');
    expect(paramOf({ prediction: { type: 'content' } })).toBe('prediction.content');
    expect(paramOf({ prediction: { type: 'content', content: [{ type: 'image_url' }] } })).toBe('prediction.content[0]');
  });
  it('refuses the parameters predicted outputs do not go with, as OpenAI does', () => {
    const prediction = { type: 'content', content: 'x' };
    expect(paramOf({ prediction, tools: [TOOL] })).toBe('tools');
    expect(paramOf({ prediction, n: 2 })).toBe('n');
    expect(paramOf({ prediction, logprobs: true })).toBe('logprobs');
    expect(paramOf({ prediction, presence_penalty: 0.5 })).toBe('presence_penalty');
    expect(paramOf({ prediction, frequency_penalty: 0.1 })).toBe('frequency_penalty');
    expect(paramOf({ prediction, modalities: ['text', 'audio'] })).toBe('modalities');
    // What they do go with.
    expect(parse({ prediction, n: 1, logprobs: false, presence_penalty: 0, frequency_penalty: -0.5, temperature: 0.7 }).chat.prediction).toBe('x');
  });
});
