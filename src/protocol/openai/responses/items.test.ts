import { describe, expect, it } from 'vitest';
import { faultFor, reading, refusalOf } from '../../../core/admit.ts';
import type { ModelInfo } from '../../../core/engine.ts';
import { GatewayError } from '../../../core/errors.ts';
import { parseInput, resolveReferences, toConversation, toWireItem, type ConversationItem } from './items.ts';

const MODEL = 'tiny-chat';
/** The model named, which does not reason. */
const PLAIN: ModelInfo = { id: MODEL, kind: 'chat', engine: 'test', contextWindow: 512 };

/** The error `run` throws: a GatewayError, whose param and message the caller checks. */
function failure(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

/** The 400 `input` gets for a model named that does not reason: what it asks of the model, or the fault that ends it. */
function rejected(input: unknown): GatewayError {
  const error = failure(() => {
    const read = reading((asks) => ({ input: parseInput(input, MODEL, asks) }));
    if ('fault' in read) throw faultFor(read, PLAIN);
    const refused = refusalOf(read.names.asks, PLAIN);
    if (refused) throw refused;
  });
  expect(error.code).toBe('invalid_request');
  expect(error.status).toBe(400);
  return error;
}

describe('parseInput: what is accepted', () => {
  it('reads a string as one user message, and no input as none', () => {
    expect(parseInput('Hello.', MODEL)).toEqual([{ type: 'message', role: 'user', text: 'Hello.' }]);
    expect(parseInput('', MODEL)).toEqual([{ type: 'message', role: 'user', text: '' }]);
    expect(parseInput(undefined, MODEL)).toEqual([]);
    expect(parseInput(null, MODEL)).toEqual([]);
  });

  it('reads messages with input_text and output_text parts, joined, and easy messages without a type', () => {
    const items = parseInput(
      [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
        { role: 'user', content: 'Hi' },
        { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'Hel' }, { type: 'output_text', text: 'lo' }] },
        { role: 'system', content: [{ type: 'input_text', text: 'a' }, { type: 'text', text: 'b' }] },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
      ],
      MODEL,
    );
    expect(items).toEqual([
      { type: 'message', role: 'developer', text: 'Be brief.' },
      { type: 'message', role: 'user', text: 'Hi' },
      { type: 'message', id: 'msg_1', role: 'assistant', text: 'Hello' },
      { type: 'message', role: 'system', text: 'ab' },
      { type: 'message', role: 'assistant', text: 'No.' },
    ]);
  });

  it('reads function calls and their outputs (string or text parts), empty arguments included', () => {
    expect(
      parseInput(
        [
          { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'call_2', name: 'now', arguments: '' },
          { type: 'function_call_output', call_id: 'call_1', output: 'Sunny.' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '12:00' }] },
        ],
        MODEL,
      ),
    ).toEqual([
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'now', arguments: '' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny.' },
      { type: 'function_call_output', call_id: 'call_2', output: '12:00' },
    ]);
  });

  it('keeps item references with where they sit, for the 404 that names them', () => {
    expect(parseInput([{ type: 'item_reference', id: 'msg_9' }], MODEL)).toEqual([{ type: 'item_reference', id: 'msg_9', at: 'input[0]' }]);
    expect(parseInput([{ role: 'user', content: 'a' }, { type: 'item_reference', id: 'fc_2' }], MODEL)[1]).toEqual({ type: 'item_reference', id: 'fc_2', at: 'input[1]' });
  });
});

describe('parseInput: each malformed item is a 400 naming where it is', () => {
  it.each([
    ['a number for input', 5, 'input'],
    ['an object for input', { role: 'user', content: 'hi' }, 'input'],
    ['an item that is not an object', ['hi'], 'input[0]'],
    ['a message without a role', [{ content: 'hi' }], 'input[0].role', "Missing required parameter: 'input[0].role'."],
    ['a part without a type', [{ role: 'user', content: [{ text: 'hi' }] }], 'input[0].content[0].type', "Missing required parameter: 'input[0].content[0].type'."],
    ['a message with an unknown role', [{ role: 'tool', content: 'hi' }], 'input[0].role'],
    ['a message with a prototype name for a role', [{ role: 'constructor', content: 'hi' }], 'input[0].role'],
    ['a message without content', [{ role: 'user' }], 'input[0].content'],
    ['content of the wrong type', [{ role: 'user', content: 5 }], 'input[0].content'],
    ['a part that is not an object', [{ role: 'user', content: ['hi'] }], 'input[0].content[0]'],
    ['a part of an unknown type', [{ role: 'user', content: [{ type: 'video', text: 'x' }] }], 'input[0].content[0].type'],
    ['an image part', [{ role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: 'x' }] }], 'input[0].content[1].type'],
    ['a text part without text', [{ role: 'user', content: [{ type: 'input_text' }] }], 'input[0].content[0].text'],
    ['a refusal part without refusal', [{ role: 'assistant', content: [{ type: 'refusal', text: 'x' }] }], 'input[0].content[0].refusal'],
    ['a call without call_id', [{ type: 'function_call', name: 'f', arguments: '{}' }], 'input[0].call_id'],
    ['a call with an empty name', [{ type: 'function_call', call_id: 'c', name: '', arguments: '{}' }], 'input[0].name'],
    ['a call with arguments that are not a string', [{ type: 'function_call', call_id: 'c', name: 'f', arguments: { a: 1 } }], 'input[0].arguments'],
    ['an output without output', [{ type: 'function_call_output', call_id: 'c' }], 'input[0].output'],
    ['an output of the wrong type', [{ type: 'function_call_output', call_id: 'c', output: 3 }], 'input[0].output'],
    ['an id that is not a string', [{ role: 'user', content: 'a', id: 7 }], 'input[0].id'],
    ['a reference without an id', [{ role: 'user', content: 'a' }, { type: 'item_reference' }], 'input[1].id'],
    ['an unknown item type', [{ type: 'note', text: 'x' }], 'input[0].type'],
    ['an item type that is not a string', [{ type: 3 }], 'input[0].type'],
  ])('%s', (_, input, param, message?: string) => {
    const error = rejected(input);
    expect(error.param).toBe(param);
    if (message) expect(error.message).toBe(message);
    // A missing value is named as missing, never described as "a undefined undefined".
    expect(error.message).not.toContain('undefined');
  });

  it('says reasoning items need a model that reasons, naming the model', () => {
    const error = rejected([{ role: 'user', content: 'a' }, { type: 'reasoning', id: 'rs_1', summary: [] }]);
    expect(error.param).toBe('input[1].type');
    expect(error.message).toContain(`model '${MODEL}', which does not reason`);
  });

  it.each(['web_search_call', 'file_search_call', 'computer_call', 'mcp_call', 'code_interpreter_call', 'image_generation_call'])('says %s items need hosted tools', (type) => {
    const error = rejected([{ type, id: 'x_1' }]);
    expect(error.param).toBe('input[0].type');
    expect(error.message).toBe(`Items of type '${type}' are not supported: model '${MODEL}' runs no hosted tools; only function tools are available.`);
  });
});

describe('resolveReferences', () => {
  const stored: Record<string, ConversationItem> = {
    msg_a: { type: 'message', id: 'msg_a', role: 'assistant', text: 'Earlier answer.' },
    fc_b: { type: 'function_call', id: 'fc_b', call_id: 'call_b', name: 'f', arguments: '{}' },
    rs_c: { type: 'reasoning', id: 'rs_c', summary: [], text: 'Earlier thought.' },
  };
  const find = async (id: string) => stored[id];

  it('resolves a reference to a reasoning item for a model that reasons, which the prompt then leaves out', async () => {
    const items = parseInput([{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'rs_c' }, { type: 'item_reference', id: 'msg_a' }, { role: 'user', content: 'And?' }], MODEL);
    const resolved = await resolveReferences(items, find, { reasons: true, model: MODEL });
    expect(resolved).toEqual([{ type: 'message', role: 'user', text: 'Hi' }, stored.rs_c, stored.msg_a, { type: 'message', role: 'user', text: 'And?' }]);
    expect(toConversation(resolved, 0)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Earlier answer.' },
      { role: 'user', content: 'And?' },
    ]);
  });

  it('refuses a reference to a reasoning item for a model that does not reason, as the item sent inline is refused', async () => {
    const items = parseInput([{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'rs_c' }], MODEL);
    const error = (await resolveReferences(items, find, { reasons: false, model: MODEL }).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(400);
    expect(error.param).toBe('input[1]');
    expect(error.message).toBe(`Item 'rs_c' is a reasoning item, and reasoning items are not supported by model '${MODEL}', which does not reason: leave it out of 'input[1]'.`);
  });

  it('replaces each reference with the stored item, in place, and keeps other items as they are', async () => {
    const items = parseInput([{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'msg_a' }, { type: 'item_reference', id: 'fc_b' }], MODEL);
    expect(await resolveReferences(items, find)).toEqual([{ type: 'message', role: 'user', text: 'Hi' }, stored.msg_a, stored.fc_b]);
  });

  it('answers an unknown id with a 404 naming the id and where it was referenced', async () => {
    const items = parseInput([{ role: 'user', content: 'Hi' }, { type: 'item_reference', id: 'msg_gone' }], MODEL);
    const error = await resolveReferences(items, find).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    // A stored thing this server does not hold, not an unknown URL (whose wire code is unknown_url).
    expect((error as GatewayError).code).toBe('resource_not_found');
    expect((error as GatewayError).status).toBe(404);
    expect((error as GatewayError).param).toBe('input[1]');
    expect((error as GatewayError).message).toBe("Item with id 'msg_gone' not found.");
  });
});

describe('toConversation', () => {
  it('turns messages into neutral messages of the same role (developer and system: system)', () => {
    const items = parseInput([{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }], MODEL) as ConversationItem[];
    expect(toConversation(items, 0)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
    ]);
  });

  it('joins calls to the assistant turn before them, or opens one, and answers them with tool messages named by their tool', () => {
    const items = parseInput(
      [
        { role: 'user', content: 'Weather and time?' },
        { role: 'assistant', content: 'Let me look.' },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'Sunny.' },
        { type: 'function_call_output', call_id: 'c2', output: 'Noon.' },
        { type: 'function_call', call_id: 'c3', name: 'time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c3', output: 'Still noon.' },
      ],
      MODEL,
    ) as ConversationItem[];
    expect(toConversation(items, 0)).toEqual([
      { role: 'user', content: 'Weather and time?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
          { id: 'c2', name: 'time', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', toolName: 'weather', content: 'Sunny.' },
      { role: 'tool', toolCallId: 'c2', toolName: 'time', content: 'Noon.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c3', name: 'time', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c3', toolName: 'time', content: 'Still noon.' },
    ]);
  });

  it('refuses an output with no earlier call, naming its place in this request’s input', () => {
    const earlier: ConversationItem[] = [
      { type: 'message', role: 'user', text: 'Hi' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    ];
    // An output for an earlier turn's call is answered; one for no call names its own input index.
    expect(toConversation([...earlier, { type: 'function_call_output', call_id: 'c1', output: 'ok' }], 2).at(-1)).toEqual({ role: 'tool', toolCallId: 'c1', toolName: 'f', content: 'ok' });
    const error = failure(() => toConversation([...earlier, { type: 'message', role: 'user', text: 'and' }, { type: 'function_call_output', call_id: 'c9', output: 'x' }], 2));
    expect(error.status).toBe(400);
    expect(error.param).toBe('input[1].call_id');
    expect(error.message).toBe("No tool call found for function call output with call_id 'c9'.");
  });

  it('refuses an output that comes before its call', () => {
    const error = failure(() =>
      toConversation(
        [
          { type: 'function_call_output', call_id: 'c1', output: 'x' },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        ],
        0,
      ),
    );
    expect(error.param).toBe('input[0].call_id');
  });
});

describe('toWireItem', () => {
  it('lists items as GET /responses/{id}/input_items shows them, with their own id or the fallback', () => {
    expect(toWireItem({ type: 'message', role: 'user', text: 'Hi' }, 'resp_1_in_0')).toEqual({
      type: 'message',
      id: 'resp_1_in_0',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_text', text: 'Hi' }],
    });
    expect(toWireItem({ type: 'message', id: 'msg_1', role: 'assistant', text: 'Yo' }, 'x')).toEqual({
      type: 'message',
      id: 'msg_1',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Yo', annotations: [] }],
    });
    expect(toWireItem({ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }, 'x')).toEqual({ type: 'function_call', id: 'x', call_id: 'c', name: 'f', arguments: '{}', status: 'completed' });
    expect(toWireItem({ type: 'function_call_output', id: 'fco_1', call_id: 'c', output: 'ok' }, 'x')).toEqual({ type: 'function_call_output', id: 'fco_1', call_id: 'c', output: 'ok', status: 'completed' });
  });

  it('lists a reasoning item with its summary, and its thinking as content where it has it', () => {
    expect(toWireItem({ type: 'reasoning', id: 'rs_1', summary: ['Short.'], text: 'Long thought.' }, 'x')).toEqual({
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: 'Short.' }],
      content: [{ type: 'reasoning_text', text: 'Long thought.' }],
      status: 'completed',
    });
    expect(toWireItem({ type: 'reasoning', summary: [] }, 'resp_1_in_1')).toEqual({ type: 'reasoning', id: 'resp_1_in_1', summary: [], status: 'completed' });
  });
});
