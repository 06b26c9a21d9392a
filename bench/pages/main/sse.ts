/**
 * Reading a server-sent-events body to its end as a client does, with the product's own decoder
 * (the playground's: no copy of it here).
 * @module
 */
import { createSSEParser } from '../../../src/core/sse.ts';

/** Counts the events and the reads that delivered them; `onEvent` gets each event's data. */
export async function readSSE(response: Response, onEvent?: (data: string) => void): Promise<{ events: number; reads: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const parser = createSSEParser();
  let events = 0;
  let reads = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    reads++;
    for (const event of parser.feed(decoder.decode(value, { stream: true }))) {
      events++;
      onEvent?.(event.data);
    }
  }
  return { events, reads };
}
