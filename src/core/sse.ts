/**
 * Server-sent events, encoded and decoded once for both flavours. OpenAI chunks carry no `event:`
 * line; Anthropic events must carry one (its SDK drops events without it). The decoder is what the
 * playground, the tests, the benchmarks and the forwarding to remote servers read streams with.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html
 * @module
 */
import { within } from './within.ts';

export interface SSEMessage {
  readonly event?: string;
  /** One line of text: JSON.stringify never emits a raw newline, so data stays on one `data:` line. */
  readonly data: string;
}

const encoder = new TextEncoder();

export function encodeSSE({ event, data }: SSEMessage): Uint8Array {
  return encoder.encode(event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`);
}

/** A comment line: every SSE reader skips it (the SDKs, browsers' EventSource); it only shows the connection is alive. */
export function encodeSSEComment(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n\n`);
}

/** How long a stream may go without a byte before a keep-alive is sent (proxies commonly cut at 30-60 s idle). */
export const KEEP_ALIVE_MS = 15_000;

export interface KeepAlive {
  /** Sent whenever `everyMs` pass with no message (a flavour's ping event, or a comment). */
  readonly message: Uint8Array;
  readonly everyMs: number;
}

/** Settled, either way. */
const settled = () => true;

/**
 * A byte stream pulled from `source` one message at a time. `onCancel` runs first when the reader
 * goes away, so the producer can stop the engine even while it is waiting for the next token.
 * Nothing holds a service worker's event open while it streams: Chromium keeps a worker alive for
 * a streamed body by itself, and stops one whose event outlives 5 minutes. With `keepAlive`, a
 * stream that waits long for its next message (a long prefill after the response began) sends it
 * meanwhile, so nothing between the engine and the reader takes the connection for idle.
 */
export function toSSEStream(source: AsyncIterator<SSEMessage>, onCancel: () => void, keepAlive?: KeepAlive): ReadableStream<Uint8Array> {
  /** A message asked for and not yet sent: a keep-alive went out while it was awaited. */
  let waiting: Promise<IteratorResult<SSEMessage>> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = waiting ?? source.next();
        waiting = undefined;
        if (keepAlive && !(await within(next.then(settled, settled), keepAlive.everyMs))) {
          waiting = next;
          controller.enqueue(keepAlive.message);
          return;
        }
        const result = await next;
        if (result.done) controller.close();
        else controller.enqueue(encodeSSE(result.value));
      },
      async cancel() {
        onCancel();
        await source.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;

/** One decoded event: its `event:` field, and its `data:` lines joined. */
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

/**
 * An incremental decoder: feed it text as it arrives, get whole events back. Events end at a blank
 * line (chunk boundaries fall anywhere: a browser merges and splits them); `data:` lines join with
 * newlines; comments (`:`) are dropped.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
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

/**
 * A byte stream of server-sent events, read as events as they arrive (the decoder above over
 * `body`): what reads an upstream server's stream. Stopping early cancels the body, which closes
 * the connection; a last event without its closing blank line still counts.
 */
export async function* readSSEEvents(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SSEEvent> {
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSSEParser();
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      yield* parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
    done = true;
    yield* parser.feed(`${decoder.decode()}\n\n`);
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
}
