/**
 * Bridges a push-style producer (transformers.js calls its streamer synchronously inside
 * `generate`) to a pull-style async iterator (the engine's `chat` generator). Unbounded: the
 * producer is bounded by `maxTokens` anyway, and generation is stopped when the consumer leaves.
 * @module
 */

export interface EventChannel<T> extends AsyncIterable<T> {
  push(item: T): void;
  /** Ends the iteration after the buffered items. */
  close(): void;
  /** Ends the iteration with `error` after the buffered items. */
  fail(error: unknown): void;
}

export function createEventChannel<T>(): EventChannel<T> {
  const buffer: T[] = [];
  let done = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  return {
    push(item) {
      if (done) return;
      buffer.push(item);
      notify();
    },
    close() {
      done = true;
      notify();
    },
    fail(error) {
      if (done) return;
      failure = { error };
      done = true;
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (buffer.length > 0) {
          yield buffer.shift()!;
          continue;
        }
        if (failure) throw failure.error;
        if (done) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
