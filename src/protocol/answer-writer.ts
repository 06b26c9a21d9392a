/**
 * An answer written once for both of its forms: a writer is fed the generation's events and
 * writes its stream's events, the whole body last, so that a JSON answer and an SSE stream come
 * from the same code and always agree (chat completions' and messages' renderers).
 * @module
 */
import { GatewayError } from '../core/errors.ts';
import type { Generation, GenerationEvent, Usage } from '../core/generation.ts';
import type { SSEMessage } from '../core/sse.ts';

/** One step of an answer being written: an event of its stream, or, last, its whole body. */
export type Step<Body> = SSEMessage | { readonly final: Body };

/**
 * Writes into `out`, rather than yielding: a generator a token cost a streamed token more than its
 * event (docs/decisions/one-writer-per-answer.md). A writer for a whole answer writes its body alone.
 */
export interface AnswerWriter<Body> {
  /** The events that open the stream; `usage`: the counts when it begins. */
  start(usage: Usage, out: Step<Body>[]): void;
  /** The events of one generation event; after the finish's, the whole body. */
  push(item: GenerationEvent, out: Step<Body>[]): void;
}

/** Drains the generation into the whole body. */
export async function toWhole<Body>(generation: Generation, writer: AnswerWriter<Body>): Promise<Body> {
  const steps: Step<Body>[] = [];
  writer.start(generation.usage(), steps);
  for (;;) {
    const next = await generation.events.next();
    if (next.done) throw new GatewayError('internal', 'The generation ended without a finish.');
    writer.push(next.value, steps);
    if (steps.length === 0) continue;
    const last = steps.at(-1)!;
    if ('final' in last) return last.final;
    steps.length = 0;
  }
}

/**
 * The stream's events, each as soon as its generation event is read. A failure after the first
 * byte ends it with the family's `lateError` event, carrying the counts so far.
 */
export async function* toStream<Body>(generation: Generation, writer: AnswerWriter<Body>, lateError: (error: unknown, usage: Usage) => SSEMessage): AsyncGenerator<SSEMessage> {
  const steps: Step<Body>[] = [];
  writer.start(generation.usage(), steps);
  for (const step of steps) if (!('final' in step)) yield step;
  try {
    for (;;) {
      const next = await generation.events.next();
      if (next.done) return;
      steps.length = 0;
      writer.push(next.value, steps);
      // A plain loop: each event goes out in the turn its generation event was read.
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i]!;
        if ('final' in step) return;
        yield step;
      }
    }
  } catch (error) {
    yield lateError(error, generation.usage());
  } finally {
    await generation.events.return?.(undefined);
  }
}
