/**
 * Exact decimal arithmetic for number bounds: a JSON number as typed so far is a decimal, and a
 * bound such as `maximum: 0.3` must be compared without binary rounding (0.1 + 0.2 is not 0.3 in
 * doubles, and a matcher that rounded would let `0.30000000000000004` past a bound it breaks).
 * @module
 */

/** `m * 10^-e`, e >= 0. */
export interface Decimal {
  readonly m: bigint;
  readonly e: number;
}

const TEN = 10n;
const pow10 = (n: number): bigint => TEN ** BigInt(n);

/** A decimal from a JSON number's text (or a number's shortest text). Undefined for NaN / Infinity. */
export function decimalOf(value: number | string): Decimal | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? numberText(value) : undefined) : value;
  if (text === undefined) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, sign, int, frac = '', exp = '0'] = match;
  let e = frac.length - Number(exp);
  let m = BigInt(int! + frac);
  if (e < 0) {
    m *= pow10(-e);
    e = 0;
  }
  return normal({ m: sign ? -m : m, e });
}

/** JS's own shortest text, with exponents written out so the parser above reads every form. */
function numberText(value: number): string {
  return String(value);
}

/** Trailing zeros dropped, so equal values have equal forms. */
function normal(d: Decimal): Decimal {
  let { m, e } = d;
  while (e > 0 && m % TEN === 0n) {
    m /= TEN;
    e--;
  }
  return { m, e };
}

function scaled(d: Decimal, e: number): bigint {
  return d.m * pow10(e - d.e);
}

export function compare(a: Decimal, b: Decimal): number {
  const e = Math.max(a.e, b.e);
  const x = scaled(a, e);
  const y = scaled(b, e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The bounds and step a number must keep. */
export interface NumberRange {
  readonly min?: Decimal;
  readonly minExclusive: boolean;
  readonly max?: Decimal;
  readonly maxExclusive: boolean;
  /** A multiple of this (positive), when given; integers are multiples of 1. */
  readonly step?: Decimal;
}

/** Whether `value` is within the range and a multiple of its step. */
export function inRange(value: Decimal, range: NumberRange): boolean {
  if (range.min) {
    const c = compare(value, range.min);
    if (c < 0 || (c === 0 && range.minExclusive)) return false;
  }
  if (range.max) {
    const c = compare(value, range.max);
    if (c > 0 || (c === 0 && range.maxExclusive)) return false;
  }
  if (range.step) {
    const e = Math.max(value.e, range.step.e);
    if (scaled(value, e) % scaled(range.step, e) !== 0n) return false;
  }
  return true;
}

/**
 * Whether some value between `lo` and `hi` (undefined: no end that side; each end open or not)
 * is in the range: what decides whether a number typed so far can still be finished.
 */
export function meets(lo: Decimal | undefined, loOpen: boolean, hi: Decimal | undefined, hiOpen: boolean, range: NumberRange): boolean {
  // The intersection's ends: the tighter of each pair.
  let low = lo;
  let lowOpen = loOpen;
  if (range.min && (low === undefined || compare(range.min, low) > 0 || (compare(range.min, low) === 0 && range.minExclusive))) {
    low = range.min;
    lowOpen = range.minExclusive;
  }
  let high = hi;
  let highOpen = hiOpen;
  if (range.max && (high === undefined || compare(range.max, high) < 0 || (compare(range.max, high) === 0 && range.maxExclusive))) {
    high = range.max;
    highOpen = range.maxExclusive;
  }
  if (low !== undefined && high !== undefined) {
    const c = compare(low, high);
    if (c > 0 || (c === 0 && (lowOpen || highOpen))) return false;
  }
  if (!range.step || low === undefined || high === undefined) return true;
  // The least multiple of the step at or above `low` (above, if open), then whether it is below `high`.
  const e = Math.max(low.e, range.step.e, high.e);
  const l = scaled(low, e);
  const s = scaled(range.step, e);
  let k = l >= 0n ? (l + s - 1n) / s : -(-l / s);
  if (k * s === l && lowOpen) k += 1n;
  const h = scaled(high, e);
  const first = k * s;
  return highOpen ? first < h : first <= h;
}

/** The least common multiple of two positive decimals (the step that keeps both). */
export function lcm(a: Decimal, b: Decimal): Decimal {
  const e = Math.max(a.e, b.e);
  const x = scaled(a, e);
  const y = scaled(b, e);
  return normal({ m: (x / gcd(x, y)) * y, e });
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

export const ONE: Decimal = { m: 1n, e: 0 };

/** `10^k` as a decimal (k >= 0) and `10^-k`. */
export const tenTo = (k: number): Decimal => (k >= 0 ? { m: pow10(k), e: 0 } : { m: 1n, e: -k });

export function add(a: Decimal, b: Decimal): Decimal {
  const e = Math.max(a.e, b.e);
  return normal({ m: scaled(a, e) + scaled(b, e), e });
}

export function negate(a: Decimal): Decimal {
  return { m: -a.m, e: a.e };
}

export function times(a: Decimal, b: Decimal): Decimal {
  return normal({ m: a.m * b.m, e: a.e + b.e });
}
