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
  | { readonly part: number; readonly text: number };

interface State {
  readonly places: readonly Place[];
  key?: string;
}

const encoder = new TextEncoder();
const OPENING = encoder.encode(TOOL_CALL_OPEN);
/** Free text that may still become the opening: how many of its bytes it has matched (then REST). */
const REST = -1;

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
      else if (part.t === 'text') out.push({ part: id, text: 0 });
      else out.push({ part: id, at: 0 });
    }
  };
  const endsAt = (place: Place): boolean => {
    const part = parts[place.part]!;
    if (part.t === 'end') return true;
    if (part.t === 'text') return (place as { text: number }).text >= 0 || (place as { text: number }).text === REST;
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
      const text = stepText((place as { text: number }).text, byte);
      if (text !== undefined) out.push({ part: place.part, text });
    }
  };
  const keyOf = (place: Place): string => {
    if ('at' in place) return `${place.part}.${place.at}`;
    if ('text' in place) return `${place.part}t${place.text}`;
    return `${place.part}:${(parts[place.part] as { matcher: ByteMatcher }).matcher.key(place.state)}`;
  };
  const stateOf = (places: Place[]): State => {
    if (places.length <= 1) return { places };
    const seen = new Map<string, Place>();
    for (const place of places) {
      const key = keyOf(place);
      if (!seen.has(key)) seen.set(key, place);
    }
    return { places: [...seen.values()] };
  };

  const start: Place[] = [];
  enter(entry, start);
  return {
    start: stateOf(start) as MatchState,
    step(state, byte) {
      const out: Place[] = [];
      for (const place of (state as State).places) feed(place, byte, out);
      return out.length === 0 ? undefined : (stateOf(out) as MatchState);
    },
    canEnd: (state) => (state as State).places.some(endsAt),
    key(state) {
      const at = state as State;
      return (at.key ??= at.places.map(keyOf).join('|'));
    },
    sharedKey(state) {
      // Free text alone: the same in every tool set's matcher.
      const { places } = state as State;
      return places.length === 1 && 'text' in places[0]! ? `free text ${places[0].text}` : undefined;
    },
    stringBody(state) {
      // Inside one argument's string, and nowhere else: the JSON part's own fast path.
      const { places } = state as State;
      if (places.length !== 1 || !('state' in places[0]!)) return undefined;
      const place = places[0];
      const body = (parts[place.part] as { matcher: ByteMatcher }).matcher.stringBody?.(place.state);
      if (!body) return undefined;
      const within: StringBody = { min: body.min, max: body.max, ...(body.close ? { close: { places: [{ part: place.part, state: body.close }] } as State as MatchState } : {}) };
      return within;
    },
  };
}

/**
 * Free text, one byte on: while its first bytes are those of the opening (`text` of them so far),
 * it must not become the whole opening (that is a call); after that, any text (REST, or the
 * UTF-8 continuation bytes still owed, as a negative number below REST). Valid UTF-8, and no
 * control character but the newline (the same characters the grammar path allows).
 */
function stepText(text: number, byte: number): number | undefined {
  if (text < REST) {
    // Inside a character of several bytes: one more continuation byte.
    const owed = REST - text;
    const { lo, hi } = continuation(owed);
    if (byte < lo || byte > hi) return undefined;
    const count = owed & 3;
    return count === 1 ? REST : REST - (count - 1);
  }
  if (text >= 0 && byte === OPENING[text]) return text + 1 < OPENING.length ? text + 1 : undefined;
  return startCharacter(byte);
}

/**
 * UTF-8 state as a number below REST: REST - owed, where `owed` packs the continuation bytes
 * still owed (low 2 bits) and the range the next one must be in (the bits above, for the second
 * byte of E0, ED, F0 and F4 sequences).
 */
function startCharacter(byte: number): number | undefined {
  if (byte < 0x20) return byte === 0x0a ? REST : undefined;
  if (byte < 0x80) return REST;
  if (byte >= 0xc2 && byte <= 0xdf) return REST - 1;
  if (byte === 0xe0) return REST - (2 | (1 << 2));
  if (byte === 0xed) return REST - (2 | (2 << 2));
  if (byte >= 0xe1 && byte <= 0xef) return REST - 2;
  if (byte === 0xf0) return REST - (3 | (3 << 2));
  if (byte === 0xf4) return REST - (3 | (4 << 2));
  if (byte >= 0xf1 && byte <= 0xf3) return REST - 3;
  return undefined;
}

/** The range of the next continuation byte: narrowed for the byte after E0, ED, F0, F4; else 80..BF. */
function continuation(owed: number): { lo: number; hi: number } {
  switch (owed >> 2) {
    case 1:
      return { lo: 0xa0, hi: 0xbf };
    case 2:
      return { lo: 0x80, hi: 0x9f };
    case 3:
      return { lo: 0x90, hi: 0xbf };
    case 4:
      return { lo: 0x80, hi: 0x8f };
    default:
      return { lo: 0x80, hi: 0xbf };
  }
}
