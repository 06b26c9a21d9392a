/**
 * A thinking model's output under a constraint: first, if it likes, its thinking block (the
 * opening marker unless the template already wrote it, any text without the closing marker, the
 * closing marker, up to four spaces or newlines), then the answer the constraint is for. The same
 * language as ebnf.ts's `afterThinking` for xgrammar, around any byte matcher: a JSON answer or
 * tool calls.
 * @module
 */
import type { GrammarThinking } from '../ebnf.ts';
import type { ByteMatcher, MatchState, PatternBody, StringBody } from '../byte-matcher.ts';
import { placeSet, placeSetKey, splitPlaces, stepPlaces, type PlaceSet } from './place-set.ts';
import { BETWEEN, textStep } from './text-bytes.ts';

/** The most spaces and newlines between the closing marker and the answer. */
const GAP = 4;

type Place =
  | { readonly k: 'open'; readonly at: number }
  /** Thinking text: `close` bytes of the closing marker matched so far, the UTF-8 state. */
  | { readonly k: 'text'; readonly close: number; readonly utf8: number }
  | { readonly k: 'gap'; readonly n: number }
  | { readonly k: 'answer'; readonly state: MatchState };

type State = PlaceSet<Place>;

const encoder = new TextEncoder();

export function thinkingFirst(answer: ByteMatcher, thinking: GrammarThinking): ByteMatcher {
  const open = encoder.encode(thinking.open);
  const close = encoder.encode(thinking.close);
  // As the grammar's rule for the text: a marker whose first byte comes again in it would need
  // matching to fall back to a shorter part (ebnf.ts refuses it the same way).
  if (close.length === 0 || close.subarray(1).includes(close[0]!)) throw new Error(`A thinking marker whose first character comes again in it is not supported: ${JSON.stringify(thinking.close)}.`);
  const answerStart: Place = { k: 'answer', state: answer.start };

  const feed = (place: Place, byte: number, out: Place[]) => {
    switch (place.k) {
      case 'open':
        if (open[place.at] !== byte) return;
        out.push(place.at + 1 < open.length ? { k: 'open', at: place.at + 1 } : { k: 'text', close: 0, utf8: BETWEEN });
        return;
      case 'text': {
        if (place.utf8 === BETWEEN && byte === close[place.close]) {
          if (place.close + 1 < close.length) out.push({ k: 'text', close: place.close + 1, utf8: BETWEEN });
          else out.push({ k: 'gap', n: 0 }, answerStart);
          return;
        }
        if (place.utf8 === BETWEEN && byte === close[0]) {
          out.push({ k: 'text', close: 1, utf8: BETWEEN });
          return;
        }
        const utf8 = textStep(place.utf8, byte);
        if (utf8 >= 0) out.push({ k: 'text', close: 0, utf8 });
        return;
      }
      case 'gap':
        if ((byte === 0x20 || byte === 0x0a) && place.n < GAP) out.push({ k: 'gap', n: place.n + 1 }, answerStart);
        return;
      case 'answer': {
        const next = answer.step(place.state, byte);
        if (next !== undefined) out.push({ k: 'answer', state: next });
      }
    }
  };
  const keyOf = (place: Place): string => {
    switch (place.k) {
      case 'open':
        return `o${place.at}`;
      case 'text':
        return `t${place.close}.${place.utf8}`;
      case 'gap':
        return `g${place.n}`;
      case 'answer':
        return `a${answer.key(place.state)}`;
    }
  };

  /** The answer's state where the output is past its thinking block and only the answer is left. */
  const answerOnly = (state: MatchState): MatchState | undefined => {
    const { places } = state as State;
    const place = places[0]!;
    return places.length === 1 && place.k === 'answer' ? place.state : undefined;
  };

  const start = placeSet<Place>([thinking.startsInside ? { k: 'text', close: 0, utf8: BETWEEN } : { k: 'open', at: 0 }, answerStart], keyOf);
  return {
    start: start as MatchState,
    step: (state, byte) => stepPlaces(state as State, byte, feed, keyOf) as MatchState | undefined,
    canEnd: (state) => (state as State).places.some((place) => place.k === 'answer' && answer.canEnd(place.state)),
    key: (state) => placeSetKey(state as State, keyOf),
    split(state) {
      // Past the block, the answer's own choices (a reply's free text or a call), each wrapped.
      const inner = answerOnly(state);
      if (inner) return answer.split?.(inner)?.map((part) => ({ places: [{ k: 'answer', state: part }] }) as State as MatchState);
      return splitPlaces(state as State) as MatchState[] | undefined;
    },
    stringBody(state) {
      const inner = answerOnly(state);
      const body = inner && answer.stringBody?.(inner);
      if (!body) return undefined;
      const within: StringBody = { min: body.min, max: body.max, ...(body.close ? { close: { places: [{ k: 'answer', state: body.close }] } as State as MatchState } : {}) };
      return within;
    },
    patternBody(state) {
      const inner = answerOnly(state);
      const body = inner && answer.patternBody?.(inner);
      if (!body) return undefined;
      const within: PatternBody = { ...body, close: { places: [{ k: 'answer', state: body.close }] } as State as MatchState };
      return within;
    },
    // Thinking text is not shared across matchers: a token may close the block and go on into
    // the answer (`>{"` after `</think`), which differs from one answer to another.
    sharedKey(state) {
      const inner = answerOnly(state);
      return inner && answer.sharedKey?.(inner);
    },
  };
}
