/**
 * TEST DOUBLE. Generations for protocol-shaping tests, where the engine and the stop-sequence
 * logic behind a real Generation (core/generation.ts) are not the point.
 */
import type { Generation, GenerationEvent } from '../../src/core/generation.ts';

/**
 * A generation that yields `events`, then throws `error` if given; `state` records whether it was
 * closed or cancelled. Its usage so far counts one token per text event read.
 */
export function generationOf(events: readonly GenerationEvent[], { promptTokens, error }: { promptTokens: number; error?: unknown }) {
  const state = { closed: false, cancelled: false, tokens: 0 };
  const generation: Generation = {
    promptTokens,
    usage: () => ({ promptTokens, completionTokens: state.tokens }),
    events: (async function* () {
      try {
        for (const event of events) {
          if (event.type === 'text') state.tokens++;
          yield event;
        }
        if (error !== undefined) throw error;
      } finally {
        state.closed = true;
      }
    })(),
    cancel: () => {
      state.cancelled = true;
    },
  };
  return { generation, state };
}

/** Every event of a generation, read to its end. */
export async function drainGeneration(generation: Generation): Promise<GenerationEvent[]> {
  const out: GenerationEvent[] = [];
  for (;;) {
    const next = await generation.events.next();
    if (next.done) return out;
    out.push(next.value);
  }
}
