/**
 * Server-sent events, encoded once for both flavours. OpenAI chunks carry no `event:` line;
 * Anthropic events must carry one (its SDK drops events without it).
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html
 * @module
 */

export interface SSEMessage {
  readonly event?: string;
  /** One line of text: JSON.stringify never emits a raw newline, so data stays on one `data:` line. */
  readonly data: string;
}

const encoder = new TextEncoder();

export function encodeSSE({ event, data }: SSEMessage): Uint8Array {
  return encoder.encode(event === undefined ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`);
}

/**
 * A byte stream pulled from `source` one message at a time. `onCancel` runs first when the reader
 * goes away, so the producer can stop the engine even while it is waiting for the next token.
 * Nothing holds a service worker's event open while it streams: Chromium keeps a worker alive for
 * a streamed body by itself, and stops one whose event outlives 5 minutes.
 */
export function toSSEStream(source: AsyncIterator<SSEMessage>, onCancel: () => void): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await source.next();
        if (next.done) controller.close();
        else controller.enqueue(encodeSSE(next.value));
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
