/**
 * JSON Schema `format`s as {@link CharAutomaton}s, written as anchored patterns for
 * {@link compilePattern}.
 *
 * The rule for each: a string the automaton accepts is one that both ajv-formats ("full" mode)
 * and Python jsonschema's FormatChecker accept. Where the two differ, or where exactness would
 * cost a huge automaton, the automaton is the stricter one (it may refuse a valid string, never
 * accept an invalid one): `date-time` takes only `T`/`t` between date and time; a time offset
 * needs its colon (`+05:30`); a leap second (`:60`) is taken only at 23:59 UTC with a zero
 * offset; a `uuid` has no `urn:uuid:` prefix; a `hostname` is at most 253 characters even with a
 * trailing dot; `uri` and `uri-reference` follow RFC 3986, and an IPv6 host has no leading zeros
 * in an embedded IPv4 part.
 * @module
 */

import type { CharAutomaton } from './char-automaton.ts';
import { compilePattern } from './pattern.ts';

// --- Dates and times (RFC 3339 section 5.6).

/** Years divisible by 4, except centuries not divisible by 400 (0000 is a leap year). */
const LEAP_YEAR = String.raw`(?:\d\d(?:0[48]|[2468][048]|[13579][26])|(?:0[048]|[2468][048]|[13579][26])00)`;
const DATE = String.raw`(?:\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))|${LEAP_YEAR}-02-29)`;
const OFFSET = String.raw`(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)`;
const TIME = String.raw`(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?${OFFSET}|23:59:60(?:\.\d+)?(?:[Zz]|[+-]00:00))`;

// --- ISO 8601 durations as ajv-formats reads them: P, then Y/M/D parts and a T part, or weeks.

const YMD = String.raw`(?:\d+Y(?:\d+M)?(?:\d+D)?|\d+M(?:\d+D)?|\d+D)`;
const HMS = String.raw`T(?:\d+H(?:\d+M)?(?:\d+S)?|\d+M(?:\d+S)?|\d+S)`;
const DURATION = `P(?:${YMD}(?:${HMS})?|${HMS}|\\d+W)`;

// --- Internet addresses.

const DEC_OCTET = String.raw`(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`;
const IPV4 = String.raw`(?:${DEC_OCTET}\.){3}${DEC_OCTET}`;
const H16 = '[0-9a-fA-F]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
/** RFC 3986 IPv6address: at most one `::`, eight 16-bit groups in all (the last two may be an IPv4 address). */
const IPV6 = `(?:${[
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|')})`;

const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const HOSTNAME = String.raw`${LABEL}(?:\.${LABEL})*\.?`;
const HOSTNAME_MAX = 253;

const EMAIL_ATOM = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";
const EMAIL_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const EMAIL = String.raw`${EMAIL_ATOM}(?:\.${EMAIL_ATOM})*@(?:${EMAIL_LABEL}\.)+${EMAIL_LABEL}`;

const UUID = '[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}';

// --- URIs (RFC 3986 section 3 and 4.1).

const PCT = '%[0-9a-fA-F]{2}';
const UNRESERVED_SUB = "a-zA-Z0-9._~!$&'()*+,;=\\-";
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${PCT})`;
/** A segment of a relative reference's first segment, where `:` would read as a scheme. */
const PCHAR_NC = `(?:[${UNRESERVED_SUB}@]|${PCT})`;
const QCHAR = `(?:[${UNRESERVED_SUB}:@/?]|${PCT})`;
const USERINFO = `(?:[${UNRESERVED_SUB}:]|${PCT})*@`;
// A registered name covers every IPv4 address's text too, so IPv4 needs no branch of its own.
const HOST = String.raw`(?:\[(?:${IPV6}|[vV][0-9a-fA-F]+\.[${UNRESERVED_SUB}:]+)\]|(?:[${UNRESERVED_SUB}]|${PCT})*)`;
const AUTHORITY = String.raw`(?:${USERINFO})?${HOST}(?::\d*)?`;
const SCHEME = '[a-zA-Z][a-zA-Z0-9+.-]*';
const TAIL = String.raw`(?:\?${QCHAR}*)?(?:#${QCHAR}*)?`;
// ajv-formats takes no empty path after a scheme ("a:" or "a:?q"), so neither does this.
const URI = String.raw`${SCHEME}:(?://${AUTHORITY}(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR}+(?:/${PCHAR}*)*)${TAIL}`;
const RELATIVE_REF = String.raw`(?://${AUTHORITY}(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR_NC}+(?:/${PCHAR}*)*)?${TAIL}`;

const PATTERNS: Record<string, string> = {
  date: DATE,
  time: TIME,
  'date-time': `${DATE}[Tt]${TIME}`,
  duration: DURATION,
  email: EMAIL,
  hostname: HOSTNAME,
  ipv4: IPV4,
  ipv6: IPV6,
  uuid: UUID,
  uri: URI,
  'uri-reference': `(?:${URI}|${RELATIVE_REF})`,
};

/** Caps the length of what another automaton accepts: states are (inner state, length so far), made lazily. */
class LengthCapped implements CharAutomaton {
  readonly start: number;
  private readonly inner: CharAutomaton;
  private readonly cap: number;
  private readonly innerOf: number[] = [];
  private readonly lengthOf: number[] = [];
  private readonly ids = new Map<string, number>();
  private readonly ascii: Int32Array[] = [];
  private readonly other: Map<number, number>[] = [];

  constructor(inner: CharAutomaton, cap: number) {
    this.inner = inner;
    this.cap = cap;
    this.start = this.intern(inner.start, 0);
  }

  private intern(state: number, length: number): number {
    const key = `${state},${length}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.innerOf.length;
      this.innerOf.push(state);
      this.lengthOf.push(length);
      this.ascii.push(new Int32Array(128).fill(-2));
      this.other.push(new Map());
      this.ids.set(key, id);
    }
    return id;
  }

  next(state: number, codePoint: number): number {
    const ascii = this.ascii[state];
    if (ascii === undefined) return -1;
    const isAscii = codePoint >= 0 && codePoint < 128;
    if (isAscii && ascii[codePoint] !== -2) return ascii[codePoint]!;
    const cached = this.other[state]!.get(codePoint);
    if (cached !== undefined) return cached;
    const length = this.lengthOf[state]! + 1;
    const inner = this.inner.next(this.innerOf[state]!, codePoint);
    // Live only if the inner automaton can still finish within what the cap leaves.
    const to = inner !== -1 && length <= this.cap && this.inner.canFinish(inner, 0, this.cap - length) ? this.intern(inner, length) : -1;
    if (isAscii) ascii[codePoint] = to;
    else this.other[state]!.set(codePoint, to);
    return to;
  }

  accepts(state: number): boolean {
    const inner = this.innerOf[state];
    return inner !== undefined && this.inner.accepts(inner);
  }

  matchesAll(): boolean {
    // The cap always asks something (no more than so many characters).
    return false;
  }

  takesSome(state: number, lo: number, hi: number): boolean {
    const inner = this.innerOf[state];
    return inner !== undefined && this.lengthOf[state]! < this.cap && this.inner.takesSome(inner, lo, hi);
  }

  canFinish(state: number, min: number, max: number): boolean {
    const inner = this.innerOf[state];
    if (inner === undefined) return false;
    const room = this.cap - this.lengthOf[state]!;
    return min <= room && this.inner.canFinish(inner, min, Math.min(max, room));
  }
}

const cache = new Map<string, CharAutomaton>();

/** The automaton of a `format`, or undefined for a format this module does not know (which then constrains nothing here). */
export function formatAutomaton(name: string): CharAutomaton | undefined {
  const source = Object.hasOwn(PATTERNS, name) ? PATTERNS[name] : undefined;
  if (source === undefined) return undefined;
  let automaton = cache.get(name);
  if (!automaton) {
    automaton = compilePattern(`^${source}$`);
    if (name === 'hostname') automaton = new LengthCapped(automaton, HOSTNAME_MAX);
    cache.set(name, automaton);
  }
  return automaton;
}

/** The format names {@link formatAutomaton} knows. */
export const FORMAT_NAMES: readonly string[] = Object.keys(PATTERNS);
