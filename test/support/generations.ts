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
    usage: () => ({ promptTokens, completionTokens: state.tokens, cachedTokens: 0 }),
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

/** Two tool calls, the first with its arguments in two fragments, then the finish. */
export function toolCallEvents(promptTokens: number): GenerationEvent[] {
  return [
    { type: 'tool_call', index: 0, name: 'get_weather' },
    { type: 'tool_arguments', index: 0, text: '{"city": ' },
    { type: 'tool_arguments', index: 0, text: '"Paris"}' },
    { type: 'tool_call', index: 1, name: 'now' },
    { type: 'tool_arguments', index: 1, text: '{}' },
    { type: 'finish', reason: 'tool_calls', stopSequence: null, usage: { promptTokens, completionTokens: 30, cachedTokens: 0 } },
  ];
}

/**
 * A generation over events as they come (a remote server's, read by a wire format's client side):
 * its usage is the finish's once the finish is read, zero before, as the remote engine's is.
 */
export function generationFrom(events: AsyncIterable<GenerationEvent> | readonly GenerationEvent[]): Generation {
  let usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
  const source = (async function* () {
    for await (const event of events) {
      if (event.type === 'finish') usage = event.usage;
      yield event;
    }
  })();
  return { promptTokens: 0, usage: () => usage, events: source, cancel: () => void source.return(undefined) };
}
