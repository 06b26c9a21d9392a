import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatEvent, ChatRequest, Engine } from './engine.ts';
import { GatewayError, isGatewayError } from './errors.ts';
import { type Generation, type GenerationEvent, START_GRACE_MS, StopMatcher, startGeneration } from './generation.ts';
import { drainGeneration } from '../../test/support/generations.ts';

function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'm', messages: [{ role: 'user', content: 'hi' }], maxTokens: 100, stop: [], ...overrides };
}

interface Probe {
  engine: Engine;
  /** The signal the gateway handed the engine (set once `chat` is called). */
  signal(): AbortSignal;
  calls: number;
  /** How many tokens the engine produced (including ones the gateway never asked for). */
  produced: number;
  /** True once the engine's generator ran its `finally` (the gateway closed or drained it). */
  closed: boolean;
}

/** An engine driven by `script`; it records the signal it was given and whether it was closed. */
function probeEngine(script: (signal: AbortSignal, probe: Probe) => AsyncGenerator<ChatEvent>): Probe {
  let signal: AbortSignal | undefined;
  const probe: Probe = {
    calls: 0,
    produced: 0,
    closed: false,
    signal: () => {
      if (!signal) throw new Error('chat() was never called');
      return signal;
    },
    engine: {
      listModels: async () => [],
      chat(_request, options) {
        probe.calls++;
        signal = options.signal;
        return (async function* () {
          try {
            yield* script(options.signal, probe);
          } finally {
            probe.closed = true;
          }
        })();
      },
      embed: async () => {
        throw new Error('not used');
      },
    },
  };
  return probe;
}

/** Start, then the given tokens, then optionally an `end`. Stops early (politely) when aborted. */
function tokens(list: readonly string[], options: { promptTokens?: number; end?: 'stop' | 'length' } = {}) {
  return probeEngine(async function* (signal, probe) {
    yield { type: 'start', promptTokens: options.promptTokens ?? 5 };
    for (const text of list) {
      if (signal.aborted) return;
      probe.produced++;
      yield { type: 'token', text };
    }
    if (options.end) yield { type: 'end', reason: options.end };
  });
}


function textOf(events: readonly GenerationEvent[]): string {
  return events.map((e) => (e.type === 'text' ? e.text : '')).join('');
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('StopMatcher', () => {
  it('passes text straight through when there are no stop sequences', () => {
    const matcher = new StopMatcher([]);
    expect(matcher.push('hello ')).toEqual({ text: 'hello ', matched: null });
    expect(matcher.push('world')).toEqual({ text: 'world', matched: null });
    expect(matcher.flush()).toBe('');
  });

  it('ignores empty stop strings', () => {
    const matcher = new StopMatcher(['']);
    expect(matcher.push('abc')).toEqual({ text: 'abc', matched: null });
  });

  it('finds a stop sequence split across tokens and cuts the text before it', () => {
    const matcher = new StopMatcher(['END']);
    expect(matcher.push('hello E')).toEqual({ text: 'hello ', matched: null });
    expect(matcher.push('N')).toEqual({ text: '', matched: null });
    expect(matcher.push('D and more')).toEqual({ text: '', matched: 'END' });
  });

  it('holds back a possible prefix and releases it once it cannot be a stop', () => {
    const matcher = new StopMatcher(['END']);
    expect(matcher.push('E')).toEqual({ text: '', matched: null });
    expect(matcher.push('N')).toEqual({ text: '', matched: null });
    expect(matcher.push('x')).toEqual({ text: 'ENx', matched: null });
  });

  it('holds back only the longest suffix that starts a stop', () => {
    const matcher = new StopMatcher(['abc']);
    expect(matcher.push('xxab')).toEqual({ text: 'xx', matched: null });
    expect(matcher.push('ab')).toEqual({ text: 'ab', matched: null });
    expect(matcher.push('c!')).toEqual({ text: '', matched: 'abc' });
  });

  it('reports the earliest of several stops in the text', () => {
    const matcher = new StopMatcher(['world', 'lo']);
    expect(matcher.push('hello world')).toEqual({ text: 'hel', matched: 'lo' });
  });

  it('reports a stop found in the same piece before a later one', () => {
    const matcher = new StopMatcher(['\n\n', 'Q:']);
    expect(matcher.push('answer Q: x\n\n')).toEqual({ text: 'answer ', matched: 'Q:' });
  });

  it('flush returns the held-back text once, then nothing', () => {
    const matcher = new StopMatcher(['STOP']);
    expect(matcher.push('almost ST')).toEqual({ text: 'almost ', matched: null });
    expect(matcher.flush()).toBe('ST');
    expect(matcher.flush()).toBe('');
    expect(matcher.push('x')).toEqual({ text: 'x', matched: null });
  });

  it('with one stop, emits exactly the text before its first occurrence however the text is split', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 30 });
    fc.assert(
      fc.property(text, fc.string({ unit: fc.constantFrom('a', 'b'), minLength: 1, maxLength: 4 }), fc.array(fc.nat(30), { maxLength: 8 }), (full, stop, cuts) => {
        const points = [...new Set(cuts.map((c) => Math.min(c, full.length)))].sort((x, y) => x - y);
        const pieces = [0, ...points].map((start, i) => full.slice(start, [...points, full.length][i]));
        const matcher = new StopMatcher([stop]);
        let out = '';
        let matched: string | null = null;
        for (const piece of pieces) {
          const step = matcher.push(piece);
          out += step.text;
          if (step.matched !== null) {
            matched = step.matched;
            break;
          }
        }
        const at = full.indexOf(stop);
        if (at === -1) {
          expect(matched).toBeNull();
          expect(out + matcher.flush()).toBe(full);
        } else {
          expect(matched).toBe(stop);
          expect(out).toBe(full.slice(0, at));
        }
      }),
      { seed: 20261121, numRuns: 300 },
    );
  });
});

describe('startGeneration', () => {
  it('reports prompt tokens, the text and a natural finish with exact usage', async () => {
    const probe = tokens(['Hel', 'lo', '!'], { promptTokens: 7 });
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    expect(generation.promptTokens).toBe(7);
    const events = await drainGeneration(generation);
    expect(textOf(events)).toBe('Hello!');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', stopSequence: null, usage: { promptTokens: 7, completionTokens: 3, cachedTokens: 0 } });
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);
  });

  it('passes an engine-reported length end through as finish length', async () => {
    const probe = tokens(['a', 'b'], { end: 'length' });
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest(), new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'length', usage: { completionTokens: 2 } });
  });

  it('stops at the token cap with finish length, exact completion tokens, and aborts the engine', async () => {
    const probe = tokens(['one', ' two', ' three', ' four', ' five', ' six']);
    const generation = await startGeneration(probe.engine, chatRequest({ maxTokens: 3 }), new AbortController().signal);
    const events = await drainGeneration(generation);
    expect(textOf(events)).toBe('one two three');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length', stopSequence: null, usage: { promptTokens: 5, completionTokens: 3, cachedTokens: 0 } });
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
    expect(probe.produced).toBe(3);
  });

  it('stops and closes the engine as soon as a cap finish is read, before any further read', async () => {
    const probe = tokens(['a', 'b', 'c', 'd']);
    const generation = await startGeneration(probe.engine, chatRequest({ maxTokens: 2 }), new AbortController().signal);
    let event: GenerationEvent | undefined;
    do event = (await generation.events.next()).value as GenerationEvent;
    while (event.type !== 'finish');
    // A non-streaming consumer stops reading here; the engine must not be left running.
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
  });

  it('stops and closes the engine as soon as a stop-sequence finish is read', async () => {
    const probe = tokens(['a', 'STOP', 'c', 'd']);
    const generation = await startGeneration(probe.engine, chatRequest({ stop: ['STOP'] }), new AbortController().signal);
    expect((await generation.events.next()).value).toEqual({ type: 'text', text: 'a' });
    expect((await generation.events.next()).value).toMatchObject({ type: 'finish', reason: 'stop_sequence' });
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
  });

  it('closes the engine and drops the caller abort listener once a natural finish is read', async () => {
    const probe = tokens(['a'], { end: 'stop' });
    const caller = new AbortController();
    const generation = await startGeneration(probe.engine, chatRequest(), caller.signal);
    await generation.events.next();
    expect((await generation.events.next()).value).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(probe.closed).toBe(true);
    // The caller going away afterwards changes nothing and throws nothing.
    expect(() => caller.abort()).not.toThrow();
    expect(await generation.events.next()).toEqual({ done: true, value: undefined });
  });

  it('releases held-back stop prefixes when the cap is reached', async () => {
    const probe = tokens(['ab', 'X', 'Y', 'Z']);
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest({ maxTokens: 2, stop: ['XYZ'] }), new AbortController().signal));
    expect(textOf(events)).toBe('abX');
    expect(events.at(-1)).toMatchObject({ reason: 'length', usage: { completionTokens: 2 } });
  });

  it('stops at a stop sequence: text cut before it, finish stop_sequence, engine aborted', async () => {
    const probe = tokens(['Hello', ' wor', 'ld S', 'TOP', ' after', ' more']);
    const generation = await startGeneration(probe.engine, chatRequest({ stop: ['STOP', 'never'] }), new AbortController().signal);
    const events = await drainGeneration(generation);
    expect(textOf(events)).toBe('Hello world ');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop_sequence', stopSequence: 'STOP', usage: { promptTokens: 5, completionTokens: 4, cachedTokens: 0 } });
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
    expect(probe.produced).toBe(4);
  });

  it('an engine that stopped at a stop sequence itself: held-back text released, finish stop_sequence, engine never stopped', async () => {
    // The engine's text ends just before "STOP"; the gateway held ' ' back (it could begin " X").
    const probe = probeEngine(async function* (signal, p) {
      yield { type: 'start', promptTokens: 5 };
      for (const text of ['Hello', ' ']) {
        p.produced++;
        yield { type: 'token', text };
      }
      expect(signal.aborted).toBe(false);
      yield { type: 'end', reason: 'stop', stopSequence: 'STOP' };
    });
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest({ stop: [' X', 'STOP'] }), new AbortController().signal));
    expect(textOf(events)).toBe('Hello ');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop_sequence', stopSequence: 'STOP', usage: { promptTokens: 5, completionTokens: 2, cachedTokens: 0 } });
  });

  it("ignores an engine's stop sequence that is not one of the request's, or where stop sequences do not apply", async () => {
    for (const request of [chatRequest({ stop: ['END'] }), chatRequest({ stop: ['STOP'], output: { kind: 'json_object' } })]) {
      const probe = probeEngine(async function* () {
        yield { type: 'start', promptTokens: 5 };
        yield { type: 'token', text: '{}' };
        yield { type: 'end', reason: 'stop', stopSequence: 'STOP' };
      });
      const events = await drainGeneration(await startGeneration(probe.engine, request, new AbortController().signal));
      expect(events.at(-1)).toMatchObject({ reason: 'stop', stopSequence: null });
    }
  });

  it('releases held-back text at a natural end', async () => {
    const probe = tokens(['done S', 'TO']);
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest({ stop: ['STOP'] }), new AbortController().signal));
    expect(textOf(events)).toBe('done STO');
    expect(events.at(-1)).toMatchObject({ reason: 'stop', stopSequence: null });
  });

  it('throws a GatewayError from startGeneration when the engine fails before starting', async () => {
    const probe = probeEngine(async function* () {
      throw new GatewayError('model_unavailable', 'cannot load');
    });
    const error = await rejection(startGeneration(probe.engine, chatRequest(), new AbortController().signal));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'model_unavailable', message: 'cannot load', status: 503 });
  });

  it('turns a non-gateway engine failure before starting into an internal GatewayError', async () => {
    const probe = probeEngine(async function* () {
      throw new TypeError('kaput');
    });
    const error = await rejection(startGeneration(probe.engine, chatRequest(), new AbortController().signal));
    expect(isGatewayError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'internal', message: 'kaput', status: 500 });
  });

  it('makes the events iterator throw a GatewayError when the engine fails midway', async () => {
    const probe = probeEngine(async function* () {
      yield { type: 'start', promptTokens: 3 };
      yield { type: 'token', text: 'a' };
      yield { type: 'token', text: 'b' };
      throw new RangeError('tensor exploded');
    });
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    expect(generation.usage()).toEqual({ promptTokens: 3, completionTokens: 0, cachedTokens: 0 });
    const seen: GenerationEvent[] = [];
    const error = await rejection(
      (async () => {
        for (;;) {
          const next = await generation.events.next();
          if (next.done) return;
          seen.push(next.value);
        }
      })(),
    );
    expect(textOf(seen)).toBe('ab');
    expect(seen.some((e) => e.type === 'finish')).toBe(false);
    expect(isGatewayError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'internal', message: 'tensor exploded' });
    // What a failure after the first byte reports: the prompt and both tokens generated before it.
    expect(generation.usage()).toEqual({ promptTokens: 3, completionTokens: 2, cachedTokens: 0 });
  });

  it('keeps a GatewayError thrown midway as it is', async () => {
    const probe = probeEngine(async function* () {
      yield { type: 'start', promptTokens: 3 };
      throw new GatewayError('engine_unavailable', 'device lost');
    });
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    expect(await rejection(drainGeneration(generation))).toMatchObject({ code: 'engine_unavailable', message: 'device lost' });
  });

  it('refuses to start for a caller that has already gone, without calling the engine', async () => {
    const probe = tokens(['x']);
    const caller = new AbortController();
    caller.abort();
    const error = await rejection(startGeneration(probe.engine, chatRequest(), caller.signal));
    expect(error).toMatchObject({ code: 'aborted' });
    expect(probe.calls).toBe(0);
  });

  it('aborts the engine signal when the caller aborts, and the events then throw aborted', async () => {
    let release: () => void = () => {};
    const probe = probeEngine(async function* (signal) {
      yield { type: 'start', promptTokens: 2 };
      yield { type: 'token', text: 'first' };
      // Wait like a real engine does between tokens, until told to stop.
      await new Promise<void>((resolve) => {
        release = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      if (!signal.aborted) yield { type: 'token', text: 'second' };
    });
    const caller = new AbortController();
    const generation = await startGeneration(probe.engine, chatRequest(), caller.signal);
    expect(await generation.events.next()).toEqual({ done: false, value: { type: 'text', text: 'first' } });
    const pending = generation.events.next();
    caller.abort(new Error('client went away'));
    expect(probe.signal().aborted).toBe(true);
    expect(await rejection(pending)).toMatchObject({ code: 'aborted' });
    release();
  });

  it('maps an engine failure caused by the abort to aborted, not internal', async () => {
    const probe = probeEngine(async function* (signal) {
      yield { type: 'start', promptTokens: 2 };
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      throw new DOMException('The operation was aborted.', 'AbortError');
    });
    const caller = new AbortController();
    const generation = await startGeneration(probe.engine, chatRequest(), caller.signal);
    const pending = generation.events.next();
    caller.abort();
    expect(await rejection(pending)).toMatchObject({ code: 'aborted' });
  });

  it('cancel() aborts the engine; the events then throw aborted instead of finishing', async () => {
    const probe = tokens(['a', 'b', 'c']);
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    generation.cancel();
    expect(probe.signal().aborted).toBe(true);
    const error = await rejection(drainGeneration(generation));
    expect(error).toMatchObject({ code: 'aborted' });
    expect(probe.produced).toBe(0);
    expect(() => generation.cancel()).not.toThrow();
  });

  it('aborts and closes the engine when the consumer stops reading early', async () => {
    const probe = tokens(['a', 'b', 'c', 'd']);
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    expect((await generation.events.next()).value).toEqual({ type: 'text', text: 'a' });
    await generation.events.return?.(undefined);
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
  });

  it('closes the engine when the consumer leaves before reading anything', async () => {
    const probe = tokens(['a', 'b']);
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    await generation.events.return?.(undefined);
    expect(probe.signal().aborted).toBe(true);
    expect(probe.closed).toBe(true);
    expect(probe.produced).toBe(0);
  });

  it('closes the engine on cancel() before anything was read', async () => {
    const probe = tokens(['a', 'b']);
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    generation.cancel();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(probe.closed).toBe(true);
  });

  it('lets an end event correct the prompt token count', async () => {
    const probe = probeEngine(async function* () {
      yield { type: 'start', promptTokens: 0 };
      yield { type: 'token', text: 'x' };
      yield { type: 'end', reason: 'stop', promptTokens: 13 };
    });
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest(), new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { promptTokens: 13, completionTokens: 1 } });
  });

  it('usage() follows the counts as tokens are read, held-back stop prefixes included, and ends at the finish figures', async () => {
    const probe = tokens(['a', ' #', '#', ' b', 'c'], { promptTokens: 7 });
    const generation = await startGeneration(probe.engine, chatRequest({ stop: ['##!'] }), new AbortController().signal);
    expect(generation.promptTokens).toBe(7);
    const seen: number[] = [];
    let finish: GenerationEvent | undefined;
    for (;;) {
      const next = await generation.events.next();
      if (next.done) break;
      seen.push(generation.usage().completionTokens);
      if (next.value.type === 'finish') finish = next.value;
    }
    // The third token ('#' making '##') is held back as a possible start of the stop, so no text
    // event is read after it, yet it counts from then on.
    expect(seen).toEqual([1, 2, 4, 5, 5]);
    expect(finish).toMatchObject({ usage: { promptTokens: 7, completionTokens: 5 } });
    expect(generation.usage()).toEqual({ promptTokens: 7, completionTokens: 5, cachedTokens: 0 });
  });

  it('usage() takes the corrected prompt count from an end event', async () => {
    const probe = probeEngine(async function* () {
      yield { type: 'start', promptTokens: 2 };
      yield { type: 'end', reason: 'stop', promptTokens: 21 };
    });
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    await drainGeneration(generation);
    expect(generation.usage()).toEqual({ promptTokens: 21, completionTokens: 0, cachedTokens: 0 });
  });

  it('counts a zero-token answer as finish stop with zero completion tokens', async () => {
    const probe = tokens([], { promptTokens: 4 });
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest(), new AbortController().signal));
    expect(events).toEqual([{ type: 'finish', reason: 'stop', stopSequence: null, usage: { promptTokens: 4, completionTokens: 0, cachedTokens: 0 } }]);
  });
});

describe('a stream whose engine is slow to read the prompt', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Accepts at once, reads the prompt for `prefillMs` (as web-llm's prefill), then answers two tokens. */
  const slowPrefill = (prefillMs: number) =>
    probeEngine(async function* () {
      yield { type: 'accepted' };
      await sleep(prefillMs);
      yield { type: 'start', promptTokens: 42 };
      yield { type: 'token', text: 'a' };
      yield { type: 'token', text: 'b' };
    });

  it('begins within the grace after the engine took it, with the count 0, and finishes with the exact count', async () => {
    const probe = slowPrefill(START_GRACE_MS + 700);
    const asked = performance.now();
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    expect(performance.now() - asked).toBeLessThan(START_GRACE_MS + 400);
    expect(generation.promptTokens).toBe(0);
    const events = await drainGeneration(generation);
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { promptTokens: 42, completionTokens: 2 } });
    expect(generation.usage().promptTokens).toBe(42);
  });

  it('waits for the count when it comes within the grace, and a whole answer always waits', async () => {
    const quick = await startGeneration(slowPrefill(20).engine, chatRequest(), new AbortController().signal);
    expect(quick.promptTokens).toBe(42);
    const whole = await startGeneration(slowPrefill(START_GRACE_MS + 200).engine, chatRequest(), new AbortController().signal, { whole: true });
    expect(whole.promptTokens).toBe(42);
  });

  it('reports a failure while reading the prompt after the stream began in the events, not as a lost promise', async () => {
    const probe = probeEngine(async function* () {
      yield { type: 'accepted' };
      await sleep(START_GRACE_MS + 200);
      throw new GatewayError('context_length_exceeded', 'too long');
    });
    const generation = await startGeneration(probe.engine, chatRequest(), new AbortController().signal);
    await expect(generation.events.next()).rejects.toMatchObject({ code: 'context_length_exceeded' });
  });
});

describe('a thinking model', () => {
  const THINKS = { open: '<think>', close: '</think>' } as const;
  const THOUGHT = ['<think>', '\n', 'Let', ' me', ' see', '</', 'think>', '\n\n'];

  it('gives its thinking as reasoning events, the answer as text, and counts the thinking tokens', async () => {
    const probe = tokens([...THOUGHT, 'It', ' is', ' 4.']);
    const events = await drainGeneration(await startGeneration(probe.engine, chatRequest(), new AbortController().signal, { reasoning: THINKS }));
    expect(events.filter((e) => e.type === 'reasoning').map((e) => (e as { text: string }).text).join('')).toBe('Let me see');
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join('')).toBe('It is 4.');
    expect(events.findIndex((e) => e.type === 'text')).toBeGreaterThan(events.findLastIndex((e) => e.type === 'reasoning'));
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', stopSequence: null, usage: { promptTokens: 5, completionTokens: 11, cachedTokens: 0, reasoningTokens: 7 } });
  });

  it('applies stop sequences to the answer only, and tool calls after the thinking', async () => {
    const stopped = await drainGeneration(await startGeneration(tokens([...THOUGHT, 'A', 'B', 'C']).engine, chatRequest({ stop: ['see', 'B'] }), new AbortController().signal, { reasoning: THINKS }));
    expect(stopped.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: 'A' }]);
    expect(stopped.at(-1)).toMatchObject({ reason: 'stop_sequence', stopSequence: 'B' });
    const tools = [{ name: 'add', parameters: { type: 'object' } }];
    const calling = await drainGeneration(
      await startGeneration(tokens([...THOUGHT, '<tool_call>\n', '{"name": "add", "arguments": {}}', '\n</tool_call>']).engine, chatRequest({ tools }), new AbortController().signal, { reasoning: THINKS }),
    );
    expect(calling.map((e) => e.type)).toEqual(['reasoning', 'reasoning', 'reasoning', 'tool_call', 'tool_arguments', 'finish']);
    expect(calling.at(-1)).toMatchObject({ reason: 'tool_calls' });
  });

  it('keeps thinking cut by the token cap as reasoning, with no text', async () => {
    const events = await drainGeneration(await startGeneration(tokens(THOUGHT.slice(0, 5)).engine, chatRequest({ maxTokens: 4 }), new AbortController().signal, { reasoning: THINKS }));
    expect(events.map((e) => e.type)).toEqual(['reasoning', 'reasoning', 'finish']);
    expect(events.at(-1)).toMatchObject({ reason: 'length', usage: { completionTokens: 4, reasoningTokens: 4 } });
  });

  it('leaves a model without a reasoning format as it was: markers are text, no reasoning count', async () => {
    const events = await drainGeneration(await startGeneration(tokens([...THOUGHT, 'x']).engine, chatRequest(), new AbortController().signal));
    expect(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text).join('')).toBe(`${THOUGHT.join('')}x`);
    expect((events.at(-1) as { usage: object }).usage).not.toHaveProperty('reasoningTokens');
  });
});
