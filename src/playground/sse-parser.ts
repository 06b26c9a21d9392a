/**
 * An incremental server-sent-events parser: feed it text as it arrives, get whole events back.
 * Events end at a blank line; `data:` lines join with newlines; comments (`:`) are dropped.
 * Both flavours use it: OpenAI sends `data:` only, Anthropic an `event:` line before each `data:`.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 * @module
 */

export interface SSEEvent {
  /** The `event:` field; absent for OpenAI chunks. */
  readonly event?: string;
  readonly data: string;
}

export interface SSEParser {
  /** Returns the events completed by this text (possibly none: an event may span chunks). */
  feed(text: string): SSEEvent[];
  /** Whatever was left without a closing blank line (a cut-off stream). */
  rest(): string;
}

export function createSSEParser(): SSEParser {
  let buffer = '';
  return {
    feed(text) {
      buffer += text;
      const events: SSEEvent[] = [];
      for (;;) {
        const end = /\r\n\r\n|\n\n|\r\r/.exec(buffer);
        if (!end) break;
        const block = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        const event = parseBlock(block);
        if (event) events.push(event);
      }
      return events;
    },
    rest: () => buffer,
  };
}

function parseBlock(block: string): SSEEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r\n|\n|\r/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') event = value;
    else if (name === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') };
}
