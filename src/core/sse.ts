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
 * `waitUntil`, when the runtime has one (a service worker's fetch event), is handed a promise that
 * settles when the stream does: a worker with no pending event may be stopped as idle, which would
 * cut a slow generation, since `respondWith` counts as done once it has the Response.
 */
export function toSSEStream(source: AsyncIterator<SSEMessage>, onCancel: () => void, waitUntil?: (promise: Promise<unknown>) => void): ReadableStream<Uint8Array> {
  let settle: (() => void) | undefined;
  if (waitUntil) waitUntil(new Promise<void>((resolve) => (settle = resolve)));
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let next: IteratorResult<SSEMessage>;
        try {
          next = await source.next();
        } catch (error) {
          settle?.();
          throw error;
        }
        if (next.done) {
          controller.close();
          settle?.();
        } else controller.enqueue(encodeSSE(next.value));
      },
      async cancel() {
        onCancel();
        try {
          await source.return?.();
        } finally {
          settle?.();
        }
      },
    },
    { highWaterMark: 0 },
  );
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
} as const;
