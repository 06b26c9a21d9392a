/**
 * Tool calls as the schema matcher enforces them: the Hermes format of core/tool-syntax.ts,
 *
 *     <tool_call>
 *     {"name": "get_weather", "arguments": {"city": "Paris"}}
 *     </tool_call>
 *
 * each call's arguments by its tool's schema (spaced as `json.dumps` writes them), calls one after
 * another where parallel calls are allowed; or, where the model may choose, a reply instead: text
 * that does not begin as a call does, or JSON by the request's schema. The same language as the
 * grammar ebnf.ts writes for xgrammar, as a byte matcher: nothing compiled against the vocabulary,
 * the JSON parts with the string fast path of the masks.
 *
 * The output is a few parts in a small graph (literal bytes, a JSON value, free text, the end);
 * a state is the set of places the bytes read so far may have reached, each place immutable.
 * @module
 */
import type { Node } from '../../../core/json-schema/schema-node.ts';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, TOOL_CALL_SEPARATOR, TOOL_JSON_SEPARATORS } from '../../../core/tool-syntax.ts';
import type { ByteMatcher, MatchState, StringBody } from '../byte-matcher.ts';
import { jsonMatcher } from './json-matcher.ts';
import { spacedJson } from './spaced-json.ts';
import { placeSet, placeSetKey, splitPlaces, stepPlaces, type PlaceSet } from './place-set.ts';
import { BETWEEN, textStep } from './text-bytes.ts';

export interface ToolCallsShape {
  /** The tools a call may name, each with its arguments' schema as read (strict). */
  readonly tools: readonly { readonly name: string; readonly parameters: Node }[];
  /** `calls`: at least one call; `either`: a reply or calls; `reply`: no calls. */
  readonly mode: 'calls' | 'either' | 'reply';
  readonly parallel: boolean;
  /** The reply's schema, where it must be JSON (else it is free text). */
  readonly reply?: Node;
}

type Part =
  | { readonly t: 'literal'; readonly bytes: Uint8Array; readonly next: readonly number[] }
  | { readonly t: 'json'; readonly matcher: ByteMatcher; readonly next: readonly number[] }
  | { readonly t: 'text' }
  | { readonly t: 'end' };

/** A place in the output: a part, and how far into it (a literal's byte, a JSON value's state, free text's). */
type Place =
  | { readonly part: number; readonly at: number }
  | { readonly part: number; readonly state: MatchState }
  | { readonly part: number; readonly text: number; readonly utf8: number };

type State = PlaceSet<Place>;

const encoder = new TextEncoder();
const OPENING = encoder.encode(TOOL_CALL_OPEN);
/** Free text that may still become the opening: how many of its bytes it has matched (then REST). */
const REST = -1;

/**
 * Free text, one byte on: while its first bytes are those of the opening (`text` of them so far),
 * it must not become the whole opening (that is a call); after that, any text (REST).
 */
function stepText(text: number, utf8: number, byte: number): { text: number; utf8: number } | undefined {
  if (utf8 === BETWEEN && text >= 0 && byte === OPENING[text]) return text + 1 < OPENING.length ? { text: text + 1, utf8 } : undefined;
  const next = textStep(utf8, byte);
  return next < 0 ? undefined : { text: REST, utf8: next };
}

export function toolCallsMatcher(shape: ToolCallsShape): ByteMatcher {
  const parts: Part[] = [];
  const add = (part: Part) => parts.push(part) - 1;
  const end = add({ t: 'end' });
  const entry: number[] = [];
  if (shape.mode !== 'reply') {
    // Parts are added before what leads to them, so each `next` names parts that exist.
    const head = parts.length + 1 + shape.tools.length * 2 + 1;
    const between = add({ t: 'literal', bytes: encoder.encode(TOOL_CALL_SEPARATOR), next: [head] });
    const tail = add({ t: 'literal', bytes: encoder.encode(`}${TOOL_CALL_CLOSE}`), next: shape.parallel ? [end, between] : [end] });
    const names: number[] = [];
    for (const tool of shape.tools) {
      const args = add({ t: 'json', matcher: spacedJson(jsonMatcher(tool.parameters)), next: [tail] });
      names.push(add({ t: 'literal', bytes: encoder.encode(`${JSON.stringify(tool.name)}${TOOL_JSON_SEPARATORS[0]}"arguments"${TOOL_JSON_SEPARATORS[1]}`), next: [args] }));
    }
    const opened = add({ t: 'literal', bytes: encoder.encode(`${TOOL_CALL_OPEN}{"name"${TOOL_JSON_SEPARATORS[1]}`), next: names });
    if (opened !== head) throw new Error('tool-calls matcher: parts out of order');
    entry.push(head);
  }
  if (shape.mode !== 'calls') entry.push(shape.reply ? add({ t: 'json', matcher: jsonMatcher(shape.reply), next: [end] }) : add({ t: 'text' }));

  const enter = (ids: readonly number[], out: Place[]) => {
    for (const id of ids) {
      const part = parts[id]!;
      if (part.t === 'literal') out.push({ part: id, at: 0 });
      else if (part.t === 'json') out.push({ part: id, state: part.matcher.start });
      else if (part.t === 'text') out.push({ part: id, text: 0, utf8: BETWEEN });
      else out.push({ part: id, at: 0 });
    }
  };
  const endsAt = (place: Place): boolean => {
    const part = parts[place.part]!;
    if (part.t === 'end') return true;
    if (part.t === 'text') return (place as { utf8: number }).utf8 === BETWEEN;
    if (part.t === 'json' && part.matcher.canEnd((place as { state: MatchState }).state)) return part.next.some((id) => parts[id]!.t === 'end');
    return false;
  };
  const feed = (place: Place, byte: number, out: Place[]) => {
    const part = parts[place.part]!;
    if (part.t === 'literal') {
      const at = (place as { at: number }).at;
      if (part.bytes[at] !== byte) return;
      if (at + 1 < part.bytes.length) out.push({ part: place.part, at: at + 1 });
      else enter(part.next, out);
    } else if (part.t === 'json') {
      const state = (place as { state: MatchState }).state;
      const next = part.matcher.step(state, byte);
      if (next !== undefined) out.push({ part: place.part, state: next });
      if (part.matcher.canEnd(state)) {
        const after: Place[] = [];
        enter(part.next, after);
        for (const then of after) feed(then, byte, out);
      }
    } else if (part.t === 'text') {
      const { text, utf8 } = place as { text: number; utf8: number };
      const next = stepText(text, utf8, byte);
      if (next !== undefined) out.push({ part: place.part, ...next });
    }
  };
  const keyOf = (place: Place): string => {
    if ('at' in place) return `${place.part}.${place.at}`;
    if ('text' in place) return `${place.part}t${place.text}.${place.utf8}`;
    return `${place.part}:${(parts[place.part] as { matcher: ByteMatcher }).matcher.key(place.state)}`;
  };


  /** Where the state is one JSON part's alone: that part's matcher, its state, and how to name a state of it as ours. */
  const jsonAlone = (state: MatchState) => {
    const { places } = state as State;
    const place = places[0]!;
    if (places.length !== 1 || !('state' in place)) return undefined;
    const at = (inner: MatchState) => ({ places: [{ part: place.part, state: inner }] }) as State as MatchState;
    return { matcher: (parts[place.part] as { matcher: ByteMatcher }).matcher, state: place.state, at };
  };

  const start: Place[] = [];
  enter(entry, start);
  return {
    start: placeSet(start, keyOf) as MatchState,
    step: (state, byte) => stepPlaces(state as State, byte, feed, keyOf) as MatchState | undefined,
    canEnd: (state) => (state as State).places.some(endsAt),
    key: (state) => placeSetKey(state as State, keyOf),
    split: (state) => splitPlaces(state as State) as MatchState[] | undefined,
    sharedKey(state) {
      // Free text alone: the same in every tool set's matcher.
      const { places } = state as State;
      const place = places[0]!;
      return places.length === 1 && 'text' in place ? `free text ${place.text}.${place.utf8}` : undefined;
    },
    // Inside one argument's string, and nowhere else: the JSON part's own fast paths.
    stringBody(state) {
      const inside = jsonAlone(state);
      const body = inside && inside.matcher.stringBody?.(inside.state);
      if (!body) return undefined;
      const within: StringBody = { min: body.min, max: body.max, ...(body.close ? { close: inside.at(body.close) } : {}) };
      return within;
    },
    patternBody(state) {
      const inside = jsonAlone(state);
      const body = inside && inside.matcher.patternBody?.(inside.state);
      return body && { ...body, close: inside.at(body.close) };
    },
  };
}
