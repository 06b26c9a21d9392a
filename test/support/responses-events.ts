/**
 * Checks of a Responses API event stream (`POST /responses` with `stream: true`), for every test
 * that reads one: the unit tests of the translation, the property test, the remote-model and
 * agreement tests. They check what `openai`'s `responses.stream` relies on, independently of the
 * gateway's code: the SSE framing, sequence numbers, items opened before their deltas and closed
 * once, deltas adding up to their done events, and the final response made of the done items.
 */
import { expect } from 'vitest';

export type ResponsesEvent = { readonly type: string; readonly sequence_number: number } & Readonly<Record<string, unknown>>;

/** The events that end a stream: nothing may follow them. */
export const TERMINAL_EVENTS = ['response.completed', 'response.incomplete', 'error'] as const;

/** Each event is an `event:` line and a `data:` line whose JSON names the same type; the body ends with a blank line. */
export function parseResponsesSSE(wire: string): ResponsesEvent[] {
  expect(wire.endsWith('\n\n'), 'SSE body ends with a blank line').toBe(true);
  expect(wire.includes('\r')).toBe(false);
  return wire
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      expect(lines, 'an event: and a data: line').toHaveLength(2);
      expect(lines[0]!.startsWith('event: ')).toBe(true);
      expect(lines[1]!.startsWith('data: ')).toBe(true);
      const data = JSON.parse(lines[1]!.slice(6)) as ResponsesEvent;
      expect(typeof data === 'object' && data !== null && !Array.isArray(data)).toBe(true);
      expect(data.type).toBe(lines[0]!.slice(7));
      return data;
    });
}

/**
 * A whole stream: `response.created`, `response.in_progress`, then items, then exactly one
 * terminal event, last. Returns the final response, or undefined when the stream ended with an
 * `error` event (whose fields are checked here).
 */
export function expectWellFormedEvents(events: readonly ResponsesEvent[]): Record<string, unknown> | undefined {
  expect(events.map((e) => e.sequence_number), 'sequence numbers 0..n-1').toEqual(events.map((_, i) => i));
  expect(events.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
  const last = events.at(-1)!;
  expect(TERMINAL_EVENTS as readonly string[]).toContain(last.type);
  expect(events.slice(0, -1).filter((e) => (TERMINAL_EVENTS as readonly string[]).includes(e.type)), 'a terminal event before the last').toEqual([]);
  for (const e of events.slice(0, 2)) {
    const response = e.response as Record<string, unknown>;
    expect(response).toMatchObject({ object: 'response', status: 'in_progress', output: [], usage: null });
    expect(response.id).toBe((events[0]!.response as { id: string }).id);
  }

  const open = new Map<number, { id: string; type: string; text: string; args: string; parts: number }>();
  const done = new Map<number, Record<string, unknown>>();
  const itemAt = (e: ResponsesEvent) => {
    const item = open.get(e.output_index as number);
    expect(item, `${e.type} at output_index ${String(e.output_index)} names an open item`).toBeDefined();
    expect(e.item_id).toBe(item!.id);
    return item!;
  };
  for (const e of events) {
    switch (e.type) {
      case 'response.output_item.added': {
        const item = e.item as { id: string; type: string; status: string };
        expect(e.output_index, 'items added in order').toBe(open.size + done.size);
        expect(['message', 'function_call']).toContain(item.type);
        expect(item.status).toBe('in_progress');
        expect(typeof item.id).toBe('string');
        open.set(e.output_index as number, { id: item.id, type: item.type, text: '', args: '', parts: 0 });
        break;
      }
      case 'response.content_part.added':
        expect(itemAt(e).type).toBe('message');
        expect(e.content_index).toBe(0);
        itemAt(e).parts++;
        break;
      case 'response.output_text.delta':
        expect(e.content_index).toBe(0);
        expect(itemAt(e).parts, 'a text delta after its content part').toBe(1);
        itemAt(e).text += e.delta as string;
        break;
      case 'response.output_text.done':
        expect(e.content_index).toBe(0);
        expect(e.text).toBe(itemAt(e).text);
        break;
      case 'response.content_part.done':
        expect(e.content_index).toBe(0);
        expect((e.part as { text: string }).text).toBe(itemAt(e).text);
        break;
      case 'response.function_call_arguments.delta':
        expect(itemAt(e).type).toBe('function_call');
        itemAt(e).args += e.delta as string;
        break;
      case 'response.function_call_arguments.done':
        expect(itemAt(e).type).toBe('function_call');
        expect(e.arguments).toBe(itemAt(e).args);
        break;
      case 'response.output_item.done': {
        const item = e.item as { id: string; type: string; arguments?: string; content?: { text: string }[] };
        const opened = open.get(e.output_index as number);
        expect(item.id).toBe(opened?.id);
        if (item.type === 'message') expect(item.content!.map((part) => part.text).join('')).toBe(opened!.text);
        else expect(item.arguments).toBe(opened!.args);
        open.delete(e.output_index as number);
        done.set(e.output_index as number, e.item as Record<string, unknown>);
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        expect(open.size, 'items left open at the end').toBe(0);
        const response = e.response as { id: string; status: string; output: unknown[] };
        expect(response.id).toBe((events[0]!.response as { id: string }).id);
        expect(response.status).toBe(e.type.slice('response.'.length));
        expect(response.output, 'the final output is the done items').toEqual(response.output.map((_, i) => done.get(i)));
        expect(response.output).toHaveLength(done.size);
        return response;
      }
      case 'error':
        expect(Object.keys(e).sort()).toEqual(['code', 'message', 'param', 'sequence_number', 'type']);
        expect(typeof e.code).toBe('string');
        expect(typeof e.message).toBe('string');
        expect(e.param === null || typeof e.param === 'string').toBe(true);
        return undefined;
      case 'response.created':
      case 'response.in_progress':
        break;
      default:
        throw new Error(`unexpected event type ${e.type}`);
    }
  }
  throw new Error('unreachable: the last event is terminal');
}
